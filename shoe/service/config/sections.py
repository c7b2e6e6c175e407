"""The ``[floor]`` and ``[people]`` sections of shoed's configuration (docs/service.md): each value checked,
a ConfigError naming its key otherwise."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from shoe.service.config.redact import scrub, shown_url
from shoe.service.config.values import MAX_PATH, ConfigError, seconds_value, show_value, text_value

__all__ = ["floor_url", "people"]


def floor_url(raw: object) -> str | None:
    """``[floor] url``: a libpq connection URL (several hosts allowed); absent: the table ships nothing."""
    if raw is None:
        return None
    fix = 'use e.g. url = "postgresql://shipper@db1,db2/floor?target_session_attrs=read-write" (docs/floor.md)'
    if text_value("floor.url", raw, MAX_PATH) is None or not isinstance(raw, str):
        raise ConfigError("floor.url", "is not a connection URL (1-4096 printable characters)", fix)
    shown = show_value(shown_url(raw))
    if not raw.startswith(("postgresql://", "postgres://")):
        raise ConfigError("floor.url", f"{shown} is not a postgresql:// URL", fix)
    problem = _dsn_problem(raw)
    if problem is not None:
        raise ConfigError("floor.url", f"{shown} {scrub(problem, raw)}", fix)
    return raw


def _dsn_problem(url: str) -> str | None:
    """Why libpq could not use the URL, checked here with libpq's own parser (``PQconninfoParse``), so that
    no malformed URL reaches the shipper, whose connection errors would quote it back; None if it parses.

    Beyond the parse: a host holding ``@`` (a password with an unencoded ``@``: libpq takes the first ``@``
    and would name the rest of the password as the host it cannot find) and a port that is not a number
    (libpq quotes it at connect time) are refused too."""
    from psycopg import ProgrammingError
    from psycopg.conninfo import conninfo_to_dict

    try:
        params = conninfo_to_dict(url)
    except ProgrammingError as exc:
        reason = str(exc).strip().partition(" in URI:")[0]  # libpq quotes the whole URI after this
        return f"cannot be parsed by libpq ({reason})"
    except ValueError:  # UnicodeDecodeError: a %-escape that decodes to no UTF-8 (its bytes would quote it)
        return "cannot be parsed by libpq (a %-escape that is not UTF-8)"
    if "@" in str(params.get("host", "")):
        return "has an @ in its host: a password holding @ must be written %40"
    ports = str(params.get("port", "") or "").split(",")
    if any(p and not (p.isdigit() and 0 < int(p) <= 65535) for p in ports):
        return "has a port that is not a number 1-65535"
    return None


def people(raw: Mapping[str, Any], config_path: Path | None) -> dict[str, Any]:
    """``[people]`` (docs/people.md): the store's path, the idle sign-out, the PIN lockout."""
    out: dict[str, Any] = {"session_idle": seconds_value("people.session_idle", raw.get("session_idle", 900.0),
                                                   high=86400.0)}  # fmt: skip
    tries = raw.get("pin_tries", 5)
    if isinstance(tries, bool) or not isinstance(tries, int) or not 1 <= tries <= 20:
        raise ConfigError("people.pin_tries", f"{show_value(tries)} is not a whole number 1-20", "use e.g. 5")
    out["pin_tries"] = tries
    required = raw.get("require_sign_in", False)
    if not isinstance(required, bool):
        raise ConfigError("people.require_sign_in", f"{show_value(required)} is not true or false", "use true or false")
    out["require_sign_in"] = required
    if "path" in raw:
        where = raw["path"]
        if text_value("people.path", where, MAX_PATH) is None or not isinstance(where, str):
            fix = "use e.g. /var/lib/shoed/people.sqlite"
            raise ConfigError("people.path", f"{show_value(where)} is not a file path", fix)
        people = Path(where).expanduser()
        out["people_path"] = people if people.is_absolute() or config_path is None else config_path.parent / people
    return out
