"""Helpers for the floor's tests: real journals (shoe.journal on real SQLite) and superuser queries."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import psycopg

from shoe.journal import Entry, Journal


def journal_with(path: Path, n: int, *, round_id: str = "R-1", start: int = 0) -> Journal:
    """A journal at ``path`` with ``n`` more entries: a round opened, cards, the round closed."""
    journal = Journal.open(path)
    for i in range(start, start + n):
        if i == 0:
            journal.append("service", {"event": "start", "pid": 1, "open_round": None})
        elif i == 1:
            journal.append("round-opened", {"game": "mississippi-stud", "jurisdiction": "NY", "seats": {}},
                           round_id=round_id)  # fmt: skip
        else:
            journal.append("card", {"target": "seat", "seat": 1, "index": i, "card": "As", "face": "up",
                                    "status": "ok"}, round_id=round_id)  # fmt: skip
    return journal


def copy_journal(src: Journal, dst: Path) -> Journal:
    """A byte-for-byte copy of ``src`` (SQLite's backup API): the same chain, from which a fork can grow."""
    with sqlite3.connect(str(src.path)) as a, sqlite3.connect(str(dst)) as b:
        a.backup(b)
    dst.chmod(0o600)
    return Journal.open(dst)


def all_entries(journal: Journal) -> list[Entry]:
    return list(journal.entries())


def query(url: str, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    with psycopg.connect(url, autocommit=True) as conn:
        cur = conn.execute(sql, params)
        return [tuple(r) for r in cur.fetchall()] if cur.description else []


def stored(url: str, table: str) -> list[tuple[int, str]]:
    return [(int(s), str(h)) for s, h in query(url, "SELECT seq, hash FROM floor.entries WHERE table_name = %s"
                                                    " ORDER BY seq", (table,))]  # fmt: skip


def alarms(url: str, table: str | None = None) -> list[tuple[str, str]]:
    sql = "SELECT alarm, detail FROM floor.alarms" + (" WHERE table_name = %s" if table else "") + " ORDER BY id"
    return [(str(a), str(d)) for a, d in query(url, sql, (table,) if table else ())]


def table_url(floor_url: str, table: str, journal: Path, *more: Path, legacy: bool = False) -> str:
    """Enrol ``table`` on the floor at ``floor_url`` (its owner): the key written beside ``journal`` (and
    copied beside each of ``more``, journals that claim to be the same table); the table's own URL."""
    import shutil

    from shoe.floor.credentials import enrol
    from shoe.journal.mac import key_path

    done = enrol(floor_url, table, key_path(journal), legacy=legacy)
    for other in more:
        shutil.copy2(key_path(journal), key_path(other))
    return done.url
