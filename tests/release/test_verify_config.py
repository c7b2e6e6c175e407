"""``[verify]``: every key optional, each bad value a ConfigError naming the key and the fix."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from shoe.service.config.settings import ConfigError, load_config


def config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "shoed.toml"
    path.write_text(text)
    return path


def test_the_embedded_default_verifies_this_environment_with_the_manifest_beside_it() -> None:
    verify = load_config(None, {}).verify
    assert verify.root == Path(sys.prefix) and verify.manifest_path() == Path(sys.prefix) / "release-manifest.json"
    assert verify.interval_s == 3600 and verify.on_mismatch == "refuse-rounds" and not verify.firmware


def test_relative_paths_are_the_configuration_files(tmp_path: Path) -> None:
    path = config(tmp_path, '[verify]\nmanifest = "m.json"\n[verify.firmware]\n"1.4.2" = "fw/cs200.bin"\n')
    verify = load_config(path, {}).verify
    assert verify.manifest == tmp_path / "m.json" and verify.firmware["1.4.2"] == tmp_path / "fw/cs200.bin"


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("[verify]\ninterval_s = -1\n", "[verify] interval_s"),
        ('[verify]\ninterval_s = "1h"\n', "[verify] interval_s"),
        ('[verify]\non_mismatch = "ignore"\n', "[verify] on_mismatch"),
        ("[verify]\nmanifest = 3\n", "[verify] manifest"),
        ('[verify]\nfirmware = "x"\n', "[verify] firmware"),
        ('[verify]\nseed = "00"\n', "[verify] seed"),
    ],
)
def test_a_bad_value_names_its_key(tmp_path: Path, text: str, key: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_config(config(tmp_path, text), {})
    assert str(raised.value).startswith(key), raised.value
