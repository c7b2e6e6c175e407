"""The floor's schema: ``schema/NNN_name.sql`` applied in order, each in its own transaction, recorded in
``floor.schema_version``. ``shoectl floor migrate --url URL`` creates a fresh database's schema in one
command and upgrades an older one; an advisory lock keeps two migrations from running at once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

from shoe.floor.errors import FloorError, Kind, first_line, from_database, redact_url

__all__ = ["LATEST", "Migration", "applied_version", "check_url", "connect", "migrate", "migrations", "require_latest"]

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


_URL = re.compile(r"postgres(ql)?://", re.IGNORECASE)
_CONNINFO = re.compile(r"^\s*[A-Za-z_]+\s*=")


def check_url(url: str) -> str:
    """``url`` if it is a libpq connection string (``postgresql://...`` or ``key=value ...``), else a usage
    FloorError: ``http://x`` is a mistake to name, not an outage to retry."""
    if _URL.match(url) or _CONNINFO.match(url):
        return url
    scheme = url.split("://", 1)[0] + "://" if "://" in url else repr(url)
    raise FloorError(f"{scheme} is not a PostgreSQL URL: the floor database is given as "
                     "postgresql://USER@HOST[:PORT]/DB (or libpq key=value pairs)", "usage")  # fmt: skip


def connect(url: str, *, autocommit: bool = True, connect_timeout: float = 5.0, **kwargs: Any) -> Any:
    """A psycopg connection to ``url`` (imported here, never at import time); FloorError if it cannot be made."""
    import psycopg

    check_url(url)
    try:
        return psycopg.connect(url, autocommit=autocommit, connect_timeout=max(1, round(connect_timeout)), **kwargs)
    except psycopg.ProgrammingError as exc:  # a malformed connection string
        raise FloorError(f"the floor database URL {redact_url(url)} is malformed: {first_line(exc)}", "usage") from exc
    except psycopg.Error as exc:
        where, line = redact_url(url), first_line(exc)
        if "database" in line and "does not exist" in line:
            raise FloorError(f"cannot connect to the floor database {where}: {line}: create it first "
                             "(`createdb -O OWNER floor`, docs/floor.md)", "usage") from exc  # fmt: skip
        if "authentication failed" in line or ("role" in line and "does not exist" in line):
            hint = "check the user and password (a table's URL is the one `shoectl floor enrol` printed)"
            raise FloorError(f"cannot connect to the floor database {where}: {line}: {hint}", "permission") from exc
        raise FloorError(f"cannot connect to the floor database {where}: {line}", "unreachable") from exc


def require_latest(conn: Any, url: str) -> None:
    """A not-migrated FloorError unless the database's floor schema is this software's."""
    import psycopg

    try:
        version = applied_version(conn)
    except psycopg.Error as exc:
        raise from_database(exc, url, "reading the schema version") from exc
    if version < LATEST:
        state = "was never migrated" if version == 0 else f"has schema version {version}, this software {LATEST}"
        raise FloorError(f"the floor database {redact_url(url)} {state}: run `shoectl floor migrate --url "
                         "postgresql://OWNER@HOST/DB` as its owner", "not-migrated")  # fmt: skip


def applied_version(conn: Any) -> int:
    """The schema version of the database ``conn`` is connected to (0: never migrated).

    Any role may ask (the catalog, not the schema): a role that may not read ``floor.schema_version``
    (a table's shipper) is told :data:`LATEST` when the table exists; its calls then say what it may do.
    """
    row = conn.execute(
        "SELECT bool_or(true), bool_or(has_table_privilege(c.oid, 'SELECT')) FROM pg_class c"
        " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'floor' AND c.relname = 'schema_version'"
    ).fetchone()
    if not row[0]:
        return 0
    if not row[1]:
        return LATEST
    got = conn.execute("SELECT coalesce(max(version), 0) FROM floor.schema_version").fetchone()
    return int(got[0])


def migrate(url: str) -> tuple[int, int]:
    """Bring the database at ``url`` to :data:`LATEST`; ``(version before, version after)``.

    A database newer than this software is refused, never downgraded.
    """
    import psycopg

    with connect(url, autocommit=True) as conn:
        may = conn.execute(
            "SELECT coalesce((SELECT pg_has_role(nspowner, 'USAGE') FROM pg_namespace WHERE nspname = 'floor'),"
            " has_database_privilege(current_database(), 'CREATE'))"
        ).fetchone()[0]
        if not may:
            raise FloorError(f"`shoectl floor migrate` needs the database's owner; the role in {redact_url(url)} "
                             "does not own the floor schema: connect as its owner", "permission")  # fmt: skip
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
            kind: Kind = "permission" if str(getattr(exc, "sqlstate", "")) == "42501" else "failed"
            raise FloorError(
                f"migrating the floor database {redact_url(url)} failed: {first_line(exc)}; `shoectl floor migrate` "
                "needs the database's owner (creating the floor_* roles needs CREATEROLE)",
                kind,
            ) from exc
