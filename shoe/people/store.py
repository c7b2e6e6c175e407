"""The employees store: shoed's own SQLite file beside the journal (``people.sqlite``, mode 0600).

Two tables: ``employees`` (id, name, roles, badge, the PIN's scrypt hash, enabled, removed, wrong
PINs in a row, locked) and ``tokens`` (id, employee, the token's SHA-256 digest, label, revoked). A
removed employee's row stays (marked ``removed``): the journal names them, and a token of theirs is
then told apart from one never issued. The file is written only by :class:`shoe.people.desk.People`,
after the journal has the change (journal before state, docs/journal.md).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

__all__ = ["ROLES", "Employee", "PeopleStore", "TokenRow"]

ROLES = ("dealer", "floorperson", "technician", "surveillance", "observer", "table-system")
"""The roles an employee may hold; ``table-system`` is a service account."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS employees (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, roles TEXT NOT NULL, badge TEXT UNIQUE,
    pin_hash TEXT, enabled INTEGER NOT NULL DEFAULT 1, removed INTEGER NOT NULL DEFAULT 0,
    failures INTEGER NOT NULL DEFAULT 0, locked INTEGER NOT NULL DEFAULT 0, created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tokens (
    id TEXT PRIMARY KEY, employee_id TEXT NOT NULL REFERENCES employees(id), digest TEXT NOT NULL UNIQUE,
    label TEXT NOT NULL, created TEXT NOT NULL, revoked INTEGER NOT NULL DEFAULT 0
);
"""


@dataclass(frozen=True)
class Employee:
    id: str
    name: str
    roles: tuple[str, ...]
    badge: str | None
    pin_hash: str | None
    enabled: bool
    removed: bool
    failures: int
    locked: bool

    def public(self) -> dict[str, object]:
        """What the API shows of an employee: never the PIN's hash (the badge only to who manages people)."""
        return {
            "id": self.id,
            "name": self.name,
            "roles": list(self.roles),
            "badge": self.badge,
            "enabled": self.enabled,
            "locked": self.locked,
        }

    def actor(self) -> dict[str, str]:
        """The ``by`` of a journal entry this employee caused."""
        return {"id": self.id, "name": self.name}


@dataclass(frozen=True)
class TokenRow:
    id: str
    employee_id: str
    label: str
    revoked: bool


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class PeopleStore:
    """Thread-safe (one connection behind a lock): the HTTP threads call it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        os.close(fd)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _one(self, sql: str, args: tuple[object, ...]) -> Employee | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT id, name, roles, badge, pin_hash, enabled, removed, failures, locked "
                f"FROM employees WHERE {sql}",
                args,
            ).fetchone()
        return None if row is None else _employee(row)

    def get(self, employee_id: str) -> Employee | None:
        return self._one("id = ?", (employee_id,))

    def by_badge(self, badge: str) -> Employee | None:
        return self._one("badge = ? AND removed = 0", (badge,))

    def all(self) -> list[Employee]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, name, roles, badge, pin_hash, enabled, removed, failures, locked FROM employees "
                "WHERE removed = 0 ORDER BY id"
            ).fetchall()
        return [_employee(r) for r in rows]

    def add(self, e: Employee) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO employees (id, name, roles, badge, pin_hash, enabled, created) "
                "VALUES (?, ?, ?, ?, ?, 1, ?)",
                (e.id, e.name, ",".join(e.roles), e.badge, e.pin_hash, _now()),
            )

    def update(self, employee_id: str, **fields: object) -> None:
        allowed = {"enabled", "removed", "failures", "locked", "pin_hash", "badge"}
        assert set(fields) <= allowed, fields
        sets = ", ".join(f"{name} = ?" for name in fields)
        with self._lock:
            self._db.execute(f"UPDATE employees SET {sets} WHERE id = ?", (*fields.values(), employee_id))

    def add_token(self, token_id: str, employee_id: str, token_digest: str, label: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO tokens (id, employee_id, digest, label, created) VALUES (?, ?, ?, ?, ?)",
                (token_id, employee_id, token_digest, label, _now()),
            )

    def token(self, token_digest: str) -> TokenRow | None:
        with self._lock:
            row = self._db.execute(
                "SELECT id, employee_id, label, revoked FROM tokens WHERE digest = ?", (token_digest,)
            ).fetchone()
        return None if row is None else TokenRow(row[0], row[1], row[2], bool(row[3]))

    def token_by_id(self, token_id: str) -> TokenRow | None:
        with self._lock:
            row = self._db.execute(
                "SELECT id, employee_id, label, revoked FROM tokens WHERE id = ?", (token_id,)
            ).fetchone()
        return None if row is None else TokenRow(row[0], row[1], row[2], bool(row[3]))

    def tokens_of(self, employee_id: str) -> list[TokenRow]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, employee_id, label, revoked FROM tokens WHERE employee_id = ? ORDER BY created, id",
                (employee_id,),
            ).fetchall()
        return [TokenRow(r[0], r[1], r[2], bool(r[3])) for r in rows]

    def revoke_token(self, token_id: str) -> None:
        with self._lock:
            self._db.execute("UPDATE tokens SET revoked = 1 WHERE id = ?", (token_id,))


def _employee(row: tuple[object, ...]) -> Employee:
    eid, name, roles, badge, pin_hash, enabled, removed, failures, locked = row
    return Employee(
        id=str(eid),
        name=str(name),
        roles=tuple(r for r in str(roles).split(",") if r),
        badge=None if badge is None else str(badge),
        pin_hash=None if pin_hash is None else str(pin_hash),
        enabled=bool(enabled),
        removed=bool(removed),
        failures=int(str(failures)),
        locked=bool(locked),
    )
