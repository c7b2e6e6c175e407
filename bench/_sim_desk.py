"""The simulator's desk and journal store: a plain implementation of the rounds' ``Desk`` protocol.

``SimStore`` is the real ``shoe.journal.Journal`` on a scratch SQLite file, with crash points: before
or after any commit the power can be cut (``PowerCut``: the process is gone, the file keeps what was
committed) or the disk be full (the commit raises ``JournalError`` and writes nothing). ``SimDesk``
does what ``shoe.service.rounds.desk.RoundDesk`` and the journal sink do, in one thread: entries are
checked against their typed payloads (``parse_entry``), name the caller (``by``), are queued while an
action runs and committed together before the shoe moves, before the answer, and when the action ends
(group commit); shoe discrepancies are journaled as alarms. It keeps no state the journal does not
hold, except the deck check (the deck cycle is not simulated: the dealer's load and check are).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench._sim_shoe import SERIAL, SimShoe
from drivers.errors import ShoeDiscrepancy
from drivers.stacks import Stack
from protocols.fields import CardRead
from shoe.journal import Entry, Journal, JournalError, Pending, prepare
from shoe.rules.profiles import Irregularity
from shoe.service.errors import ServiceError
from shoe.service.journal.entries import known_dispense_id_of, parse_entry
from shoe.service.rounds.intents import DrainResult, drive
from shoe.service.rounds.run import RoundRun

__all__ = ["JOURNAL_FAULTS", "PowerCut", "SimDesk", "SimStore"]

JOURNAL_FAULTS = ("power-cut-before", "power-cut-after", "disk-full")


class PowerCut(BaseException):
    """The table PC lost power at a commit: nothing after it runs (a BaseException: no handler catches it)."""


class SimStore:
    """The journal file and its crash points (``fault(commit number) -> kind or None``)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.journal = Journal.open(path)
        self.commits = 0
        self.fault: Callable[[int], str | None] = lambda n: None
        self.fired: Callable[[str], None] = lambda kind: None

    def reopen(self) -> None:
        """After a power cut: the process is gone; a new one opens the same file."""
        self.journal.close()
        self.journal = Journal.open(self.path)

    def write(self, batch: Sequence[Pending]) -> list[Entry]:
        number, self.commits = self.commits, self.commits + 1
        fault = self.fault(number)
        if fault is not None:
            self.fired(fault)
        if fault == "power-cut-before":
            raise PowerCut(f"power cut before commit {number}")
        if fault == "disk-full":
            raise JournalError("cannot write the journal: database or disk is full")
        entries = self.journal.write(batch)
        if fault == "power-cut-after":
            raise PowerCut(f"power cut after commit {number}")
        return entries


class SimDesk:
    """The ``Desk`` of :mod:`shoe.service.rounds.run` over the simulated store and shoe (one thread)."""

    def __init__(self, store: SimStore, shoe: SimShoe, known_dispense_id: int = 0) -> None:
        self.store = store
        self.shoe = shoe
        self.known_dispense_id = known_dispense_id
        self.run: RoundRun | None = None
        self.by: dict[str, str] | None = None
        self.batching = 0
        self._pending: list[Pending] = []
        self.checked: int | None = None  # the count of the deck check of the deck now in the shoe
        self.deck_no = 0
        self.committed: list[tuple[Entry, dict[str, str] | None]] = []
        """Every entry committed by this desk, with the caller whose command was in hand (the attribution check)."""
        self.bug: str | None = None  # an injected bug (bench/sim --inject-bug)
        self._bug_done = False
        self._by_pending: list[dict[str, str] | None] = []

    def live_id(self) -> str | None:
        return self.run.round_id if self.run is not None and not self.run.closed else None

    # -- the journal -----------------------------------------------------------------------------

    def append(self, kind: str, data: dict[str, Any], round_id: str | None) -> int:
        if self.bug == "unjournaled-card" and kind == "card" and data.get("dispense_id") and not self._bug_done:
            self._bug_done = True
            return self.store.journal.head_seq()  # the planted bug: a dispensed card never reaches the journal
        if self.by is not None and "by" not in data:
            data = {**data, "by": dict(self.by)}
        payload = parse_entry(kind, data)
        pending = prepare(kind, data, round_id)
        known = known_dispense_id_of(payload)
        if known is not None:
            self.known_dispense_id = max(self.known_dispense_id, known)
        self._pending.append(pending)
        self._by_pending.append(self.by)
        if not self.batching:
            return self.flush()[-1].seq
        return self.store.journal.head_seq() + len(self._pending)

    def flush(self) -> list[Entry]:
        if not self._pending:
            return []
        batch, self._pending = self._pending, []
        by, self._by_pending = self._by_pending, []
        entries = self.store.write(batch)
        self.committed.extend(zip(entries, by, strict=True))
        return entries

    # -- the shoe --------------------------------------------------------------------------------

    def dispense(self, size: int) -> Stack:
        self.flush()  # the entries queued so far are committed before the shoe moves
        try:
            if self.bug == "double-dispense" and not self._bug_done:
                self._bug_done = True
                self.shoe.dispense(size)  # the planted bug: a stack dispensed and dropped, then another
            return self.shoe.dispense(size)
        except ShoeDiscrepancy as exc:  # nothing of the stack is journaled as dealt: the alarm accounts for it
            self.raise_alarm(exc.cause, exc.detail, dispense_id=exc.dispense_id, unjournaled=exc.moved)
            raise

    def scan(self) -> CardRead:
        self.flush()
        try:
            return self.shoe.scan()
        except ShoeDiscrepancy as exc:
            self.raise_alarm(exc.cause, exc.detail, dispense_id=exc.dispense_id)
            run = self.run
            if run is not None and not run.closed and not run.terminal:
                drive(run.void(Irregularity.SHOE_DISCREPANCY, f"the shoe contradicted itself: {exc.detail}"), self)
            raise ServiceError("shoe-discrepancy", f"the round is void: {exc}", hint=exc.hint) from exc

    def release_stub(self) -> int:
        self.flush()
        return self.shoe.release_stub()

    def drain(self) -> DrainResult:
        """Nothing arrives between two calls in one thread: the link's losses surface as the call's exception."""
        return DrainResult()

    def shoe_serial(self) -> str | None:
        return SERIAL

    def cards_remaining(self) -> int | None:
        return self.shoe.status().cards_remaining

    def deck_for_round(self) -> tuple[int | None, dict[str, Any]]:
        self.flush()
        if self.checked is None:
            raise ServiceError("deck-not-ready", "the deck is not checked: a round opens only on a checked deck")
        remaining = self.cards_remaining()
        if remaining != self.checked:
            raise ServiceError(
                "deck-not-ready", f"the shoe holds {remaining} cards, the deck check counted {self.checked}"
            )
        return remaining, {"deck_no": self.deck_no, "back": "blue"}

    def load_on_top(self, codes: Sequence[str]) -> bool:
        return False

    def raise_alarm(
        self, cause: str, detail: str, *, dispense_id: int | None = None, unjournaled: int | None = None
    ) -> None:
        data: dict[str, Any] = {"event": "alarm", "cause": cause, "detail": detail, "blocking": False}
        if dispense_id is not None:
            data.update(dispense_id=dispense_id, known_dispense_id=dispense_id)
        if unjournaled is not None:
            data["unjournaled"] = unjournaled
        self.append("fault", data, self.live_id())
