"""``[shoe] port`` parsed at start as its backend parses it, and ``SHOED_HTTP``."""

from __future__ import annotations

from pathlib import Path

import pytest

from drivers.errors import BadPort
from drivers.transport import check_port
from shoe.service import ConfigError, load_config


@pytest.mark.parametrize(
    ("port", "problem", "fix"),
    [
        ("emu://?jam=3", "unknown emulator option 'jam'", "shoectl emulate --help"),
        ("emu://?timing=fast", "'fast' is not one of", "shoectl emulate --help"),
        ("socket://nohost", "names no port number", "socket://HOST:PORT"),
        ("socket://[::1", "Invalid IPv6 URL", "socket://HOST:PORT"),
        ("serial:///dev/ttyUSB0?speed=9600", "unknown option(s) speed", "?baud=N"),
        ("usb://1209", "is not a USB shoe URL", "usb://VID:PID"),
    ],
)
def test_a_malformed_port_is_a_configuration_error(port: str, problem: str, fix: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(None, {"port": port}, {})
    assert caught.value.key == "shoe.port"
    assert str(caught.value).startswith("[shoe] port: ") and "\n" not in str(caught.value)
    assert problem in str(caught.value) and fix in caught.value.fix


@pytest.mark.parametrize("port", ["emu://", "emu://?seed=3&jam_at=5", "/dev/ttyUSB0", "COM3", "socket://127.0.0.1:7000",
                                  "serial:///dev/ttyACM0?baud=9600", "usb://", "usb://1209:0001/EMU0001"])  # fmt: skip
def test_well_formed_ports_pass_and_nothing_is_opened(port: str) -> None:
    check_port(port)  # /dev/ttyUSB0 does not exist here: only the form is checked
    assert load_config(None, {"port": port}, {}).shoe_port == port


def test_a_typo_in_the_deck_or_the_seed_names_the_option_not_the_value() -> None:
    typos = (
        ("emu://?seed=424242x", "424242"),
        ("emu://?deck=AsKdQhZz", "AsKd"),
        ("emu://?deck=As,Kd,Xx,7c&jam=1", "Kd"),
    )
    for port, secret in typos:
        with pytest.raises(ConfigError) as caught:
            load_config(None, {"port": port}, {})
        assert secret not in str(caught.value) and "[shoe] port" in str(caught.value), str(caught.value)


def test_check_port_raises_bad_port() -> None:
    with pytest.raises(BadPort, match="unknown scheme 'emy'"):
        check_port("emy://")


def test_shoed_http_is_the_default_address(tmp_path: Path) -> None:
    env = {"SHOED_HTTP": "127.0.0.1:8471"}
    config = load_config(None, {}, env)
    assert (config.http_host, config.http_port) == ("127.0.0.1", 8471)
    assert (load_config(None, {}, {"SHOED_HTTP": "[::1]:0"}).http_host) == "::1"
    file = tmp_path / "shoed.toml"
    file.write_text("[http]\nport = 9000\n")
    from_file = load_config(file, {}, env)
    assert (from_file.http_host, from_file.http_port) == ("127.0.0.1", 9000)  # the file's key wins, the host stays
    over = load_config(file, {"http": "127.0.0.1:9100"}, env)
    assert (over.http_host, over.http_port) == ("127.0.0.1", 9100)  # --http wins over both
    assert load_config(None, {}, {}).http_port == 8470


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("127.0.0.1", "is not HOST:PORT"),
        ("", "is not HOST:PORT"),
        ("127.0.0.1:65536", "is not a port number"),
        ("127.0.0.1:eighty", "is not a port number"),
        ("10.0.0.5:8470", "is not a loopback address and [tokens] is empty"),
        ("127.0.0.1:8470\n", "is not HOST:PORT"),
    ],
)
def test_a_bad_shoed_http_names_the_variable(value: str, problem: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(None, {}, {"SHOED_HTTP": value})
    assert str(caught.value).startswith("SHOED_HTTP (environment): ") and problem in str(caught.value)


def test_a_bad_shoed_http_is_refused_even_when_http_is_given() -> None:
    """``--http`` wins; the variable is still checked, so a typo in it is found at once, not later."""
    with pytest.raises(ConfigError, match="SHOED_HTTP"):
        load_config(None, {"http": "127.0.0.1:0"}, {"SHOED_HTTP": "nonsense"})
