"""``shoed`` configuration: defaults, the file, overrides, and errors that name the key and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from drivers.timeouts import LinkTimeouts
from shoe.service import ConfigError, Role, load_config

TOKEN = "d" * 24


def _load(tmp_path: Path, text: str, **overrides: object):  # type: ignore[no-untyped-def]
    path = tmp_path / "shoed.toml"
    path.write_text(text)
    return load_config(path, overrides)


def test_defaults_with_no_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("SHOED_JOURNAL", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    config = load_config(None, {})
    # the embedded default deals round after round: its emulated dealer loads the next deck by itself
    assert config.shoe_port == "emu://?autoload=1"
    assert (config.deck_backs, config.check_on_load, config.emulator_control) == ((), True, None)
    assert config.one_cpu is True  # shoed's threads share one CPU unless told otherwise
    assert config.journal == tmp_path / "state" / "shoed" / "journal.sqlite"
    assert (config.http_host, config.http_port) == ("127.0.0.1", 8470)
    assert dict(config.tokens) == {} and config.timeouts == LinkTimeouts()
    monkeypatch.setenv("SHOED_JOURNAL", str(tmp_path / "j.sqlite"))
    assert load_config(None, {}).journal == tmp_path / "j.sqlite"


def test_every_key_from_the_file_and_overrides_win(tmp_path: Path) -> None:
    text = f"""
[shoe]
port = "/dev/ttyUSB0"
take_timeout = 12
[shoe.timeouts]
reply = 0.8
reconnect_give_up = 60
[journal]
path = "data/journal.sqlite"
[http]
host = "0.0.0.0"
port = 9000
[tokens]
dealer = ["{TOKEN}", "{"e" * 20}"]
technician = "{"t" * 20}"
table-system = "{"s" * 20}"
[service]
table = "MS-04"
submit_timeout = 45
[log]
level = "DEBUG"
"""
    config = _load(tmp_path, text)
    assert config.shoe_port == "/dev/ttyUSB0" and config.take_timeout == 12.0
    assert config.timeouts.reply == 0.8 and config.timeouts.reconnect_give_up == 60
    assert config.journal == tmp_path / "data" / "journal.sqlite"
    assert (config.http_host, config.http_port) == ("0.0.0.0", 9000)
    assert config.tokens[TOKEN] is Role.DEALER and config.tokens["t" * 20] is Role.TECHNICIAN
    assert config.tokens["s" * 20] is Role.TABLE_SYSTEM and len(config.tokens) == 4
    assert (config.table, config.submit_timeout, config.log_level) == ("MS-04", 45.0, "debug")
    over = _load(tmp_path, text, port="emu://?seed=3", journal="/tmp/x.sqlite", http="[::1]:0", log_level="error")
    assert over.shoe_port == "emu://?seed=3" and over.journal == Path("/tmp/x.sqlite")
    assert (over.http_host, over.http_port, over.log_level) == ("::1", 0, "error")


@pytest.mark.parametrize(
    ("text", "overrides", "key", "message"),
    [
        ('[http]\nport = "abc"', {}, "http.port", '[http] port: "abc" is not a port number: use 1-65535'),
        ("[http]\nport = 70000", {}, "http.port", "[http] port: 70000 is not a port number"),
        ("", {"http": "localhost"}, "http", "is not HOST:PORT"),
        ("", {"http": "127.0.0.1:http"}, "http", "is not a port number"),
        ('[http]\nhost = "0.0.0.0"', {}, "http.host", "is not a loopback address and [tokens] is empty"),
        ("", {"http": "10.0.0.5:8470"}, "http.host", "add tokens or bind 127.0.0.1"),
        ('[shoe]\nport = "ftp://x"', {}, "shoe.port", "has an unknown scheme"),
        ("", {"port": ""}, "shoe.port", "is not a shoe port"),
        ("[shoe]\nbaud = 9600", {}, "shoe.baud", "[shoe] baud: is not a key: use one of port, timeouts"),
        ("[shoe]\ntake_timeout = -1", {}, "shoe.take_timeout", "is not a number of seconds"),
        ("[bogus]\nx = 1", {}, "bogus", "[bogus]: is not a section"),
        ('shoe = "emu://"', {}, "shoe", "is not a table: write it as [shoe]"),
        ("[shoe.timeouts]\nreply = -1", {}, "shoe.timeouts.reply", "must be a number of seconds above 0"),
        ("[shoe.timeouts]\nrepy = 1", {}, "shoe.timeouts", "unknown timeout(s) repy; valid:"),
        ('[tokens]\ndealer = "short"', {}, "tokens.dealer", "too weak: use a random string of 16+ characters"),
        (f'[tokens]\ndealer = "{TOKEN}"\nobserver = "{TOKEN}"', {}, "tokens.observer", "give each role its own"),
        ("[tokens]\ndealer = 5", {}, "tokens.dealer", "is not a string or a list of strings"),
        ('[journal]\npath = ""', {}, "journal.path", "is not a file path"),
        ('[log]\nlevel = "loud"', {}, "log.level", "use one of debug, info, warning, error"),
        ("[service]\nsubmit_timeout = 0", {}, "service.submit_timeout", "is not a number of seconds above 0"),
        ('[service]\ntable = ""', {}, "service.table", "is not a table name"),
        ("[shoe\nport=", {}, "config", "is not valid TOML"),
    ],
)
def test_errors_name_the_key_and_the_fix(
    tmp_path: Path, text: str, overrides: dict[str, str], key: str, message: str
) -> None:
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, text, **overrides)
    assert err.value.key == key
    assert message in str(err.value)
    assert err.value.fix and str(err.value).endswith(err.value.fix)


def test_a_missing_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        load_config(tmp_path / "nope.toml", {})
    assert err.value.key == "config" and "does not exist" in str(err.value)


def test_non_loopback_with_tokens_is_allowed(tmp_path: Path) -> None:
    config = _load(tmp_path, f'[tokens]\nobserver = "{TOKEN}"', http="192.168.1.20:8470")
    assert config.http_host == "192.168.1.20" and config.tokens == {TOKEN: Role.OBSERVER}


@pytest.mark.parametrize(("text", "expected"), [("true", True), ("false", False)])
def test_one_cpu_is_a_flag(tmp_path: Path, text: str, expected: bool) -> None:
    assert _load(tmp_path, f"[service]\none_cpu = {text}\n").one_cpu is expected


@pytest.mark.parametrize("text", ['"yes"', "1", "0", '"false"', "[true]"])
def test_one_cpu_that_is_not_true_or_false_is_refused_by_name(tmp_path: Path, text: str) -> None:
    with pytest.raises(ConfigError) as refused:
        _load(tmp_path, f"[service]\none_cpu = {text}\n")
    assert str(refused.value).startswith("[service] one_cpu: ") and "use true or false" in str(refused.value)
