"""The journal sink: the owner thread's one way into the journal, and what it derives from it.

``append`` commits an entry (durable on return: docs/journal.md, "Journal before state"), or, inside
``batch``, queues it for the batch's one commit (group commit: the records one action writes
together, committed before anything they describe leaves the owner thread: ``flush``); it keeps
the state read from what was appended (the last dispense the journal knows completely,
``known_dispense_id``), publishes the entry to the event feed (projected through secrecy there) and
moves the metrics it measures (cards, the read-to-journal latency), each once the entry is committed.
It also opens and locks the journal at start, checkpoints the write-ahead log
(so it does not grow without bound) and counts appends per owner item, which tells a refusal that changed nothing
from one after a write (:mod:`.memory`). Only the owner thread calls it, except ``note_read`` (the
link's reader thread).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from shoe.journal import Entry, Journal, JournalError, Pending, prepare
from shoe.journal.lock import JournalLock, checkpoint, open_checked
from shoe.service.config.settings import ServiceConfig
from shoe.service.errors import ErrorKind, ServiceError
from shoe.service.journal.entries import known_dispense_id_of, parse_entry
from shoe.service.journal.feed import EventFeed
from shoe.service.metrics import Metrics
from shoe.service.rounds.recovery import JournalFacts, scan_journal

__all__ = ["CHECKPOINT_EVERY_S", "FEED_REFILL", "JournalSink"]

FEED_REFILL = 2_000
CHECKPOINT_EVERY_S = 30.0
"""Besides every round's close: acknowledged entries stay in the write-ahead log alone at most this long."""
READ_TIMES_KEPT = 1024
Observer = Callable[[str, Mapping[str, Any], str | None, str], list[dict[str, Any]]]
"""``(kind, data, round_id, ts)`` of a committed entry -> the public events it makes."""
Follower = Callable[[Sequence[Entry]], None]
"""Takes the entries of one commit, in seq order, as readers read them back; returns at once (it hands them to
its own thread)."""


class JournalSink:
    def __init__(self, config: ServiceConfig, feed: EventFeed, metrics: Metrics) -> None:
        self.config = config
        self.feed = feed
        self.metrics = metrics
        self.journal: Journal | None = None
        self.lock: JournalLock | None = None
        self.new_journal = False  # --new-journal: start on a journal the lock file's marker does not match
        self.killed = False
        """The journal takes no more (a failed write, a power cut in tests): the owner thread stops."""
        self.known_dispense_id = 0
        self.last_event: tuple[int, int] | None = None  # (boot id, event number) of the last shoe event handled
        self._read_times: dict[tuple[int, int], float] = {}  # (dispense id, position) -> when the read arrived
        self._appends = 0  # append() calls so far, and their number when the item in hand began
        self._appends_before_item = 0
        self._checkpointed = (0, time.monotonic())  # (appends, when) at the last checkpoint
        self.by: Mapping[str, str] | None = None
        """The employee whose command is in hand: every entry appended meanwhile names them (``by``)."""
        self._pending: list[tuple[Pending, Mapping[str, Any]]] = []  # queued in a batch: (entry, data as given)
        self._depth = 0  # batch() nesting: appends are queued while above 0
        self._closed = False  # a round-closed entry committed since the last checkpoint
        self.observers: list[Observer] = []
        """Parts whose state follows the journal (the deck): each applies an entry once it is committed and
        returns the public events the change makes (published with the entry)."""
        self.followers: list[Follower] = []
        """Summaries kept beside the journal (the report's): each is given every commit's entries, in seq order,
        and only queues them, so whole-journal figures are kept up to date without reading the journal again."""

    def open(self) -> tuple[JournalFacts, dict[str, Any]]:
        """Lock and open the journal, learn what it knows, give the feed its history; the facts and what was adopted."""
        if self.lock is None:  # shoed takes it before it serves (TableService.start(lock=...))
            self.lock = JournalLock.acquire(self.config.journal)
        self.journal, adopted = open_checked(self.config.journal, self.lock, new_journal=self.new_journal)
        facts = scan_journal(self.journal)
        self.known_dispense_id, self.last_event = facts.known_dispense_id, facts.resume
        journal, after = self.journal, max(0, facts.last_seq - FEED_REFILL)
        self.feed.refill_from(  # read when a stream first asks for an entry before this start
            lambda: ((e.seq, e.ts, e.kind, e.round_id, e.data) for e in journal.entries(after_seq=after)),
            facts.last_seq,
        )
        return facts, adopted

    def append(self, kind: str, data: dict[str, Any], round_id: str | None) -> int:
        """Journal one entry: committed on return, or (inside :meth:`batch`) queued for the batch's one commit.

        The entry is checked and serialised here either way, so data the journal cannot record is a
        :class:`JournalDataError` at this call and nothing is written or queued. Nothing derived from
        an entry (the event feed, the observers, the metrics) moves before its commit.
        """
        if self.journal is None:
            raise ServiceError("journal-closed", "the journal is not open", kind=ErrorKind.UNAVAILABLE)
        if self.by is not None and "by" not in data:
            data = {**data, "by": dict(self.by)}
        payload = parse_entry(kind, data)  # it fits its kind's typed payload, or JournalDataError and nothing written
        pending = prepare(kind, data, round_id)
        self._appends += 1
        known = known_dispense_id_of(payload)  # read from the payload checked above, not looked up again
        if known is not None:  # memory, read by later entries of the same batch (position); a failed commit stops
            self.known_dispense_id = max(self.known_dispense_id, known)  # the service, and a restart re-reads it
        self._pending.append((pending, data))
        if self._depth == 0:
            return self.flush()[-1].seq
        return self.journal.head_seq() + len(self._pending)

    def flush(self) -> list[Entry]:
        """Commit the queued entries in one transaction, then publish them; nothing queued: nothing done.

        Called before anything the entries describe leaves the owner thread: a shoe command, an answer, a
        snapshot, a checkpoint (:meth:`batch`). If the commit fails, none of them was written or published.
        """
        if not self._pending:
            return []
        batch, self._pending = self._pending, []
        if self.journal is None:
            raise ServiceError("journal-closed", "the journal is not open", kind=ErrorKind.UNAVAILABLE)
        entries = self.journal.write([pending for pending, _ in batch])
        try:
            with self.feed.publishing():  # the batch's events reach the streams with one wake-up, not one each
                for entry, (_, data) in zip(entries, batch, strict=True):
                    self._published(entry, data)
        finally:  # committed is committed: the summaries take the whole batch even if a publication failed
            for follow in self.followers:  # one hand-over a commit: the follower's thread wakes once for it
                follow(entries)
        return entries

    def _published(self, entry: Entry, data: Mapping[str, Any]) -> None:
        """What follows one committed entry: the observers' state, the event feed, the metrics."""
        kind, round_id = entry.kind, entry.round_id
        self._closed = self._closed or kind == "round-closed"
        also = [event for observe in self.observers for event in observe(kind, entry.data, round_id, entry.ts)]
        self.feed.publish(entry.seq, entry.ts, kind, round_id, entry.data, also=also)
        if kind == "card" and data.get("dispense_id") is not None:
            self.metrics.inc("cards_total")
            started = self._read_times.pop((data["dispense_id"], data.get("position") or 0), None)
            if started is not None:
                self.metrics.observe(time.monotonic() - started)

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Inside, appends are queued and committed together (group commit): at the end, at
        :meth:`flush`, or at :meth:`unbatched`. Leaving with an exception commits what was queued before
        raising it, as one append each would have (the cards of a dispense stay journaled). A killed sink
        (a power cut in tests) commits nothing more. Nested batches join the outer one.
        """
        self._depth += 1
        try:
            yield
        except Exception as exc:
            self._depth -= 1
            if self._depth == 0 and not self.killed:
                try:
                    self.flush()
                except Exception as again:
                    raise again from exc
            raise
        except BaseException:
            self._depth -= 1
            raise
        self._depth -= 1
        if self._depth == 0:
            self.flush()

    @contextlib.contextmanager
    def unbatched(self) -> Iterator[None]:
        """Commit what is queued, then, inside, commit every append at once (as outside any batch): for work
        that may reach the shoe or another thread between two appends (a link notice, a reconciliation)."""
        self.flush()
        depth, self._depth = self._depth, 0
        try:
            yield
        finally:
            self._depth = depth

    def note_read(self, dispense_id: int, position: int) -> None:
        """The link thread: a card read arrived now (the start of ``shoe_event_latency_seconds``)."""
        if len(self._read_times) >= READ_TIMES_KEPT:  # reads never journaled as round cards (maintenance)
            self._read_times.clear()
        self._read_times[(dispense_id, position)] = time.monotonic()

    def begin_item(self) -> None:
        """The owner starts on its next item: what it appends is counted from here."""
        self._appends_before_item = self._appends

    def appended_in_item(self) -> bool:
        return self._appends != self._appends_before_item

    def checkpoint(self) -> None:
        """Copy the write-ahead log into the main file, and note in the lock file what it now holds."""
        self.flush()
        self._closed = False
        if self.journal is not None and self.lock is not None:
            self._checkpointed = (self._appends, time.monotonic())
            checkpoint(self.journal, self.lock)

    def checkpoint_after_close(self) -> bool:
        """Checkpoint if a ``round-closed`` entry was committed since the last checkpoint; whether it was."""
        if not self._closed:
            return False
        self.checkpoint()
        return True

    def checkpoint_due(self) -> float:
        """When ``checkpoint_if_due`` next has work (``time.monotonic()``; ``inf``: nothing appended since)."""
        appends, at = self._checkpointed
        return at + CHECKPOINT_EVERY_S if self._appends != appends else float("inf")

    def checkpoint_if_due(self, now: float) -> None:
        if self._appends != self._checkpointed[0] and now - self._checkpointed[1] > CHECKPOINT_EVERY_S:
            self.checkpoint()

    def position(self, identity: Mapping[str, Any] | None) -> dict[str, Any]:
        """Where the journal has the shoe: the last dispense known, the last event, the shoe's serial."""
        out: dict[str, Any] = {"known_dispense_id": self.known_dispense_id}
        if self.last_event is not None:
            out["boot_id"], out["event_no"] = self.last_event
        if identity is not None:
            out["shoe"] = {"serial": identity.get("serial")}
        return out

    def close(self) -> None:
        if self.journal is not None:
            with contextlib.suppress(JournalError):
                self.journal.close()
        if self.lock is not None:
            self.lock.release()
