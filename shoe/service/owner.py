"""The owner thread: the one thread that holds the journal, the shoe link and the round.

Commands from the API and items from the shoe (events, link notices, posted by the link's reader
thread) arrive on one queue and are handled one at a time, in order. While a command runs (a deal of
several stacks), ``drain`` handles the shoe items that arrived meanwhile and sets later commands
aside, so a lost link pauses the round between two stacks. Nothing here is thread-safe on purpose:
only the owner thread calls it; other threads read the plain snapshots it publishes (``view``,
``link``, ``status``...).
"""

from __future__ import annotations

import contextlib
import os
import queue
import time
from collections import deque
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

import msgspec
import structlog

from drivers.client import ShoeClient
from drivers.errors import ShoeError
from drivers.notices import Discrepancy, LinkLost, LinkRestored, Notice, Resynced, ShoeRebooted
from drivers.transport import Transport
from protocols import messages as m
from shoe import present as render
from shoe.journal import Journal, JournalDataError, JournalError
from shoe.journal.lock import JournalLock, checkpoint, open_checked
from shoe.rules.errors import RuleViolation
from shoe.rules.profiles import Irregularity
from shoe.service.config import ServiceConfig
from shoe.service.errors import ErrorKind, ServiceError
from shoe.service.feed import EventFeed
from shoe.service.metrics import Metrics
from shoe.service.recovery import read_stack, reconcile, scan_journal
from shoe.service.rounds import RoundRun, rebuild
from shoe.service.shoeside import ShoeItem, ShoeSide

__all__ = ["Command", "Owner", "ShoeItem"]

log = structlog.get_logger("shoe.service")
FEED_REFILL = 2_000
STATUS_EVERY_S = 5.0
CHECKPOINT_EVERY_S = 30.0
"""Besides every round's close: acknowledged entries stay in the write-ahead log alone at most this long."""


@dataclass
class Command:
    action: str
    params: Mapping[str, Any] | msgspec.Struct  # a request of shoe.service.requests, or a mapping to convert
    role: Any
    future: Future[dict[str, Any]]


class Owner(ShoeSide):
    def __init__(
        self,
        config: ServiceConfig,
        transport_factory: Callable[[], Transport],
        feed: EventFeed,
        metrics: Metrics,
        games: Mapping[str, type[RoundRun]],
    ) -> None:
        super().__init__()
        self.config = config
        self.transport_factory = transport_factory
        self.feed = feed
        self.metrics = metrics
        self.games = games
        self.inbox: queue.Queue[Command | ShoeItem] = queue.Queue()
        self.deferred: deque[Command] = deque()
        self.journal: Journal | None = None
        self.lock: JournalLock | None = None
        self.new_journal = False  # --new-journal: start on a journal the lock file's marker does not match
        self._checkpointed = (0, time.monotonic())  # (appends, when) at the last checkpoint
        self.client: ShoeClient | None = None
        self.run: RoundRun | None = None
        self.known_dispense_id = 0
        self.last_event: tuple[int, int] | None = None
        self.boot_id: int | None = None
        self.link = "down"
        self.identity: dict[str, Any] | None = None
        self.status: dict[str, Any] | None = None
        self.view: dict[str, Any] | None = None
        self.summary: dict[str, Any] | None = None
        self.heartbeat = time.monotonic()
        self.stopping = False
        self.killed = False
        self._appends = 0  # append() calls so far, and their number when the item in hand began
        self._appends_before_item = 0

    # -- start -----------------------------------------------------------------------------------

    def boot(self) -> None:
        """Lock and open the journal, rebuild an open round, journal the start, connect the shoe, reconcile."""
        self.lock = JournalLock.acquire(self.config.journal)
        self.journal, adopted = open_checked(self.config.journal, self.lock, new_journal=self.new_journal)
        facts = scan_journal(self.journal)
        self.known_dispense_id, self.last_event = facts.known_dispense_id, facts.resume
        for entry in self.journal.entries(after_seq=max(0, facts.last_seq - FEED_REFILL)):
            self.feed.publish(entry.seq, entry.ts, entry.kind, entry.round_id, entry.data)
        run: RoundRun | None = None
        failure: ServiceError | None = None
        if facts.open_round is not None:
            try:
                run = rebuild(facts.open_round, facts.round_entries, self.games)
            except ServiceError as exc:
                failure = exc
        rid = facts.open_round.round_id if facts.open_round else None
        start = {"event": "start", "pid": os.getpid(), "open_round": rid, **self._position(), **adopted}
        self.append("service", start, None)
        self.checkpoint()
        if failure is not None and facts.open_round is not None:
            self._void_unreadable(facts.open_round.round_id or "", facts.open_round.data, failure)
        self.run = run
        if run is not None and not run.terminal and not run.paused:
            run.pause(self, Irregularity.PC_RESTART, "the table PC restarted mid-round")
        if self._connect() and run is not None and run.paused:
            self._reconcile()
        if run is None or run.closed:  # a stack dispensed but never journaled before the stop: an alarm
            self._journal_unrecorded_stacks()
        self.after()

    def checkpoint(self) -> None:
        """Copy the write-ahead log into the main file, and note in the lock file what it now holds."""
        if self.journal is not None and self.lock is not None:
            self._checkpointed = (self._appends, time.monotonic())
            checkpoint(self.journal, self.lock)

    def _void_unreadable(self, round_id: str, opened: Mapping[str, Any], exc: ServiceError) -> None:
        detail = f"the round could not be rebuilt from the journal: {exc.message}"
        data = {"action": "void", "cause": Irregularity.PC_RESTART.value, "detail": detail}
        self.append("irregularity", data, round_id)
        self.append("round-closed", {"outcome": "void", "cause": Irregularity.PC_RESTART.value}, round_id)

    # -- the loop --------------------------------------------------------------------------------

    def next_command(self, timeout: float) -> Command | ShoeItem | None:
        self._appends_before_item = self._appends  # what the next item changes is counted from here
        if self.deferred:
            return self.deferred.popleft()
        try:
            return self.inbox.get(timeout=timeout)
        except queue.Empty:
            return None

    def tick(self) -> None:
        self.heartbeat = now = time.monotonic()
        if self.killed:
            return
        if self._appends != self._checkpointed[0] and now - self._checkpointed[1] > CHECKPOINT_EVERY_S:
            self.checkpoint()
        if self.client is None and now >= self._next_connect and self._connect():
            if self.run is not None and self.run.paused:
                self._reconcile()
            self.after()
        elif self.client is not None and self.link == "up" and now - self._status_at > STATUS_EVERY_S:
            self._status_at = now
            with contextlib.suppress(ShoeError):
                self.status = render.status(self.client.status())

    def handle_shoe(self, item: m.Event | Notice) -> None:
        if isinstance(item, m.Event):
            self._on_event(item)
        elif isinstance(item, LinkLost):
            self.append("link", {"event": "lost", "reason": item.reason, **self._position()}, self._live_id())
            self._pause(f"shoe link lost: {item.reason}")
        elif isinstance(item, LinkRestored):
            self.metrics.inc("reconnects_total")
            self.append("link", {"event": "restored", "attempts": item.attempts}, self._live_id())
        elif isinstance(item, ShoeRebooted):
            self.boot_id = item.new_boot_id
            data = {"event": "rebooted", "old_boot_id": item.old_boot_id, "new_boot_id": item.new_boot_id}
            self.append("link", data, self._live_id())
            self._pause("the shoe rebooted")
        elif isinstance(item, Resynced):
            self._on_resynced(item)
        elif isinstance(item, Discrepancy):
            self.on_discrepancy(item)

    def _on_event(self, event: m.Event) -> None:
        if self.boot_id is not None:
            position = (self.boot_id, event.event_no)
            if self.last_event is not None and self.last_event[0] == position[0] and position[1] <= self.last_event[1]:
                return  # already handled before a restart (the client resumed the stream from the journal)
            self.last_event = position
        if isinstance(event, m.FaultRaised | m.FaultCleared):
            raised = isinstance(event, m.FaultRaised)
            data = {"event": "raised" if raised else "cleared", "code": event.code.name, **self._position()}
            if isinstance(event, m.FaultRaised):
                data["dispense_id"] = event.dispense_id or None
                self.metrics.inc("faults_total")
            self.append("fault", data, self._live_id())

    def _on_resynced(self, item: Resynced) -> None:
        self.boot_id = item.boot_id
        data: dict[str, Any] = {
            "event": "resynced",
            "boot_id": item.boot_id,
            "last_dispense_id": item.last_dispense_id,
            "event_counter": item.event_counter,
        }
        if self._live_id() is None:
            data["known_dispense_id"] = max(self.known_dispense_id, item.last_dispense_id)
        self.append("link", data, self._live_id())
        if self.run is not None and self.run.paused and not self.run.closed:
            self._reconcile()

    def _pause(self, detail: str) -> None:
        if self._live_id() is not None and self.run is not None:
            self.run.pause(self, Irregularity.LINK_LOST, detail)

    def _reconcile(self) -> None:
        if self.client is None:
            return
        try:
            decision = reconcile(self, self.run, self.client)
        except ShoeError as exc:
            log.warning("reconciliation failed; the next resync retries", error=str(exc))
            return
        log.info("reconciled with the shoe", decision=decision, round_id=self._live_id())

    def _live_id(self) -> str | None:
        return self.run.round_id if self.run is not None and not self.run.closed else None

    def _position(self) -> dict[str, Any]:
        out: dict[str, Any] = {"known_dispense_id": self.known_dispense_id}
        if self.last_event is not None:
            out["boot_id"], out["event_no"] = self.last_event
        if self.identity is not None:
            out["shoe"] = {"serial": self.identity.get("serial")}
        return out

    def after(self) -> None:
        """Close a finished round and publish the snapshots other threads read."""
        run = self.run
        if run is not None and run.terminal and not run.closed:
            self.append("round-closed", run.closing(), run.round_id)
            run.closed = True
            self.checkpoint()
            log.info("round closed", round_id=run.round_id, state=run.state)
        self.view = None if run is None else run.view()
        self.summary = (
            None if run is None else {"id": run.round_id, "game": run.game, "state": run.state, "closed": run.closed}
        )

    def shutdown(self, *, clean: bool) -> None:
        if clean and self.journal is not None:
            self.append("service", {"event": "stop", "open_round": self._live_id(), **self._position()}, None)
            with contextlib.suppress(JournalError):
                self.checkpoint()
        if self.client is not None:
            self.client.close()
            self.client = None
        self.link = "down"
        if self.journal is not None:
            with contextlib.suppress(JournalError):
                self.journal.close()
        if self.lock is not None:
            self.lock.release()

    # -- the desk: what rounds use -----------------------------------------------------------------

    def append(self, kind: str, data: dict[str, Any], round_id: str | None) -> int:
        if self.journal is None:
            raise ServiceError("journal-closed", "the journal is not open", kind=ErrorKind.UNAVAILABLE)
        self._appends += 1
        entry = self.journal.append(kind, data, round_id=round_id)
        known = data.get("known_dispense_id")
        if isinstance(known, int):
            self.known_dispense_id = max(self.known_dispense_id, known)
        self.feed.publish(entry.seq, entry.ts, entry.kind, entry.round_id, entry.data)
        if kind == "card" and data.get("dispense_id") is not None:
            self.metrics.inc("cards_total")
            started = self._read_times.pop((data["dispense_id"], data.get("position") or 0), None)
            if started is not None:
                self.metrics.observe(time.monotonic() - started)
        return entry.seq

    # -- memory is a cache of the journal (docs/journal.md, "Journal before state") -------------------

    def recover(self, exc: BaseException) -> ServiceError | None:
        """After ``exc`` ended a command or a shoe item: make memory equal the journal again.

        - A refusal (``ServiceError``, ``RuleViolation``, ``ShoeError``) raised before anything was
          appended changed nothing: nothing to do.
        - The journal file failed (a ``JournalError`` other than ``JournalDataError``: disk full, I/O,
          a deleted write-ahead log): the service stops; the restart rebuilds from the journal.
        - Anything else (data the journal cannot record, a bug, a refusal after an append): the round
          and ``known_dispense_id`` are rebuilt from the journal (``rebuild_from_journal``).

        Returns the error to answer with instead of the translated one, or ``None``.
        """
        refused = isinstance(exc, ServiceError | RuleViolation | ShoeError)
        if refused and self._appends == self._appends_before_item:
            return None
        if isinstance(exc, JournalError) and not isinstance(exc, JournalDataError):
            log.critical("journal write failed: the service stops; a restart recovers from the journal", error=str(exc))
            self.killed = True
            return None
        try:
            self.rebuild_from_journal(doubt=not refused)
        except Exception as again:
            log.critical("memory could not be rebuilt from the journal: the service stops", exc_info=again)
            self.killed = True
            return None
        if isinstance(exc, JournalDataError):
            return ServiceError(
                "unrecordable",
                f"the journal cannot record this action's data ({exc}); the round is as the journal has it",
                kind=ErrorKind.BAD_INPUT,
                hint="send plain JSON text (no lone surrogates, NaN or unusual nesting)",
            )
        return None

    def rebuild_from_journal(self, *, doubt: bool) -> None:
        """Replace the round and ``known_dispense_id`` by what the journal holds, then publish the view.

        With ``doubt`` (the command failed part-way, so the shoe may have moved cards the journal never
        saw) a live round is paused and reconciled with the shoe as after a restart (PC_RESTART, remedy
        "rebuild", rules digest "Irregularities"): a stack the journal announced is read back from the
        shoe, anything else voids the round with the cause. With no live round, stacks the shoe
        dispensed beyond the journal's are read back and journaled as an alarm.
        """
        journal = self.journal
        if journal is None:
            raise JournalError("the journal is closed")
        facts = scan_journal(journal)
        self.known_dispense_id = facts.known_dispense_id
        run: RoundRun | None = None
        if facts.open_round is not None:
            try:
                run = rebuild(facts.open_round, facts.round_entries, self.games)
            except ServiceError as exc:
                self._void_unreadable(facts.open_round.round_id or "", facts.open_round.data, exc)
        else:
            run = self._last_closed_round(journal)
        self.run = run
        log.warning("memory rebuilt from the journal", round_id=run.round_id if run else None, state=run and run.state)
        if doubt and run is not None and not run.closed and not run.terminal:
            if not run.paused:
                detail = "an action failed part-way: the round was rebuilt from the journal"
                run.pause(self, Irregularity.PC_RESTART, detail)
            if run.paused and self.client is not None and self.link == "up":
                self._reconcile()
        elif doubt and (run is None or run.closed):
            self._journal_unrecorded_stacks()
        self.after()

    def _last_closed_round(self, journal: Journal) -> RoundRun | None:
        """The last round, closed, as the journal holds it (the round the view keeps showing)."""
        opened = journal.last("round-opened")
        if opened is None or opened.round_id is None:
            return None
        try:
            run = rebuild(opened, list(journal.entries(round_id=opened.round_id)), self.games)
        except ServiceError:
            return None
        run.closed = True
        return run

    def _journal_unrecorded_stacks(self) -> None:
        """Stacks the shoe completed beyond the journal's last (no round live): read back and journaled."""
        client = self.client
        if client is None or self.link != "up":
            return
        try:
            last = client.status().last_dispense_id
            for did in range(max(self.known_dispense_id + 1, last - 7), last + 1):  # at most 8
                cards, why = read_stack(client, did)
                data = {
                    "action": "unjournaled-dispense",
                    "cause": Irregularity.LINK_UNRECONCILED.value,
                    "detail": why or "the shoe dispensed this stack but the journal had not recorded it",
                    "dispense_id": did,
                    "cards": None if cards is None else [read.card for read in cards],
                    "known_dispense_id": did,
                }
                self.append("irregularity", data, None)
                log.critical("the shoe dispensed a stack the journal had not recorded", dispense_id=did)
        except ShoeError as exc:
            log.warning("could not read back the shoe's stacks after a failure", error=str(exc))

    def drain(self) -> None:
        while True:
            try:
                item = self.inbox.get_nowait()
            except queue.Empty:
                return
            if isinstance(item, ShoeItem):
                self.handle_shoe(item.item)
            else:
                self.deferred.append(item)

    def dead(self) -> bool:
        return self.killed
