"""``GET /v1/report``: ``shoectl report`` for the table-system role, on the service's own journal.

The same figures as ``shoectl report --json`` (:mod:`shoe.report`): amounts, counts, round ids and
seats, never a card. Query ``by`` (all, table, shift, day, seat, dealer) and ``alpha`` as on the
command line.

It is answered from :class:`ReportSummary`, never by reading the journal in the request: the summary
follows the journal sink (every committed entry is queued to it on the owner thread, which does
nothing more) and keeps each closed round as the report's :class:`~shoe.report.read.RoundInfo`
(:class:`~shoe.report.ledger.RoundLedger`), so a report costs the report's arithmetic over the
rounds (~1 s for 1,500 rounds), never a read of the journal. A report is computed once and answered
again, as the same bytes, until a round's entry comes; while entries keep coming (rounds being dealt)
it is computed again only once it is :data:`REFRESH_FACTOR` times its computation old (at least
:data:`MIN_REFRESH_S`), so however many callers loop on it, its computation takes at most a sixth of
the time its thread shares with the owner thread. Answers are spaced :data:`PACE_S` apart, all callers
together, so callers looping on it cost a few answers a second. The ``Report-Journal-Seq`` header says
the last entry a report includes.
At start the summary is rebuilt on its own thread by one streaming pass over the journal (a page of
entries at a time, through a second connection: the write-ahead log lets it read while the service
appends); until that pass ends a report answers ``503`` with ``Retry-After``. One report is computed
at a time; at most :data:`WAITING` requests wait for it, the next one is answered ``503`` with
``Retry-After``, so any number of callers costs one computation's memory, not one each.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shoe.api.errors import ApiError, json_bytes
from shoe.journal import Entry, Journal, JournalError
from shoe.report.groupings import GROUPINGS
from shoe.service import ServiceError
from shoe.service.errors import ErrorKind

if TYPE_CHECKING:
    from shoe.report.ledger import RoundLedger

__all__ = ["ReportSummary", "journal_report", "read_report", "report_query"]

WAITING = 4
"""Requests that may wait for the report being computed; one more is answered 503."""
WAIT_S = 20.0
"""The longest a request waits for the computation in hand (or the summary to catch up) before a 503."""
RETRY_AFTER_S = 2
REBUILD_AFTER_S = 1.5
"""The rebuild waits this long after the server starts, unless a report is asked for first: beside the
start's last work (the link's resync, the first requests, the hand tables at 1 s) it would take the GIL
from them."""
REBUILD_WAIT_S = 2.0
"""A report asked for during the rebuild waits this long for it (a short journal's takes milliseconds)."""
CACHED = 16
"""Reports kept, one per ``by`` and ``alpha``."""
PACE_S = 0.25
"""Reports are answered at most this often, all callers together (a caller waits for its turn, counted in
:data:`WAITING`): a report is a whole-journal figure, and callers looping on it kept the HTTP threads
busy answering the same bytes hundreds of times a second beside the owner thread (a deal 4.7x slower)."""
FOLLOW_EVERY_S = 0.1
"""The follower takes what the owner committed at most this often (a report asked for takes it at once): one
wake-up for several rounds' commits instead of one for each, each of which took the GIL from the owner thread
beside its own work (about 90 futex calls and 0.5 ms of CPU a two-seat round). Short enough that the entries
waiting meanwhile stay a few hundred (at 0.25 s the RSS after the goals' rounds was about 1 MiB higher)."""
MIN_REFRESH_S = 1.0
REFRESH_FACTOR = 5.0
"""While entries keep coming, a report is computed again only once it is this many times its computation old."""


def report_query(query: Mapping[str, str]) -> tuple[str, float]:
    """``by`` and ``alpha`` of a report request, or a 400 (``ServiceError`` bad input)."""
    by = query.get("by", "all")
    if by not in GROUPINGS:
        raise ServiceError("bad-request", f"by={by!r}: give one of {', '.join(GROUPINGS)}", kind=ErrorKind.BAD_INPUT)
    try:
        alpha = float(query.get("alpha", "0.001"))
    except ValueError:
        alpha = -1.0
    if not 0 < alpha < 1:
        raise ServiceError("bad-request", "alpha: give a probability between 0 and 1", kind=ErrorKind.BAD_INPUT)
    return by, alpha


def read_report(path: Path, by: str, alpha: float) -> dict[str, Any]:
    """The report read from the journal file itself (``shoectl report``'s way): the reference the summary equals."""
    from shoe.report.read import read_rounds
    from shoe.report.summary import build_report

    with Journal.open(path) as journal:
        data = build_report(read_rounds(journal), by=by, alpha=alpha)
    data.pop("series")
    return data


def _busy(message: str) -> ApiError:
    return ApiError("unavailable", message, headers={"Retry-After": str(RETRY_AFTER_S)})


class ReportSummary:
    """The rounds of one service's journal, kept as entries are appended, and the reports computed from them."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._inbox: queue.SimpleQueue[Sequence[Entry] | None] = queue.SimpleQueue()
        self._latest = 0  # the seq of the last entry the sink handed over (written by the owner thread only)
        self._changed = threading.Condition()  # guards the ledger; notified when it took more entries
        self._ledger: RoundLedger | None = None
        self._rebuilt = False
        self._failed: str | None = None
        self._computing = threading.Lock()  # one report computed at a time
        self._waiting = 0
        self._cache: dict[tuple[str, float], _Cached] = {}
        self._compute_s = 0.0  # how long the last report took to compute
        self._next_answer = 0.0  # time.monotonic() before which no report is answered
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._wanted = threading.Event()  # a report was asked for, or the service stops: rebuild now
        self._hurry = threading.Event()  # a report was asked for, or the service stops: take the queue now

    # -- the follower thread -------------------------------------------------------------------------

    def follow(self, entries: Sequence[Entry]) -> None:
        """The owner thread, after each commit: queue its entries, in one put (nothing else is done there).

        Queued before ``_latest`` moves: a report that reads ``_latest`` finds its entries in the queue."""
        if self._failed is None and entries:
            self._inbox.put(entries)
            self._latest = entries[-1].seq

    def start(self) -> None:
        """Rebuild from the journal, then follow the sink; call once the service has opened its journal."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="report-summary", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        if self._thread is not None:
            self._stopping.set()
            self._wanted.set()
            self._hurry.set()
            self._inbox.put(None)
            self._thread.join(timeout=10)

    def _run(self) -> None:
        from shoe.report.ledger import RoundLedger

        ledger = RoundLedger()
        with self._changed:
            self._ledger = ledger
        self._wanted.wait(REBUILD_AFTER_S)
        if self._stopping.is_set():
            return
        try:
            with Journal.open(self.path) as journal:
                page: list[Entry] = []
                for entry in journal.entries():  # paged by the journal: memory is one page and the open rounds
                    if self._stopping.is_set():
                        return
                    page.append(entry)
                    if len(page) >= 500:
                        self._take(ledger, page)
                        page = []
                self._take(ledger, page)
        except JournalError as exc:
            with self._changed:
                self._failed = f"the report could not read the journal ({exc}); see the service log"
                self._changed.notify_all()
            return
        with self._changed:
            self._rebuilt = True
            self._changed.notify_all()
        while True:
            item: Sequence[Entry] | None = self._inbox.get()
            if item is not None:  # what the next commits queue meanwhile wakes nobody: taken together below
                self._hurry.wait(FOLLOW_EVERY_S)
            self._hurry.clear()  # before the queue is read: a report asking from here on finds its entries
            batch = [item]
            while item is not None and not self._inbox.empty():  # whatever else is queued, under one lock
                item = self._inbox.get()
                batch.append(item)
            self._take(ledger, [e for entries in batch if entries is not None for e in entries])
            if item is None:
                return

    def _take(self, ledger: RoundLedger, entries: list[Entry]) -> None:
        with self._changed:
            for entry in entries:
                ledger.add(entry)  # a seq the rebuild already read is ignored
            self._changed.notify_all()

    # -- a request's thread --------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        with self._changed:
            ledger = self._ledger
            return {
                "rebuilt": self._rebuilt,
                "last_seq": 0 if ledger is None else ledger.last_seq,
                "closed_rounds": 0 if ledger is None else ledger.closed_rounds,
            }

    def report(self, by: str, alpha: float) -> tuple[bytes, int]:
        """The report as JSON, and the seq of the last entry it includes; 503 while rebuilding or too many wait.

        It includes every entry committed before this call, except while entries keep coming: a report
        computed less than :meth:`refresh_s` ago is answered again (its seq says how far it reaches).
        """
        target = self._latest
        with self._changed:
            if self._failed is not None:
                raise ApiError("internal", self._failed)
            if not self._rebuilt:
                self._wanted.set()
                self._changed.wait_for(lambda: self._rebuilt or self._failed is not None, timeout=REBUILD_WAIT_S)
            if self._failed is not None:
                raise ApiError("internal", self._failed)
            ledger = self._ledger
            if not self._rebuilt or ledger is None:
                read = 0 if ledger is None else ledger.last_seq
                raise _busy(f"the report's summary is being rebuilt from the journal ({read:,} entries read); retry")
            if ledger.last_seq < target:
                self._hurry.set()
            if not self._changed.wait_for(lambda: ledger.last_seq >= target, timeout=WAIT_S):
                raise _busy("the report's summary is behind the journal; retry")
            if self._waiting >= WAITING:
                raise _busy(f"{WAITING} report requests are waiting already; retry")
            self._waiting += 1
            now = time.monotonic()
            slot = max(now, self._next_answer)  # answers are spaced PACE_S apart, whoever asks
            self._next_answer = slot + PACE_S
        try:
            time.sleep(slot - now)
            if not self._computing.acquire(timeout=WAIT_S):
                raise _busy("a report is being computed; retry")
            try:
                return self._computed(ledger, by, alpha)
            finally:
                self._computing.release()
        finally:
            with self._changed:
                self._waiting -= 1

    def refresh_s(self) -> float:
        """How long a report stays the answer while entries keep coming: the report's computation takes at
        most 1 / (1 + :data:`REFRESH_FACTOR`) of the time its threads share with the owner's."""
        return max(MIN_REFRESH_S, REFRESH_FACTOR * self._compute_s)

    def _computed(self, ledger: RoundLedger, by: str, alpha: float) -> tuple[bytes, int]:
        from shoe.report.summary import build_report

        now = time.monotonic()
        with self._changed:
            version, seq = ledger.version, ledger.last_seq
            cached = self._cache.get((by, alpha))
            if cached is not None and (cached.version == version or now - cached.at < self.refresh_s()):
                return cached.body, cached.seq
            rounds = list(ledger.rounds())  # closed rounds are kept as they are: only their list is copied
        data = build_report(rounds, by=by, alpha=alpha)
        data.pop("series")
        body = json_bytes(data)
        self._compute_s = time.monotonic() - now
        if len(self._cache) >= CACHED and (by, alpha) not in self._cache:
            self._cache.pop(next(iter(self._cache)))
        self._cache[(by, alpha)] = _Cached(version, seq, now, body)
        return body, seq


@dataclass(frozen=True)
class _Cached:
    version: int  # the ledger's version it was computed from
    seq: int  # the last entry it includes
    at: float  # time.monotonic() when its computation began
    body: bytes


def journal_report(
    service: object, query: Mapping[str, str], summary: ReportSummary | None = None
) -> tuple[bytes, int]:
    """The report of the journal ``service`` writes, as JSON, and the last seq it includes: from ``summary``
    (the server's), else read from the file (seq 0: not known).

    Without a summary (a service that cannot be followed) the file is read under the same bound of one
    computation at a time.
    """
    by, alpha = report_query(query)
    if summary is not None:
        return summary.report(by, alpha)
    path = getattr(getattr(service, "config", None), "journal", None)
    if path is None:
        raise ServiceError("no-journal", "this service keeps no journal to report on", kind=ErrorKind.UNAVAILABLE)
    if not _UNFOLLOWED.acquire(timeout=0):
        raise _busy("a report is being read from the journal; retry")
    try:
        return json_bytes(read_report(Path(path), by, alpha)), 0
    finally:
        _UNFOLLOWED.release()


_UNFOLLOWED = threading.Lock()
