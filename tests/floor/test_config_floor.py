"""``[floor]`` in shoed's configuration (docs/service.md, docs/floor.md): optional, checked, secrets kept out."""

from __future__ import annotations

from pathlib import Path

import pytest

from shoe.service.config.settings import ConfigError, load_config


def config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "shoed.toml"
    path.write_text(text)
    return path


def test_without_a_floor_section_nothing_is_shipped(tmp_path: Path) -> None:
    cfg = load_config(config(tmp_path, '[service]\ntable = "MS-04"\n'), {}, environ={})
    assert (cfg.floor_url, cfg.floor_table) == (None, "MS-04")


def test_the_floor_table_defaults_to_the_service_table_and_may_differ(tmp_path: Path) -> None:
    url = "postgresql://shipper@db1:5432,db2:5432/floor?target_session_attrs=read-write"
    cfg = load_config(config(tmp_path, f'[service]\ntable = "MS-04"\n[floor]\nurl = "{url}"\n'), {}, environ={})
    assert (cfg.floor_url, cfg.floor_table) == (url, "MS-04")
    cfg = load_config(config(tmp_path, f'[floor]\nurl = "{url}"\ntable = "pit2.MS-04"\n'), {}, environ={})
    assert cfg.floor_table == "pit2.MS-04"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('url = "mysql://u:hunter2secret@h/db"', "[floor] url: \"mysql://u:...@h/db\" is not a postgresql:// URL"),
        ("url = 5", "[floor] url: is not a connection URL"),
        ('url = "postgresql://h/db"\ntable = "no spaces"', "[floor] table: \"no spaces\" is not a table name"),
        ('host = "db"', "[floor] host: is not a key: use one of url, table"),
    ],
)
def test_a_bad_floor_key_is_a_configuration_error_naming_it(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(config(tmp_path, f"[floor]\n{text}\n"), {}, environ={})
    assert str(caught.value).startswith(message)
    assert "hunter2secret" not in str(caught.value)
