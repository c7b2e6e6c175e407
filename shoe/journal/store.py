"""The journal on disk: one private SQLite file, write-ahead log, ``synchronous=FULL``, append-only.

``append`` (one entry) and ``write`` (a batch, one transaction: group commit) return only after their
transaction committed, so an entry the service has acted on survives a crash or a ``kill -9``. SQLite
triggers refuse UPDATE and DELETE; the hash chain (``chain.py``) catches whoever drops the triggers and
edits the file anyway, and a table key (``shoe.journal.mac``, ``journal.sqlite.key`` beside the file)
MACs each entry at append, in its row, so the floor catches whoever recomputes the chain after an edit.
"""

from __future__ import annotations

import contextlib
import hmac
import os
import sqlite3
import threading
from collections.abc import Collection, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from shoe.journal.chain import (
    COLUMNS,
    GENESIS,
    MAC_BOUNDARY_KIND,
    Entry,
    JournalError,
    Pending,
    VerifyResult,
    entry_hash_of_text,
    entry_mac,
    key_id,
    parse_json,
    prepare,
    verify_records,
)
from shoe.journal.mac import key_path, load_key
from shoe.journal.paths import ensure_private_file

SCHEMA_VERSION = 1
_SCHEMA = (
    "CREATE TABLE schema_version (version INTEGER NOT NULL)",
    "CREATE TABLE entries (seq INTEGER PRIMARY KEY, ts TEXT NOT NULL, kind TEXT NOT NULL, round_id TEXT,"
    " data TEXT NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL)",
    "CREATE INDEX entries_by_round ON entries (round_id, seq)",
    "CREATE INDEX entries_by_kind ON entries (kind, seq)",
    "CREATE TRIGGER entries_no_update BEFORE UPDATE ON entries"
    " BEGIN SELECT RAISE(ABORT, 'the journal is append-only: entries cannot be updated'); END",
    "CREATE TRIGGER entries_no_delete BEFORE DELETE ON entries"
    " BEGIN SELECT RAISE(ABORT, 'the journal is append-only: entries cannot be deleted'); END",
)
# The mac column is added by the first write with a table key (a journal without a key has none).
_SELECT_MAC = "SELECT " + ", ".join(COLUMNS) + ", mac FROM entries"
_SELECT_NO_MAC = "SELECT " + ", ".join(COLUMNS) + ", NULL FROM entries"
# Verification reads every text column as its type and raw bytes, so a tampered value cannot break the reader.
_SELECT_RAW = "SELECT seq, " + ", ".join(f"typeof({c}), CAST({c} AS BLOB)" for c in COLUMNS[1:]) + " FROM entries"
_PAGE = 500
_INSERT = "INSERT INTO entries (" + ", ".join(COLUMNS) + ") VALUES (?, ?, ?, ?, ?, ?, ?)"
_INSERT_MAC = "INSERT INTO entries (" + ", ".join(COLUMNS) + ", mac) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"


def _now() -> str:
    return stamp(datetime.now(UTC))


def stamp(moment: datetime) -> str:
    """A commit's time (in UTC) as the journal writes it: ``2026-12-03T15:00:00.123456Z``, microseconds always.

    The text ``strftime("%Y-%m-%dT%H:%M:%S.%fZ")`` gives for every four-digit year, written by ``isoformat``:
    strftime parses its format and asks the C library for the time zone at every commit.
    """
    return moment.replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def _entry(row: tuple[Any, ...]) -> Entry:
    try:
        seq, ts, kind, round_id, data, prev_hash, digest, mac = row
        return Entry(seq, ts, kind, round_id, parse_json(data), prev_hash, digest, mac)
    except (TypeError, ValueError) as exc:
        raise JournalError(f"entry {row[0]} is damaged ({exc}); run `shoectl journal verify`") from exc


def _raw(row: tuple[Any, ...]) -> tuple[object, ...]:
    values: list[object] = [row[0]]
    for kind, blob in zip(row[1::2], row[2::2], strict=True):
        if kind == "null":
            values.append(None)
        elif kind == "text":
            try:
                values.append(bytes(blob).decode("utf-8"))
            except UnicodeDecodeError:
                values.append(bytes(blob))
        else:
            values.append(bytes(blob))
    return tuple(values)


def _prepare(conn: sqlite3.Connection, path: Path) -> None:
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if tables and not {"entries", "schema_version"} <= tables:  # refused before anything is changed in it
        raise JournalError(f"{path} is an SQLite file but not a shoe journal; pass the journal's path")
    if str(conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]).lower() != "wal":
        raise JournalError(f"the journal {path} cannot use a write-ahead log; keep it on a local file system")
    conn.execute("PRAGMA synchronous=FULL")
    if not tables:
        conn.execute("BEGIN IMMEDIATE")
        try:
            if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'entries'").fetchone():
                for statement in _SCHEMA:
                    conn.execute(statement)
                conn.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))
            conn.execute("COMMIT")
        finally:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
    version = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
    if version != SCHEMA_VERSION:
        raise JournalError(
            f"the journal {path} has schema version {version}; this software reads version {SCHEMA_VERSION}: "
            "use the shoe-controller release that wrote it"
        )


def _has_mac_column(conn: sqlite3.Connection) -> bool:
    return any(row[1] == "mac" for row in conn.execute("PRAGMA table_info(entries)"))


def _identity(path: str | Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _open_copies(path: Path) -> list[str]:
    """``/proc/self/fd`` links to the journal's files that were deleted (Linux): where a copy can be taken."""
    found = []
    with contextlib.suppress(OSError):
        for fd in os.listdir("/proc/self/fd"):
            with contextlib.suppress(OSError):
                target = os.readlink(f"/proc/self/fd/{fd}")
                if target.startswith(str(path)) and target.endswith(" (deleted)"):
                    found.append(f"/proc/{os.getpid()}/fd/{fd} ({target})")
    return found


class Journal:
    """The table service's journal. Thread-safe: one lock around the one connection.

    The main file and its write-ahead log are the same files at every commit as when the journal was
    opened, or writing stops (:meth:`append`): an entry committed into a deleted WAL would vanish
    with the process.
    """

    def __init__(self, conn: sqlite3.Connection, path: Path, key: bytes | None = None) -> None:
        self.path = path
        self._key = key
        self._mac_column = _has_mac_column(conn)
        self._keyed: bool | None = None
        """Whether the last entry carries a MAC (a keyed journal), once read; None: not read yet."""
        self._conn: sqlite3.Connection | None = conn
        self._lock = threading.Lock()
        self._wal = path.with_name(path.name + "-wal")
        self._names = (str(path), str(self._wal))  # stat'ed around every commit: the text, not a Path each time
        self._files = (_identity(self._names[0]), _identity(self._names[1]))
        self._broken: str | None = None
        self._head: tuple[int, str] | None = None
        """(seq, hash) of the last committed entry, known after the first append; None: read it."""
        self._first_hash: str | None = None
        """The first entry's hash, once read (:meth:`bounds`)."""

    @classmethod
    def open(cls, path: str | Path) -> Journal:
        """Open (or create) the journal at ``path``, with the table key beside it if there is one."""
        path = Path(path)
        ensure_private_file(path)
        key = load_key(key_path(path))
        try:
            conn = sqlite3.connect(str(path), timeout=10.0, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise JournalError(f"cannot open the journal {path}: {exc}") from exc
        try:
            _prepare(conn, path)
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise JournalError(f"cannot use {path} as the journal: {exc}; pass the journal's path") from exc
        except BaseException:
            conn.close()
            raise
        return cls(conn, path, key)

    @property
    def keyed(self) -> bool:
        """True when this journal MACs what it writes (its table key was found beside it)."""
        return self._key is not None

    def append(self, kind: str, data: Mapping[str, Any], *, round_id: str | None = None) -> Entry:
        """Commit one entry; return it as readers will read it back.

        The entry is validated and serialised completely before the database is touched: data it cannot
        record is a :class:`JournalDataError` and nothing was written. Any other :class:`JournalError`
        means the file itself failed (disk, I/O, a deleted write-ahead log): stop writing to it.
        """
        return self.write([prepare(kind, data, round_id)])[0]

    def write(self, batch: Sequence[Pending]) -> list[Entry]:
        """Commit ``batch`` (entries :func:`prepare` made) in ONE transaction: one fsync for all (group commit).

        Each entry is still its own row with its own seq and hash, chained to the one before, exactly as
        one ``append`` each would have written them; they share the commit's timestamp. Returns only
        after the commit: all of them are durable, or (a :class:`JournalError`) none is.

        The files' identity is checked before the commit, not after it as well: a WAL deleted during the
        commit holds an acknowledged batch that the next write's check saves into the main file (or any
        checkpoint does: SQLite copies from the WAL it holds open), as it does for a WAL deleted just after
        any commit. A check after it would report a failure for a batch that is then saved, and would narrow
        no window that stays open anyway: until the next write. Two path ``stat``s a commit fewer.
        """
        if not batch:
            return []
        with self._lock:
            conn = self._live()
            self._check_files(conn)
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    ts = _now()
                    batch = self._keyed_batch(conn, batch)
                    rows = self._insert(conn, ts, batch)
                    conn.execute("COMMIT")
                    self._head = (rows[-1][0], rows[-1][2])
                finally:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                        self._head, self._keyed = None, None
                        self._mac_column = _has_mac_column(conn)  # an ALTER of this transaction is undone too
            except sqlite3.Error as exc:
                self._head = None
                raise JournalError(
                    f"could not write to the journal {self.path}: {exc}; check the disk (space, permissions)"
                ) from exc
        made = zip(batch, rows, strict=True)
        return [Entry(seq, ts, p.kind, p.round_id, p.data, prev, digest, mac) for p, (seq, prev, digest, mac) in made]

    def _keyed_batch(self, conn: sqlite3.Connection, batch: Sequence[Pending]) -> Sequence[Pending]:
        """The batch as written: refused when the journal is keyed and its key is gone; preceded by the
        boundary entry when a journal of entries without a MAC is first written with a key."""
        if self._keyed is None:
            row = conn.execute(
                f"SELECT {'mac' if self._mac_column else 'NULL'}, seq FROM entries ORDER BY seq DESC LIMIT 1"
            ).fetchone()
            self._keyed = None if row is None else row[0] is not None
        if self._key is None:
            if self._keyed:
                raise JournalError(
                    f"the journal {self.path} MACs its entries but its table key {key_path(self.path)} is missing "
                    "or unreadable: nothing was written; restore the key file (mode 0600), or re-enrol the table "
                    "(shoectl floor enrol) and start a new journal"
                )
            self._keyed = False
            return batch
        if not self._mac_column:  # a journal from before entries carried a MAC: the column is added once
            conn.execute("ALTER TABLE entries ADD COLUMN mac TEXT")
            self._mac_column = True
        if self._keyed is False:  # entries without a MAC before this one: say where the MACs begin
            boundary = prepare(MAC_BOUNDARY_KIND, {"key_id": key_id(self._key), "note": "every entry from this "
                               "one carries a MAC under the table key; entries before it carry none"})  # fmt: skip
            batch = [boundary, *batch]
        self._keyed = True
        return batch

    def head_seq(self) -> int:
        """The seq of the last committed entry (0: none), from the head kept in memory once known."""
        with self._lock:
            return self._known_head()[0]

    def bounds(self) -> tuple[str | None, int]:
        """The first entry's hash (None: no entry) and the last committed entry's seq (0: none), from memory
        once known: an append-only journal's first entry never changes, and the head is kept at each commit.
        What the lock file's marker records at a checkpoint, without reading (and parsing) two entries."""
        with self._lock:
            seq = self._known_head()[0]
            if self._first_hash is None and seq:
                row = self._live().execute("SELECT hash FROM entries ORDER BY seq LIMIT 1").fetchone()
                self._first_hash = None if row is None else str(row[0])
            return self._first_hash, seq

    def _known_head(self) -> tuple[int, str]:
        if self._head is None:
            row = self._live().execute("SELECT seq, hash FROM entries ORDER BY seq DESC LIMIT 1").fetchone()
            self._head = (int(row[0]), str(row[1])) if row else (0, GENESIS)
        return self._head

    def _mac(self, digest: str) -> str | None:
        return None if self._key is None else entry_mac(self._key, digest)

    def _insert(
        self, conn: sqlite3.Connection, ts: str, batch: Sequence[Pending]
    ) -> list[tuple[int, str, str, str | None]]:
        """Insert the batch after the chain head kept in memory (read once, not per append).

        Another writer's entry since (a second service on one journal, which the journal lock should
        prevent) takes our first seq: the primary key refuses that row, and the head is read again within
        the same transaction, so the chain stays one chain whoever appended. The rest follow it.
        """
        out: list[tuple[int, str, str, str | None]] = []
        insert, width = (_INSERT_MAC, 8) if self._mac_column else (_INSERT, 7)
        for attempt in (1, 2):
            if self._head is None or attempt == 2:
                row = conn.execute("SELECT seq, hash FROM entries ORDER BY seq DESC LIMIT 1").fetchone()
                self._head = (int(row[0]), str(row[1])) if row else (0, GENESIS)
            seq, prev = self._head[0] + 1, self._head[1]
            first = batch[0]
            digest = entry_hash_of_text(prev, seq=seq, ts=ts, kind=first.kind, round_id=first.round_id,
                                        data_text=first.text)  # fmt: skip
            mac = self._mac(digest)
            try:
                conn.execute(insert, (seq, ts, first.kind, first.round_id, first.text, prev, digest, mac)[:width])
            except sqlite3.IntegrityError:
                if attempt == 2:
                    raise
                continue
            out.append((seq, prev, digest, mac))
            break
        rows = []
        for p in batch[1:]:
            seq, prev = out[-1][0] + 1, out[-1][2]
            digest = entry_hash_of_text(prev, seq=seq, ts=ts, kind=p.kind, round_id=p.round_id, data_text=p.text)
            mac = self._mac(digest)
            out.append((seq, prev, digest, mac))
            rows.append((seq, ts, p.kind, p.round_id, p.text, prev, digest, mac)[:width])
        if rows:
            conn.executemany(insert, rows)
        return out

    def checkpoint(self) -> bool:
        """Copy the write-ahead log into the main file (PASSIVE: never waits for readers).

        True when every committed entry is now in the main file (durable there: ``synchronous=FULL``).
        """
        with self._lock:
            conn = self._live()
            try:
                busy, frames, done = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            except sqlite3.Error as exc:
                raise JournalError(f"could not checkpoint the journal {self.path}: {exc}; check the disk") from exc
        return bool(busy == 0 and frames == done)

    def _check_files(self, conn: sqlite3.Connection) -> None:
        """Refuse to go on if the main file or its WAL is not the file it was at open; save what can be."""
        if self._broken is None:
            main, wal = _identity(self._names[0]), _identity(self._names[1])
            if main != self._files[0]:
                self._broken = (
                    f"the journal {self.path} was deleted or replaced under the running service; its entries are "
                    "only in the file the service still holds open"
                )
            elif wal != self._files[1]:
                self._broken = self._salvage(conn)
        if self._broken is not None:
            copies = _open_copies(self.path)
            where = f"; copy them now, while the service runs: {', '.join(copies)}" if copies else ""
            raise JournalError(f"{self._broken}{where}. The journal refuses further writes: the service stops")

    def _salvage(self, conn: sqlite3.Connection) -> str:
        """The WAL was deleted or replaced: SQLite still holds the old one open, so a checkpoint can
        still copy every committed entry from it into the main file."""
        what = f"the journal's write-ahead log {self._wal} was deleted or replaced under the running service"
        try:
            busy, frames, done = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except sqlite3.Error as exc:
            return f"{what}, and its entries could not be copied into the main file ({exc})"
        if busy or frames != done:
            return f"{what}; only {done} of its {frames} pages could be copied into the main file"
        return f"{what}; every committed entry was copied from it into the main file {self.path} (checkpoint)"

    def entries(
        self, *, round_id: str | None = None, after_seq: int = 0, kinds: Collection[str] | None = None
    ) -> Iterator[Entry]:
        """Entries in seq order, read a page at a time (the lock is not held while the caller works)."""
        where, params = ["seq > ?"], []
        if round_id is not None:
            where.append("round_id = ?")
            params.append(round_id)
        if kinds is not None:
            wanted = [kinds] if isinstance(kinds, str) else list(kinds)
            if not wanted:
                return
            where.append(f"kind IN ({', '.join('?' * len(wanted))})")
            params.extend(wanted)
        sql = f"{self._select()} WHERE {' AND '.join(where)} ORDER BY seq LIMIT {_PAGE}"
        last = after_seq
        while True:
            rows = self._fetch(sql, (last, *params))
            yield from (_entry(row) for row in rows)
            if len(rows) < _PAGE:
                return
            last = rows[-1][0]

    def first(self) -> Entry | None:
        rows = self._fetch(f"{self._select()} ORDER BY seq LIMIT 1", ())
        return _entry(rows[0]) if rows else None

    def last(self, kind: str | None = None) -> Entry | None:
        """The last entry (of ``kind``, if given)."""
        if kind is None:
            rows = self._fetch(f"{self._select()} ORDER BY seq DESC LIMIT 1", ())
        else:
            rows = self._fetch(f"{self._select()} WHERE kind = ? ORDER BY seq DESC LIMIT 1", (kind,))
        return _entry(rows[0]) if rows else None

    def rounds(self) -> list[dict[str, Any]]:
        groups = self._fetch(
            "SELECT round_id, MIN(seq), MAX(seq), COUNT(*) FROM entries WHERE round_id IS NOT NULL"
            " GROUP BY round_id ORDER BY MIN(seq)",
            (),
        )
        blank = {"opened": None, "game": None, "jurisdiction": None, "closed": None}
        summaries = {
            rid: {"round_id": rid, "first_seq": first, "last_seq": last, "entries": count, **blank}
            for rid, first, last, count in groups
        }
        for entry in self.entries(kinds=("round-opened", "round-closed")):
            summary = summaries.get(entry.round_id or "")
            if summary is None:
                continue
            if entry.kind == "round-opened" and summary["opened"] is None:
                game, jurisdiction = entry.data.get("game"), entry.data.get("jurisdiction")
                summary.update(opened=entry.ts, game=game, jurisdiction=jurisdiction)
            elif entry.kind == "round-closed":
                summary["closed"] = str(entry.data.get("outcome", "closed"))
        return list(summaries.values())

    def verify(self) -> VerifyResult:
        return verify_records(self._raw_records())

    def verify_macs(self) -> VerifyResult | None:
        """Every entry's MAC under this journal's key, from its first MAC'd entry on (before it: a journal
        older than its key). None without the key: only the key's holders (the service, the floor) can check.

        An entry after the first MAC'd one with no MAC, or a MAC that does not verify, is the first bad one.
        """
        if self._key is None:
            return None
        checked, started = 0, False
        for entry in self.entries():
            started = started or entry.mac is not None
            if not started:
                continue
            if entry.mac is None or not hmac.compare_digest(entry.mac, entry_mac(self._key, entry.hash)):
                what = "carries no MAC" if entry.mac is None else "has a MAC that does not verify under the table key"
                return VerifyResult(False, checked, entry.seq, f"entry {entry.seq} {what} (edited without the key?)")
            checked += 1
        return VerifyResult(True, checked, None, None)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()

    def _raw_records(self) -> Iterator[tuple[object, ...]]:
        sql = f"{_SELECT_RAW} ORDER BY seq LIMIT {_PAGE}"  # from the lowest seq, whatever it is
        params: tuple[Any, ...] = ()
        while True:
            rows = self._fetch(sql, params)
            yield from (_raw(row) for row in rows)
            if len(rows) < _PAGE:
                return
            sql, params = f"{_SELECT_RAW} WHERE seq > ? ORDER BY seq LIMIT {_PAGE}", (rows[-1][0],)

    def _select(self) -> str:
        """The entry columns and the MAC; another connection (the owner's) may have added the column since."""
        if not self._mac_column:
            with self._lock:
                conn = self._live()
                with contextlib.suppress(sqlite3.Error):
                    self._mac_column = _has_mac_column(conn)
        return _SELECT_MAC if self._mac_column else _SELECT_NO_MAC

    def _fetch(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        with self._lock:
            conn = self._live()
            try:
                return conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise JournalError(f"could not read the journal {self.path}: {exc}") from exc

    def _live(self) -> sqlite3.Connection:
        if self._conn is None:
            raise JournalError(f"the journal {self.path} is closed; open it again with Journal.open")
        return self._conn
