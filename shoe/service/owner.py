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

import structlog

from drivers.client import ShoeClient
from drivers.errors import ShoeError
from drivers.notices import Discrepancy, LinkLost, LinkRestored, Notice, Resynced, ShoeRebooted
from drivers.transport import Transport
from protocols import messages as m
from shoe.cli import render
from shoe.journal import Journal, JournalError
from shoe.rules.profiles import Irregularity
from shoe.service.config import ServiceConfig
from shoe.service.errors import ServiceError
from shoe.service.feed import EventFeed
from shoe.service.metrics import Metrics
from shoe.service.recovery import reconcile, scan_journal
from shoe.service.rounds import RoundRun, rebuild
from shoe.service.shoeside import ShoeItem, ShoeSide

__all__ = ["Command", "Owner", "ShoeItem"]

log = structlog.get_logger("shoe.service")
FEED_REFILL = 2_000
STATUS_EVERY_S = 5.0


@dataclass
class Command:
    action: str
    params: Mapping[str, Any]
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

    # -- start -----------------------------------------------------------------------------------

    def boot(self) -> None:
        """Open the journal, rebuild an open round, journal the start, connect the shoe, reconcile."""
        self.journal = Journal.open(self.config.journal)
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
        self.append("service", {"event": "start", "pid": os.getpid(), "open_round": rid, **self._position()}, None)
        if failure is not None and facts.open_round is not None:
            self._void_unreadable(facts.open_round.round_id or "", facts.open_round.data, failure)
        self.run = run
        if run is not None and not run.terminal and not run.paused:
            run.pause(self, Irregularity.PC_RESTART, "the table PC restarted mid-round")
        if self._connect() and run is not None and run.paused:
            self._reconcile()
        self.after()

    def _void_unreadable(self, round_id: str, opened: Mapping[str, Any], exc: ServiceError) -> None:
        detail = f"the round could not be rebuilt from the journal: {exc.message}"
        data = {"action": "void", "cause": Irregularity.PC_RESTART.value, "detail": detail}
        self.append("irregularity", data, round_id)
        self.append("round-closed", {"outcome": "void", "cause": Irregularity.PC_RESTART.value}, round_id)

    # -- the loop --------------------------------------------------------------------------------

    def next_command(self, timeout: float) -> Command | ShoeItem | None:
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
            log.info("round closed", round_id=run.round_id, state=run.state)
        self.view = None if run is None else run.view()
        self.summary = (
            None if run is None else {"id": run.round_id, "game": run.game, "state": run.state, "closed": run.closed}
        )

    def shutdown(self, *, clean: bool) -> None:
        if clean and self.journal is not None:
            self.append("service", {"event": "stop", "open_round": self._live_id(), **self._position()}, None)
        if self.client is not None:
            self.client.close()
            self.client = None
        self.link = "down"
        if self.journal is not None:
            with contextlib.suppress(JournalError):
                self.journal.close()

    # -- the desk: what rounds use -----------------------------------------------------------------

    def append(self, kind: str, data: dict[str, Any], round_id: str | None) -> int:
        if self.journal is None:
            raise ServiceError("journal-closed", "the journal is not open", http_status=503)
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
