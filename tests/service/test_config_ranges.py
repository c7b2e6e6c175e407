"""Every configuration value has a range: ``inf``, ``nan``, absurd counts and
unsafe table names are a ``ConfigError`` naming the key, never a 500, a 503 or a traceback later."""

from __future__ import annotations

import importlib.util
import math
import subprocess
import sys
from pathlib import Path

import pytest

from drivers.timeouts import RANGES, LinkTimeouts
from shoe.service import ConfigError, load_config

ROOT = Path(__file__).resolve().parents[2]
SHOED = "shoe.shoed" if importlib.util.find_spec("shoe.shoed") else "shoe.service.main"
"""shoed's entry point (it moves from shoe.service.main to shoe.shoed, above the service and the API)."""


def _load(tmp_path: Path, text: str) -> object:
    path = tmp_path / "shoed.toml"
    path.write_text(text)
    return load_config(path, {})


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("[service]\nsubmit_timeout = inf", "service.submit_timeout"),
        ("[service]\nsubmit_timeout = nan", "service.submit_timeout"),
        ("[service]\nsubmit_timeout = 1e9", "service.submit_timeout"),
        ("[shoe]\ntake_timeout = inf", "shoe.take_timeout"),
        ("[shoe]\ntake_timeout = -inf", "shoe.take_timeout"),
        ("[shoe.timeouts]\nreply = inf", "shoe.timeouts.reply"),
        ("[shoe.timeouts]\nreply = nan", "shoe.timeouts.reply"),
        ("[shoe.timeouts]\nreply = 0", "shoe.timeouts.reply"),
        ("[shoe.timeouts]\nretries = 1000000000", "shoe.timeouts.retries"),
        ("[shoe.timeouts]\nretries = 2.5", "shoe.timeouts.retries"),
        ("[shoe.timeouts]\nretries = true", "shoe.timeouts.retries"),
        ("[shoe.timeouts]\nscan = 1e300", "shoe.timeouts.scan"),
        ("[shoe.timeouts]\nread_poll = 0", "shoe.timeouts.read_poll"),
        ('[shoe.timeouts]\nreconnect_give_up = "30"', "shoe.timeouts.reconnect_give_up"),
        ("[shoe.timeouts]\nreconnect_initial = 5\nreconnect_max = 1", "shoe.timeouts.reconnect_max"),
        ('[service]\ntable = "MS-04\\n\\u001b[31mred"', "service.table"),
        ('[service]\ntable = "MS 04"', "service.table"),
        ('[service]\ntable = "MS-04/../x"', "service.table"),
        (f'[service]\ntable = "{"t" * 33}"', "service.table"),
        ('[service]\ntable = "\\u00b2"', "service.table"),
        ('[shoe]\nport = "emu://\\u001b[2J"', "shoe.port"),
        (f'[shoe]\nport = "/dev/{"x" * 600}"', "shoe.port"),
        ('[journal]\npath = "j\\u0000.sqlite"', "journal.path"),
        ('[http]\nhost = "127.0.0.1\\n"', "http.host"),
        (f'[tokens]\ndealer = "{"d" * 300}"', "tokens.dealer"),
        ('[tokens]\ndealer = "dealer-token-0123456789\\u0007"', "tokens.dealer"),
    ],
)
def test_a_value_out_of_range_names_its_key(tmp_path: Path, text: str, key: str) -> None:
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, text)
    assert err.value.key == key, str(err.value)
    assert err.value.fix and str(err.value).endswith(err.value.fix)
    assert "\x1b" not in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("table", ["MS-04", "table-1", "e2e", "soak", "T.7_b", "t" * 32])
def test_a_sane_table_name_is_kept(tmp_path: Path, table: str) -> None:
    assert _load(tmp_path, f'[service]\ntable = "{table}"').table == table  # type: ignore[attr-defined]


def test_the_ranges_are_inclusive_at_the_top(tmp_path: Path) -> None:
    lines = [f"{name} = {high}" for name, (_, high, _) in RANGES.items() if name != "reconnect_initial"]
    config = _load(tmp_path, "[shoe.timeouts]\n" + "\n".join(lines))
    assert config.timeouts.retries == RANGES["retries"][1]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("name", "value"),
    [("reply", math.inf), ("reply", math.nan), ("retries", 10**9), ("retries", True), ("scan", -1.0), ("read_poll", 0)],
)
def test_link_timeouts_validate_their_own_values(name: str, value: float) -> None:
    with pytest.raises(ValueError, match=name):
        LinkTimeouts(**{name: value})  # type: ignore[arg-type]


def test_every_link_timeout_has_a_range() -> None:
    from dataclasses import fields

    assert {f.name for f in fields(LinkTimeouts)} == set(RANGES)
    LinkTimeouts()  # the defaults are in range


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("[shoe.timeouts]\nreply = inf", "[shoe.timeouts] reply"),
        ("[service]\nsubmit_timeout = nan", "[service] submit_timeout"),
        ('[service]\ntable = "MS-04\\n\\u001b[31mred"', "[service] table"),
    ],
)
def test_shoed_exits_2_with_one_line_naming_the_key(tmp_path: Path, text: str, key: str) -> None:
    """Through the real ``shoed`` process: exit 2, one line on stderr, no traceback."""
    config = tmp_path / "shoed.toml"
    config.write_text(text)
    argv = [sys.executable, "-m", SHOED, "--config", str(config), "--journal", str(tmp_path / "j")]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith(f"shoed: configuration: {key}:"), lines
