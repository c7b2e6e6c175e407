"""The floor's schema: ``schema/NNN_name.sql`` applied in order, each in its own transaction, recorded in
``floor.schema_version``. ``shoectl floor migrate --url URL`` creates a fresh database's schema in one
command and upgrades an older one; an advisory lock keeps two migrations from running at once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

from shoe.floor.errors import FloorError, redact_url

__all__ = ["LATEST", "Migration", "applied_version", "connect", "migrate", "migrations"]

_NAME = re.compile(r"(\d{3})_([a-z0-9_]+)\.sql")
_LOCK_KEY = 0x5F100  # pg_advisory_xact_lock key of the floor's migrations


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def migrations() -> list[Migration]:
    """Every migration shipped with this package, in version order."""
    found = []
    for item in resources.files("shoe.floor").joinpath("schema").iterdir():
        m = _NAME.fullmatch(item.name)
        if m:
            found.append(Migration(int(m.group(1)), m.group(2), item.read_text(encoding="utf-8")))
    return sorted(found, key=lambda x: x.version)


LATEST = max(m.version for m in migrations())


def connect(url: str, *, autocommit: bool = True, connect_timeout: float = 5.0, **kwargs: Any) -> Any:
    """A psycopg connection to ``url`` (imported here, never at import time); FloorError if unreachable."""
    import psycopg

    try:
        return psycopg.connect(url, autocommit=autocommit, connect_timeout=max(1, round(connect_timeout)), **kwargs)
    except psycopg.Error as exc:
        raise FloorError(f"cannot connect to the floor database {redact_url(url)}: {_first_line(exc)}") from exc


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def applied_version(conn: Any) -> int:
    """The schema version of the database ``conn`` is connected to (0: never migrated)."""
    row = conn.execute("SELECT to_regclass('floor.schema_version') IS NOT NULL").fetchone()
    if not row[0]:
        return 0
    got = conn.execute("SELECT coalesce(max(version), 0) FROM floor.schema_version").fetchone()
    return int(got[0])


def migrate(url: str) -> tuple[int, int]:
    """Bring the database at ``url`` to :data:`LATEST`; ``(version before, version after)``.

    A database newer than this software is refused, never downgraded.
    """
    import psycopg

    with connect(url, autocommit=True) as conn:
        try:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
                conn.execute("CREATE SCHEMA IF NOT EXISTS floor")
                conn.execute(
                    "CREATE TABLE IF NOT EXISTS floor.schema_version (version int PRIMARY KEY, name text NOT NULL,"
                    " applied_at timestamptz NOT NULL DEFAULT now())"
                )
            before = applied_version(conn)
            if before > LATEST:
                raise FloorError(
                    f"the floor database {redact_url(url)} has schema version {before}; this software knows up to "
                    f"{LATEST}: upgrade shoe-controller, never migrate down"
                )
            for step in migrations():
                with conn.transaction():
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
                    if applied_version(conn) >= step.version:
                        continue
                    conn.execute(step.sql.encode("utf-8"))
                    conn.execute(
                        "INSERT INTO floor.schema_version (version, name) VALUES (%s, %s)", (step.version, step.name)
                    )
            return before, applied_version(conn)
        except psycopg.Error as exc:
            raise FloorError(
                f"migrating the floor database {redact_url(url)} failed: {_first_line(exc)}; connect as the "
                "database's owner (creating the floor_* roles needs CREATEROLE)"
            ) from exc
