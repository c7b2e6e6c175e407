"""One table, one credential (docs/floor.md, "Enrolling a table").

``enrol`` makes a login role for one table (a member of ``floor_shipper``), records which table it is
and the table's key on the floor (``floor.credentials``, which only the owner reads), writes the key to
the table's key file (mode 0600, ``shoe.journal.mac``) and returns the URL for that table's ``[floor]
url``. The floor's functions take the table from the session's role, never from their arguments.
``revoke`` retires the credential: its role is dropped and its sessions ended; the record stays, for
the alarms that name it.
"""

from __future__ import annotations

import contextlib
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shoe.floor.errors import FloorError, from_database, redact_url
from shoe.floor.migrate import connect, require_latest
from shoe.journal.chain import JournalError, key_id
from shoe.journal.mac import new_key, write_key

__all__ = ["Enrolment", "enrol", "revoke", "role_url", "table_role"]

_TABLE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}")
_URL = re.compile(r"^(postgres(?:ql)?://)(?:[^@/?]*@)?(.*)$", re.IGNORECASE)
_ADMIN = "the database's owner with CREATEROLE (the role that ran `shoectl floor migrate`)"


@dataclass(frozen=True)
class Enrolment:
    table: str
    role: str
    url: str
    """The table's ``[floor] url``: its own role and password, the admin URL's hosts, database and options."""
    key_file: Path
    key_id: str
    legacy: bool


def check_table(table: str) -> str:
    if not _TABLE.fullmatch(table):
        raise FloorError(f"{table!r} is not a table name: 1 to 32 of A-Z a-z 0-9 . _ -, starting with a letter or "
                         "digit", "usage")  # fmt: skip
    return table


def table_role(table: str) -> str:
    """A new login role's name for ``table``: readable, and unique (a revoked one is never reused)."""
    slug = re.sub(r"[^a-z0-9]+", "_", table.lower()).strip("_")[:32] or "t"
    return f"shoe_table_{slug}_{secrets.token_hex(3)}"


def role_url(admin_url: str, role: str, password: str) -> str:
    """``admin_url`` with ``role``'s user and password instead of the admin's (hosts, database, options kept)."""
    m = _URL.match(admin_url)
    if m:
        where, _, options = m.group(2).partition("?")
        kept = [o for o in options.split("&") if o and o.split("=", 1)[0].lower() not in ("user", "password")]
        return f"{m.group(1)}{role}:{password}@{where}" + (f"?{'&'.join(kept)}" if kept else "")
    from psycopg.conninfo import make_conninfo

    return str(make_conninfo(admin_url, user=role, password=password))


def enrol(admin_url: str, table: str, key_file: Path, *, legacy: bool = False) -> Enrolment:
    """Enrol ``table``: its login role, its key (written to ``key_file``, never overwritten) and its URL.

    ``legacy``: accept entries without a MAC until the journal's first entry with one (a journal written
    before its table was enrolled: docs/journal.md, "Entries before the key").
    """
    import psycopg
    from psycopg import sql

    check_table(table)
    key = new_key()
    try:
        write_key(key_file, key)
    except JournalError as exc:
        raise FloorError(str(exc), "usage") from None
    password = secrets.token_urlsafe(24)
    role = table_role(table)
    try:
        with connect(admin_url) as conn:
            require_latest(conn, admin_url)
            with conn.transaction():
                held = conn.execute("SELECT role_name FROM floor.credentials WHERE table_name = %s AND revoked_at IS"
                                    " NULL", (table,)).fetchone()  # fmt: skip
                if held:
                    raise FloorError(f"table {table} is already enrolled (credential {held[0]}): `shoectl floor "
                                     f"revoke {table}` first, then enrol it again", "usage")  # fmt: skip
                conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {} IN ROLE floor_shipper").format(
                    sql.Identifier(role), sql.Literal(password)))  # fmt: skip
                conn.execute("SELECT floor.enrol_credential(%s, %s, %s, %s, %s)",
                             (role, table, key, key_id(key), legacy))  # fmt: skip
    except BaseException as exc:
        with contextlib.suppress(OSError):
            key_file.unlink()
        if isinstance(exc, psycopg.Error):
            raise from_database(exc, admin_url, "`shoectl floor enrol`", needs=_ADMIN) from exc
        raise
    return Enrolment(table, role, role_url(admin_url, role, password), key_file, key_id(key), legacy)


def revoke(admin_url: str, table: str) -> dict[str, Any]:
    """Retire ``table``'s credential: the role dropped, its sessions ended; the record kept for the alarms."""
    import psycopg
    from psycopg import sql

    check_table(table)
    try:
        with connect(admin_url) as conn:
            require_latest(conn, admin_url)
            with conn.transaction():
                row = conn.execute("UPDATE floor.credentials SET revoked_at = now() WHERE table_name = %s AND "
                                   "revoked_at IS NULL RETURNING role_name, key_id", (table,)).fetchone()  # fmt: skip
                if row is None:
                    raise FloorError(f"table {table} holds no credential on {redact_url(admin_url)}: nothing to "
                                     "revoke", "usage")  # fmt: skip
                role = str(row[0])
                conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = %s", (role,))
                conn.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role)))
    except psycopg.Error as exc:
        raise from_database(exc, admin_url, "`shoectl floor revoke`", needs=_ADMIN) from exc
    return {"table": table, "role": role, "key_id": str(row[1]), "revoked": True}
