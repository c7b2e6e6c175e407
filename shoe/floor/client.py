"""The shipper's side of the wire: ``floor.ship`` (one batch, checked and stored in one transaction on the
server) and ``floor.head`` (where to resume), both bound on the server to the table this session's
credential was enrolled for (``shoectl floor enrol``). A connection in autocommit mode: each call is its own
transaction, so an acknowledged batch is committed (and, with synchronous replication, on the standby).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from shoe.floor.errors import FloorError, from_database, redact_url
from shoe.floor.migrate import connect
from shoe.journal.chain import Entry, canonical

__all__ = ["FloorClient", "Head", "Shipped"]

_SHIP = (
    "SELECT status, head_seq, head_hash, detail FROM floor.ship("
    "%s, %s, %s::bigint[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[])"
)


@dataclass(frozen=True)
class Head:
    """The stored head of one journal: ``state`` is ``new``, ``active``, ``forked`` or ``refused`` (this
    credential may not ask for that table: ``detail`` says why, and nothing of the table is returned);
    ``table_journal`` the journal the floor holds for the table (another one than ours: replaced)."""

    seq: int
    hash: str
    state: str
    table_journal: str | None
    detail: str | None = None


@dataclass(frozen=True)
class Shipped:
    """The answer to one batch: ``status`` ``ok``, ``gap``, ``fork``, ``bad-hash``, ``bad-mac``, ``replaced``
    or ``refused`` (this credential may not ship for that table)."""

    status: str
    head_seq: int
    head_hash: str
    detail: str | None


class FloorClient:
    """One connection to the floor database, opened on first use and again after a failure.

    Every failure is a :class:`FloorError`; the connection is then dropped, and the next call reconnects.
    """

    def __init__(self, url: str, *, connect_timeout: float = 5.0, statement_timeout_ms: int = 30_000) -> None:
        self.url = url
        self._timeout = connect_timeout
        self._statement_timeout_ms = statement_timeout_ms
        self._conn: Any = None
        self._warnings: list[str] = []

    def _live(self) -> Any:
        if self._conn is None or self._conn.closed:
            options = f"-c statement_timeout={self._statement_timeout_ms}"
            self._conn = connect(self.url, autocommit=True, connect_timeout=self._timeout, options=options)
            self._conn.add_notice_handler(self._notice)
        return self._conn

    def _notice(self, diag: Any) -> None:
        self._warnings.append(str(diag.message_primary or ""))

    def _call(self, sql: str, params: Sequence[Any]) -> tuple[Any, ...]:
        import psycopg

        self._warnings.clear()
        try:
            row = self._live().execute(sql, params).fetchone()
        except psycopg.Error as exc:
            self.close()
            raise from_database(exc, self.url, "shipping", needs="a table credential (`shoectl floor enrol`)") from exc
        unreplicated = [w for w in self._warnings if "synchronous replication" in w]
        if unreplicated:  # committed on the primary only: not acknowledged (the re-send will be a no-op)
            self.close()
            where = redact_url(self.url)
            raise FloorError(f"the floor database {where} did not replicate the batch: {unreplicated[0]}")
        if row is None:  # pragma: no cover - both functions always return one row
            raise FloorError("the floor database returned no row: run `shoectl floor migrate`", "not-migrated")
        return tuple(row)

    def head(self, table: str, journal_id: str) -> Head:
        seq, digest, state, table_journal, detail = self._call(
            "SELECT head_seq, head_hash, state, table_journal, detail FROM floor.head(%s, %s)", (table, journal_id)
        )
        return Head(int(seq), str(digest), str(state), table_journal, detail)

    def ship(self, table: str, journal_id: str, entries: Sequence[Entry]) -> Shipped:
        """Send ``entries`` (consecutive, in seq order); the server's verdict and its head."""
        columns: list[list[Any]] = [[], [], [], [], [], [], [], []]
        for e in entries:
            for column, value in zip(
                columns, (e.seq, e.ts, e.kind, e.round_id, canonical(e.data), e.prev_hash, e.hash, e.mac), strict=True
            ):
                column.append(value)
        status, seq, digest, detail = self._call(_SHIP, (table, journal_id, *columns))
        return Shipped(str(status), int(seq), str(digest), detail)

    def report_divergence(self, table: str, journal_id: str, seq: int, detail: str) -> str:
        """The table's side of an alarm, kept on the floor too (``floor.alarms``, ``diverged``): ``ok``, or
        the refusal when this credential is not the table's."""
        (answer,) = self._call("SELECT floor.report_divergence(%s, %s, %s, %s)", (table, journal_id, seq, detail))
        return str(answer)

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):  # closing a broken connection may fail any way; it is gone anyway
                conn.close()
