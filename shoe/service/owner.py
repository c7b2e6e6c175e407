"""The owner thread's work: the one thread that holds the journal, the shoe link and the round.

Commands from the API and items from the shoe (events, link notices, posted by the link's reader
thread) arrive on one queue and are handled one at a time, in order. While a command runs (a deal of
several stacks), ``drain`` handles the shoe items that arrived meanwhile and sets later commands
aside, so a lost link pauses the round between two stacks. Nothing here is thread-safe on purpose:
only the owner thread calls it; other threads read the plain :class:`Snapshots` it publishes.

The :class:`Owner` composes the parts, one job each, and routes items between them:

- :class:`JournalSink` (``sink``): appends, keeps ``known_dispense_id`` and the last shoe event,
  feeds the event stream and the metrics, checkpoints;
- :class:`LinkSupervisor` (``supervisor``): connects and reconnects the shoe, the link thread's
  callback, status polling, the position check, alarms, the shoe operations;
- :class:`Snapshots` (``shown``): what other threads read (view, summary, link, identity, status);
- :class:`RoundDesk` (``desk``): the round in hand and what it uses (``rounds.Desk``);
- :class:`DeckCycle` (``deck``): the deck in the shoe, loaded, checked, dealt, released; the open-round gate;
- :mod:`.memory` (``recover``): memory rebuilt from the journal after a failed item.
"""

from __future__ import annotations

import contextlib
import os
import queue
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import msgspec
import structlog

from drivers.errors import ShoeError
from drivers.notices import Discrepancy, LinkLost, LinkRestored, Notice, Resynced, ShoeRebooted
from drivers.transport import Transport
from protocols import messages as m
from shoe import present as render
from shoe.journal import JournalError
from shoe.rules.profiles import Irregularity
from shoe.service import memory
from shoe.service.answer import Answer
from shoe.service.config.settings import ServiceConfig
from shoe.service.deck.cycle import DeckCycle
from shoe.service.errors import ServiceError
from shoe.service.floor.watch import FloorWatch
from shoe.service.journal.feed import EventFeed
from shoe.service.journal.sink import JournalSink
from shoe.service.link.supervisor import LinkSupervisor, ShoeItem
from shoe.service.metrics import Metrics
from shoe.service.people.approvals import Approvals
from shoe.service.rounds.desk import RoundDesk
from shoe.service.rounds.intents import drive
from shoe.service.rounds.recovery import reconcile
from shoe.service.rounds.run import RoundRun, rebuild
from shoe.service.snapshots import Snapshots
from shoe.service.verify.integrity import Integrity

__all__ = ["Command", "Owner", "ShoeItem"]

log = structlog.get_logger("shoe.service")
DUE_SLACK_S = 0.005  # wake just after a deadline: the tick's checks are "more than N s since"


@dataclass
class Command:
    action: str
    params: Mapping[str, Any] | msgspec.Struct  # a request of shoe.service.api.requests, or a mapping to convert
    role: Any
    future: Answer
    by: Mapping[str, str] | None = None  # the employee who asked: named by every entry it causes


class Owner:
    def __init__(
        self,
        config: ServiceConfig,
        transport_factory: Callable[[], Transport],
        feed: EventFeed,
        metrics: Metrics,
        games: Mapping[str, type[RoundRun]],
    ) -> None:
        self.config = config
        self.metrics = metrics
        self.games = games
        self.inbox: queue.SimpleQueue[Command | ShoeItem] = queue.SimpleQueue()
        self.deferred: deque[Command] = deque()
        self.stopping = False
        self.shown = Snapshots()
        self.sink = JournalSink(config, feed, metrics)
        self.supervisor = LinkSupervisor(
            config, transport_factory, self.inbox, self.sink, shown=self.shown, current=self._round
        )
        self.desk = RoundDesk(self.sink, self.supervisor, self.drain)
        live = lambda: self.desk.live_id() is not None  # noqa: E731
        self.deck = DeckCycle(config, self.sink, self.supervisor, self.shown, live=live, void=self._void_mixed,
                              drain=self.drain, round_load=self._round_load)  # fmt: skip
        self.desk.deck_gate = self.deck.for_round
        self.desk.loader = self.deck.load_on_top
        self.integrity = Integrity(config.verify, self.sink, self.supervisor)  # program and firmware
        self.floor_watch = FloorWatch(self.supervisor)  # the floor's refusal, journaled here
        self.approvals = Approvals()  # steps awaiting a second person

    def _round(self) -> RoundRun | None:
        return self.desk.run

    @property
    def killed(self) -> bool:
        """The service stops: a failed journal write, or a power cut (tests)."""
        return self.sink.killed

    @killed.setter
    def killed(self, value: bool) -> None:
        self.sink.killed = value

    # -- start -----------------------------------------------------------------------------------

    def boot(self) -> None:
        """Lock and open the journal, rebuild an open round, journal the start, connect the shoe, reconcile."""
        facts, adopted = self.sink.open()
        assert self.sink.journal is not None
        self.deck.rebuild(self.sink.journal)
        run: RoundRun | None = None
        failure: ServiceError | None = None
        if facts.open_round is not None:
            try:
                run = rebuild(facts.open_round, facts.round_entries, self.games)
            except ServiceError as exc:
                failure = exc
        rid = facts.open_round.round_id if facts.open_round else None
        position = self.sink.position(self.shown.identity)
        program = self.integrity.at_start()
        self.sink.append("service", {"event": "start", "pid": os.getpid(), "open_round": rid, **position, **adopted,
                                     "program": program}, None)  # fmt: skip
        self.sink.checkpoint()
        self.integrity.after_start()
        if failure is not None and facts.open_round is not None:
            memory.void_unreadable(self.desk, facts.open_round.round_id or "", facts.open_round.data, failure)
        self.desk.run = run
        if run is not None and not run.terminal and not run.paused:
            drive(run.pause(Irregularity.PC_RESTART, "the table PC restarted mid-round"), self.desk)
        if self.supervisor.connect():
            self.integrity.on_connect()
            if run is not None and run.paused:
                self.reconcile()
            self.deck.on_connect()
        if run is None or run.closed:  # a stack dispensed but never journaled before the stop: an alarm
            memory.journal_unrecorded_stacks(self.sink, self.supervisor)
        self.after()

    # -- the loop --------------------------------------------------------------------------------

    def next_command(self, longest: float) -> Command | ShoeItem | None:
        """The next item, or None when the next tick is due first: the wait is until the nearest deadline
        of the tick's work (a checkpoint, a program check, a reconnect, a status poll), ``longest`` at most
        (no fixed tick, so an idle owner wakes about once every ``longest`` seconds)."""
        self.sink.begin_item()  # what the next item changes is counted from here
        if self.deferred:
            return self.deferred.popleft()
        nearest = min(self.sink.checkpoint_due(), self.integrity.due(), self.supervisor.due())
        timeout = min(longest, max(0.0, nearest - time.monotonic() + DUE_SLACK_S))
        try:
            return self.inbox.get(timeout=timeout)
        except queue.Empty:
            return None

    def tick(self) -> None:
        self.shown.heartbeat = now = time.monotonic()
        if self.killed:
            return
        self.sink.checkpoint_if_due(now)
        self.integrity.tick(now)
        self.floor_watch.tick()
        if self.supervisor.reconnect_due(now) and self.supervisor.connect():
            self.integrity.on_connect()
            run = self.desk.run
            if run is not None and run.paused:
                self.reconcile()
            self.deck.on_connect()
            self.after()
        elif self.supervisor.poll_status(now):
            self.deck.on_status()

    def handle_shoe(self, item: m.Event | Notice) -> None:
        live, position = self.desk.live_id, self.sink.position
        if isinstance(item, m.Event):
            self._on_event(item)
        elif isinstance(item, LinkLost):
            self.deck.link_lost()
            self.sink.append("link", {"event": "lost", "reason": item.reason, **position(self.shown.identity)}, live())
            self._pause(f"shoe link lost: {item.reason}")
        elif isinstance(item, LinkRestored):
            self.metrics.inc("reconnects_total")
            self.sink.append("link", {"event": "restored", "attempts": item.attempts}, live())
        elif isinstance(item, ShoeRebooted):
            self.deck.link_lost()  # a rebooted shoe is asked again what it holds
            self.supervisor.boot_id = item.new_boot_id
            data = {"event": "rebooted", "old_boot_id": item.old_boot_id, "new_boot_id": item.new_boot_id}
            self.sink.append("link", data, live())
            self._pause("the shoe rebooted")
        elif isinstance(item, Resynced):
            self._on_resynced(item)
            self._deck_after_resync()
        elif isinstance(item, Discrepancy):
            self.desk.on_discrepancy(item)

    def _on_event(self, event: m.Event) -> None:
        boot_id, last = self.supervisor.boot_id, self.sink.last_event
        if boot_id is not None:
            if last is not None and last[0] == boot_id and event.event_no <= last[1]:
                return  # already handled before a restart (the client resumed the stream from the journal)
            self.sink.last_event = (boot_id, event.event_no)
        if isinstance(event, m.DeckLoaded):
            self.deck.on_loaded(event)
        elif isinstance(event, m.FaultRaised | m.FaultCleared):
            raised = isinstance(event, m.FaultRaised)
            position = self.sink.position(self.shown.identity)
            data = {"event": "raised" if raised else "cleared", "code": event.code.name, **position}
            if isinstance(event, m.FaultRaised):
                data["dispense_id"] = event.dispense_id or None
                self.metrics.inc("faults_total")
            self.sink.append("fault", data, self.desk.live_id())

    def _on_resynced(self, item: Resynced) -> None:
        self.supervisor.boot_id = item.boot_id
        data: dict[str, Any] = {
            "event": "resynced",
            "boot_id": item.boot_id,
            "last_dispense_id": item.last_dispense_id,
            "event_counter": item.event_counter,
        }
        if self.desk.live_id() is None:
            data["known_dispense_id"] = max(self.sink.known_dispense_id, item.last_dispense_id)
        self.sink.append("link", data, self.desk.live_id())
        run = self.desk.run
        if run is not None and run.paused and not run.closed:
            self.reconcile()

    def _deck_after_resync(self) -> None:
        """The link is back: the shoe's status now, then what it holds (``DeckCycle.on_connect``)."""
        client = self.supervisor.client
        if client is None or self.shown.link != "up":
            return
        try:
            self.shown.status = render.status(client.status())
        except ShoeError as exc:
            log.warning("could not read the shoe's status after a resync", error=str(exc))
            return
        self.deck.on_connect()

    def _round_load(self) -> bool:
        run = self.desk.run
        return self.desk.live_id() is not None and run is not None and run.accepts_load()

    def _void_mixed(self, detail: str) -> None:
        """Cards loaded on top of the live round's deck (SPEC §11): a card not of the round's deck, a misdeal."""
        run = self.desk.run
        if self.desk.live_id() is not None and run is not None:
            drive(run.void(Irregularity.FOREIGN_CARD, detail), self.desk)

    def _pause(self, detail: str) -> None:
        run = self.desk.run
        if self.desk.live_id() is not None and run is not None:
            drive(run.pause(Irregularity.LINK_LOST, detail), self.desk)

    def reconcile(self) -> None:
        client = self.supervisor.client
        if client is None:
            return
        try:
            decision = reconcile(self.desk, self.desk.run, client)
        except ShoeError as exc:
            log.warning("reconciliation failed; the next resync retries", error=str(exc))
            return
        log.info("reconciled with the shoe", decision=decision, round_id=self.desk.live_id())

    def close_finished(self) -> None:
        """Journal the close of a finished round (in the action's batch, when one is open)."""
        run = self.desk.run
        if run is not None and run.terminal and not run.closed:
            self.approvals.review(self)  # a request of the round lapses in it, before its closing
            self.sink.append("round-closed", run.closing(), run.round_id)
            run.closed = True

    def after(self) -> None:
        """Lapse the approval requests whose inputs changed, close a finished round, commit what is queued,
        publish the snapshots other threads read."""
        self.approvals.review(self)
        self.close_finished()
        self.sink.flush()  # nothing is shown before its entry is committed
        run = self.desk.run
        if self.sink.checkpoint_after_close() and run is not None:
            log.info("round closed", round_id=run.round_id, state=run.state)
        self.deck.publish()
        self.shown.publish_round(run)

    def shutdown(self, *, clean: bool) -> None:
        if clean and self.sink.journal is not None:
            position = self.sink.position(self.shown.identity)
            self.sink.append("service", {"event": "stop", "open_round": self.desk.live_id(), **position}, None)
            with contextlib.suppress(JournalError):
                self.sink.checkpoint()
        self.supervisor.close()
        self.sink.close()

    def recover(self, exc: BaseException) -> ServiceError | None:
        """After ``exc`` ended a command or a shoe item: memory equals the journal again (:func:`memory.recover`)."""
        return memory.recover(self, exc)

    def drain(self) -> None:
        while True:
            try:
                item = self.inbox.get_nowait()
            except queue.Empty:
                return
            if isinstance(item, ShoeItem) and _appends_nothing(item.item):
                self.handle_shoe(item.item)  # a shoe event only noted (a card read, a stack ready): may join a batch
            elif isinstance(item, ShoeItem):
                with self.sink.unbatched():  # what is queued is committed first; this may reach the shoe
                    self.handle_shoe(item.item)
            else:
                self.deferred.append(item)

    def dead(self) -> bool:
        return self.killed


def _appends_nothing(item: m.Event | Notice) -> bool:
    """A shoe event ``Owner._on_event`` only notes (no entry, no shoe command): handled inside a batch."""
    return isinstance(item, m.Event) and not isinstance(item, m.DeckLoaded | m.FaultRaised | m.FaultCleared)
