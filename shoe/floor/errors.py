"""The floor's one error type: the message says what is wrong and what to do.

Every database error becomes a :class:`FloorError` whose ``kind`` names the class of the problem, so
``shoectl floor`` can give its exit code and the next step, and the shipper can tell "unreachable" from
"reachable but not migrated" (:func:`from_database`).
"""

from __future__ import annotations

import re
from typing import Literal

__all__ = ["FloorError", "Kind", "from_database", "redact_url"]

Kind = Literal["unreachable", "not-migrated", "permission", "usage", "refused", "failed"]

MIGRATE_HINT = "run `shoectl floor migrate --url postgresql://OWNER@HOST/DB` as the database's owner"


class FloorError(Exception):
    """The floor database cannot be used as asked (unreachable, not migrated, refused).

    ``kind``: ``unreachable`` (no connection), ``not-migrated`` (no floor schema, or an older one),
    ``permission`` (the role may not do this), ``usage`` (a malformed URL or argument), ``refused`` (the
    floor refused a table's call: an alarm), ``failed`` (anything else the server said).
    """

    def __init__(self, message: str, kind: Kind = "failed") -> None:
        super().__init__(message)
        self.kind: Kind = kind


_PASSWORD = re.compile(r"(://[^:/@]*:)[^@]*@|(password\s*=\s*)(\S+)", re.IGNORECASE)


def redact_url(url: str) -> str:
    """A libpq connection string without its password, for logs, status and messages."""

    def hide(m: re.Match[str]) -> str:
        return f"{m.group(1)}...@" if m.group(1) else f"{m.group(2)}..."

    return _PASSWORD.sub(hide, url)


def first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


# SQLSTATEs (PostgreSQL, Appendix A) that mean the schema is missing or older than this software.
_NOT_MIGRATED = {"3F000", "42P01", "42883", "42703"}
_PERMISSION = {"42501"}
_CONNECTION = ("08",)


def from_database(exc: BaseException, url: str, doing: str, *, needs: str | None = None) -> FloorError:
    """A psycopg error while ``doing`` something on the floor at ``url``, as a FloorError with a next step.

    ``needs``: the role the action needs, named when the server says permission denied.
    """
    state = str(getattr(exc, "sqlstate", "") or "")
    where = redact_url(url)
    line = first_line(exc)
    if state in _NOT_MIGRATED:
        return FloorError(f"the floor database {where} is not migrated ({line}): {MIGRATE_HINT}", "not-migrated")
    if state in _PERMISSION:
        role = needs or "another role"
        return FloorError(f"{doing} needs {role}; the role in {where} may not ({line}): connect as {role}",
                          "permission")  # fmt: skip
    if state.startswith(_CONNECTION) or not state:
        return FloorError(f"the floor database {where} failed while {doing}: {line}", "unreachable")
    return FloorError(f"the floor database {where} failed while {doing}: {line}")
