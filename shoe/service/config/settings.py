"""``shoed`` configuration: a TOML file (every key optional), command-line overrides, validation.

Every error is a :class:`ConfigError` naming the key and the fix, for example
``[http] port: "abc" is not a port number: use 1-65535 (0 picks a free port)``. The keys are documented
in docs/service.md. Nothing is read at import time.
"""

from __future__ import annotations

import ipaddress
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from drivers.errors import BadPort
from drivers.timeouts import LinkTimeouts, TimeoutValueError
from drivers.transport import check_port, redact_port
from shoe.service.config.redact import HIDDEN, scrub, shown_url
from shoe.service.config.sections import floor_url as _floor_url
from shoe.service.config.sections import people as _people
from shoe.service.config.values import MAX_PATH, ConfigError
from shoe.service.config.values import seconds_value as _number
from shoe.service.config.values import show_value as _show
from shoe.service.config.values import text_value as _text
from shoe.service.config.verify import KEYS as VERIFY_KEYS
from shoe.service.config.verify import VerifyConfig, parse_verify
from shoe.service.errors import Role

__all__ = ["HTTP_ENV", "ConfigError", "ServiceConfig", "load_config", "parse_http"]

DEFAULT_PORT = "emu://?autoload=1"
"""The embedded default (no ``shoe.port`` anywhere): the emulator, loading the next deck by itself after each
stub, so the README's run command deals round after round. A port given names its own options."""
DEFAULT_HTTP = ("127.0.0.1", 8470)
HTTP_ENV = "SHOED_HTTP"
"""``SHOED_HTTP=HOST:PORT``: the default of ``[http] host`` and ``port`` (a file's keys and ``--http`` win), so
the README's run command can move off 8470 without a file, as ``SHOED_JOURNAL`` moves the journal."""
MIN_TOKEN = 16
SCHEMES = ("serial", "socket", "usb", "emu")
_TOKEN_FIX = "use a random string of 16+ characters (python -c 'import secrets; print(secrets.token_urlsafe())')"
_KEYS: dict[str, tuple[str, ...]] = {
    "shoe": ("port", "timeouts", "take_timeout", "emulator_control", "key_file", "allow_unauthenticated"),
    "journal": ("path",),
    "http": ("host", "port"),
    "tokens": tuple(r.value for r in Role),
    "service": ("table", "submit_timeout", "one_cpu"),
    "log": ("level",),
    "deck": ("backs", "check_on_load"),
    "floor": ("url", "table"),
    "verify": VERIFY_KEYS,
    "people": ("path", "session_idle", "pin_tries", "require_sign_in"),
}
LEVELS = ("debug", "info", "warning", "error")
MAX_TOKEN, MAX_PORT, MAX_HOST = 256, 512, 253
TABLE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}", re.ASCII)
"""A table's name goes into every round id and log line: 1-32 letters, digits, ``.``, ``_``, ``-``."""


@dataclass(frozen=True)
class ServiceConfig:
    shoe_port: str = DEFAULT_PORT
    journal: Path = Path("journal.sqlite")
    http_host: str = DEFAULT_HTTP[0]
    http_port: int = DEFAULT_HTTP[1]
    tokens: Mapping[str, Role] = field(default_factory=lambda: MappingProxyType({}))
    timeouts: LinkTimeouts = field(default_factory=LinkTimeouts)
    take_timeout: float = 30.0
    submit_timeout: float = 30.0
    one_cpu: bool = True  # [service] one_cpu: all of shoed's threads on one CPU (shoe.shoed.share_one_cpu)
    table: str = "table-1"
    log_level: str = "info"
    source: Path | None = None
    deck_backs: tuple[str, ...] = ()  # [deck] backs: the alternation of back designs (empty: any back)
    check_on_load: bool = True  # [deck] check_on_load: check each deck as soon as it is loaded
    emulator_control: Path | None = None  # [shoe] emulator_control: the control socket of `shoectl emulate --control`
    key_file: Path | None = None  # [shoe] key_file: the pairing key (SPEC §13); None: shoe.key beside the journal
    allow_unauthenticated: bool = False  # [shoe] allow_unauthenticated: a bench drives a plain link without an alarm
    floor_url: str | None = None  # [floor] url: the floor database (libpq URL); None: no shipping (docs/floor.md)
    floor_table: str | None = None  # [floor] table: this table's name on the floor (default: [service] table)
    verify: VerifyConfig = field(default_factory=VerifyConfig)  # [verify]: program and firmware verification
    people_path: Path | None = None  # [people] path: the employees store (None: people.sqlite beside the journal)
    session_idle: float = 900.0  # [people] session_idle: seconds without a request before a sign-in ends
    pin_tries: int = 5  # [people] pin_tries: wrong PINs in a row that lock a badge
    require_sign_in: bool = False  # [people] require_sign_in: no dealer or technician action without an employee


def _port_url(key: str, value: object) -> str:
    """``[shoe] port`` (or ``--port``): checked by the backends' own parsers; every message about it shows
    it redacted (``shoe.service.config.redact``): its options and credentials never appear."""
    shown = _show(redact_port(shown_url(value))) if isinstance(value, str) else _show(value)
    if _text(key, value, MAX_PORT) is None or not isinstance(value, str):
        raise ConfigError(
            key,
            f"{shown} is not a shoe port (1-{MAX_PORT} printable characters)",
            "use emu://, /dev/ttyUSB0 or usb://VID:PID",
        )
    if "://" in value and value.split("://", 1)[0].lower() not in SCHEMES:
        raise ConfigError(key, f"{shown} has an unknown scheme", f"use a device path or {', '.join(SCHEMES)}")
    try:
        check_port(value)  # the backends' own parsers, as shoectl's usage errors: nothing is opened
    except BadPort as exc:
        hidden = f"{shown} {HIDDEN}"
        raise ConfigError(key, scrub(str(exc), value, hidden), scrub(exc.hint, value, BadPort.hint)) from None
    return value


def _http_port(key: str, value: object) -> int:
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 65535:
        raise ConfigError(key, f"{_show(value)} is not a port number", "use 1-65535 (0 picks a free port)")
    return value


def _host(key: str, value: object) -> str:
    if _text(key, value, MAX_HOST) is None or not isinstance(value, str) or any(c in value for c in " /[]"):
        raise ConfigError(key, f"{_show(value)} is not a host address", "use an IP address such as 127.0.0.1")
    return value


def parse_http(text: str, key: str = "http") -> tuple[str, int]:
    """``"HOST:PORT"`` or ``"[V6]:PORT"``."""
    host, sep, port = text.rpartition(":")
    if not sep or not host:
        raise ConfigError(key, f"{_show(text)} is not HOST:PORT", "use e.g. 127.0.0.1:8470")
    return _host(key, host.strip("[]")), _http_port(key, port)


def _http_default(environ: Mapping[str, str]) -> tuple[tuple[str, int], str]:
    """``SHOED_HTTP`` when set (checked as ``--http`` is), else 127.0.0.1:8470; and the key a host error names."""
    raw = environ.get(HTTP_ENV)
    if raw is None:
        return DEFAULT_HTTP, "http.host"
    if _text(HTTP_ENV, raw, MAX_HOST + 6) is None:
        raise ConfigError(HTTP_ENV, f"{_show(raw)} is not HOST:PORT", "use e.g. SHOED_HTTP=127.0.0.1:8471, or unset it")
    return parse_http(raw, HTTP_ENV), HTTP_ENV


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _tokens(raw: object) -> dict[str, Role]:
    if not isinstance(raw, dict):
        raise ConfigError("tokens", f"{_show(raw)} is not a table", 'write [tokens] with dealer = "..." lines')
    tokens: dict[str, Role] = {}
    for role in Role:
        value = raw.get(role.value)
        if value is None:
            continue
        key = f"tokens.{role.value}"
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not all(isinstance(t, str) for t in items):
            raise ConfigError(key, "is not a string or a list of strings", _TOKEN_FIX)
        for token in items:
            if len(token) < MIN_TOKEN or token != token.strip():
                raise ConfigError(key, f"a token of {len(token)} characters is too weak", _TOKEN_FIX)
            if len(token) > MAX_TOKEN or not token.isascii() or not token.isprintable():
                raise ConfigError(key, f"a token must be at most {MAX_TOKEN} printable ASCII characters", _TOKEN_FIX)
            if token in tokens:
                raise ConfigError(key, f"a token is also given to {tokens[token].value}", "give each role its own")
            tokens[token] = role
    return tokens


def _check_keys(doc: Mapping[str, Any]) -> None:
    for section, value in doc.items():
        if section not in _KEYS:
            raise ConfigError(section, "is not a section", f"use one of {', '.join(_KEYS)}")
        if not isinstance(value, dict):
            raise ConfigError(section, f"{_show(value)} is not a table", f"write it as [{section}]")
        for key in value:
            if key not in _KEYS[section]:
                raise ConfigError(f"{section}.{key}", "is not a key", f"use one of {', '.join(_KEYS[section])}")


def _timeouts(raw: object) -> LinkTimeouts:
    if not isinstance(raw, dict):
        raise ConfigError("shoe.timeouts", f"{_show(raw)} is not a table", "write [shoe.timeouts] with reply = 0.5")
    try:
        return LinkTimeouts.from_mapping(raw)
    except TimeoutValueError as exc:
        raise ConfigError(f"shoe.timeouts.{exc.name}", str(exc), "see docs/service.md, Configuration") from None
    except (ValueError, TypeError) as exc:
        raise ConfigError("shoe.timeouts", str(exc), "see docs/drivers.md, Timeouts") from None


def _read(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError("config", f"{str(path)!r} does not exist", "give an existing file or no --config") from None
    except OSError as exc:
        raise ConfigError("config", f"{str(path)!r} cannot be read ({exc.strerror})", "check its permissions") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("config", f"{str(path)!r} is not valid TOML ({exc})", "fix the syntax") from None


def load_config(
    path: Path | None, overrides: Mapping[str, Any], environ: Mapping[str, str] | None = None
) -> ServiceConfig:
    """The file's values (all optional) under ``overrides`` (``port``, ``journal``, ``http``, ``log_level``).

    ``environ`` (default ``os.environ``, read now): ``SHOED_HTTP`` gives the defaults of ``[http]``.
    """
    doc = _read(path) if path is not None else {}
    _check_keys(doc)
    shoe, journal, http = doc.get("shoe", {}), doc.get("journal", {}), doc.get("http", {})
    service, log, deck = doc.get("service", {}), doc.get("log", {}), doc.get("deck", {})
    port = _port_url("shoe.port", shoe.get("port", DEFAULT_PORT))
    journal_raw: object = journal.get("path")
    default_http, host_key = _http_default(os.environ if environ is None else environ)
    if "host" in http:
        host_key = "http.host"
    host = _host("http.host", http.get("host", default_http[0]))
    http_port = _http_port("http.port", http.get("port", default_http[1]))
    level = log.get("level", "info")
    if overrides.get("port") is not None:
        port = _port_url("shoe.port", overrides["port"])
    if overrides.get("journal") is not None:
        journal_raw = str(overrides["journal"])
    if overrides.get("http") is not None:
        host, http_port = parse_http(str(overrides["http"]))
        host_key = "http.host"
    if overrides.get("log_level") is not None:
        level = overrides["log_level"]
    if not isinstance(level, str) or level.lower() not in LEVELS:
        raise ConfigError("log.level", f"{_show(level)} is not a level", f"use one of {', '.join(LEVELS)}")
    tokens = _tokens(doc.get("tokens", {}))
    if not tokens and not is_loopback(host):
        raise ConfigError(
            host_key,
            f"{_show(host)} is not a loopback address and [tokens] is empty",
            "add tokens or bind 127.0.0.1",
        )
    table = _table_name("service.table", service.get("table", "table-1"))
    return ServiceConfig(
        shoe_port=port,
        journal=_journal_path(journal_raw, path),
        http_host=host,
        http_port=http_port,
        tokens=MappingProxyType(tokens),
        timeouts=_timeouts(shoe.get("timeouts", {})),
        take_timeout=_number("shoe.take_timeout", shoe.get("take_timeout", 30.0)),
        submit_timeout=_number("service.submit_timeout", service.get("submit_timeout", 30.0)),
        one_cpu=_flag("service.one_cpu", service.get("one_cpu", True)),
        table=table,
        log_level=level.lower(),
        source=path,
        deck_backs=_backs(deck.get("backs", [])),
        check_on_load=_flag("deck.check_on_load", deck.get("check_on_load", True)),
        emulator_control=_control(shoe.get("emulator_control"), path),
        key_file=_key_file(shoe.get("key_file"), path),
        allow_unauthenticated=_flag("shoe.allow_unauthenticated", shoe.get("allow_unauthenticated", False)),
        floor_url=_floor_url(doc.get("floor", {}).get("url")),
        floor_table=_table_name("floor.table", doc.get("floor", {}).get("table", table)),
        verify=parse_verify(doc.get("verify", {}), path),
        **_people(doc.get("people", {}), path),
    )


def _table_name(key: str, table: object) -> str:
    if not isinstance(table, str) or not TABLE_NAME.fullmatch(table):
        raise ConfigError(
            key,
            f"{_show(table)} is not a table name",
            'use 1-32 letters, digits, ".", "_" or "-", starting with a letter or digit, e.g. "MS-04"',
        )
    return table


def _backs(raw: object) -> tuple[str, ...]:
    """``[deck] backs``: the back designs the table's decks alternate through (the shoe's DECK_LOADED names)."""
    fix = 'use e.g. backs = ["red", "blue"] (the designs the shoe reads), or leave it out for any back'
    if not isinstance(raw, list) or len(raw) > 8 or not all(_text("deck.backs", b, 255) for b in raw):
        raise ConfigError("deck.backs", f"{_show(raw)} is not a list of up to 8 back designs", fix)
    if len(set(raw)) != len(raw):
        raise ConfigError("deck.backs", f"{_show(raw)} names a design twice (one back: every deck has it)", fix)
    return tuple(raw)


def _flag(key: str, raw: object) -> bool:
    if not isinstance(raw, bool):
        raise ConfigError(key, f"{_show(raw)} is not true or false", "use true or false")
    return raw


def _control(raw: object, config_path: Path | None) -> Path | None:
    """``[shoe] emulator_control``: the socket of an emulator in another process (the dealer's load action)."""
    if raw is None:
        return None
    if _text("shoe.emulator_control", raw, MAX_PATH) is None or not isinstance(raw, str):
        raise ConfigError("shoe.emulator_control", f"{_show(raw)} is not a socket path",
                          "use the path given to shoectl emulate --control")  # fmt: skip
    path = Path(raw).expanduser()
    return path if path.is_absolute() or config_path is None else config_path.parent / path


def _key_file(raw: object, config_path: Path | None) -> Path | None:
    """``[shoe] key_file``: the pairing key's file (docs/drivers.md, Pairing)."""
    if raw is None:
        return None
    if _text("shoe.key_file", raw, MAX_PATH) is None or not isinstance(raw, str):
        raise ConfigError("shoe.key_file", f"{_show(raw)} is not a file path", "use e.g. /var/lib/shoed/shoe.key")
    path = Path(raw).expanduser()
    return path if path.is_absolute() or config_path is None else config_path.parent / path


def _journal_path(raw: object, config_path: Path | None) -> Path:
    if raw is None:
        from shoe.journal.paths import default_journal_path

        return Path(default_journal_path())
    if _text("journal.path", raw, MAX_PATH) is None or not isinstance(raw, str):
        raise ConfigError(
            "journal.path",
            f"{_show(raw)} is not a file path (1-{MAX_PATH} printable characters)",
            "use e.g. /var/lib/shoed/journal.sqlite",
        )
    path = Path(raw).expanduser()
    if not path.is_absolute() and config_path is not None:
        path = config_path.parent / path
    return path
