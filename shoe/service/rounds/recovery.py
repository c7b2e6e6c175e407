"""After a restart or a lost link: rebuild the round from the journal and reconcile it with the shoe.

This module is the edge of reconciliation (it reads the journal and asks the shoe); the decision is a
pure step, :mod:`.reconcile`. The journal knows the last dispense it recorded completely
(``known_dispense_id``); the shoe knows its last completed dispense id (``STATUS``), which survives
its reboots. Decisions (rules digest, "Irregularities"; docs/service.md):

- the same number: nothing is unexplained, the round resumes;
- the shoe is one ahead and the journal had announced that stack: the stack's cards are read back from
  the shoe without moving a card (``QUERY_DISPENSE``, stored in non-volatile memory, so across a shoe
  reboot; the event log's ``STACK_READY`` where the shoe has no stored result), journaled (only those
  cards the journal does not hold yet: a restart may have cut the deal short between a stack's ``card``
  entries and its record) and applied, and the round resumes;
- anything else (several unknown stacks, a stack the shoe cannot report or that failed, cards that
  differ from those journaled, the shoe behind the journal, another shoe's serial): misdeal, every
  wager returned, with the cause journaled.

Once resumed, the round finishes a command the restart cut short where that needs neither the shoe
nor the dealer (``RoundRun.carry_on``: a Mississippi stub counted but its community cards not
recorded; a stub the shoe released before the journal recorded its count).

A round that cannot be replayed from its records is voided the same way.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from drivers.client import ShoeClient
from drivers.errors import ShoeError, ShoeProtocolError
from drivers.stacks import Stack
from protocols import messages as m
from protocols.codes import DispensePhase, ShoeState
from protocols.fields import CardRead
from shoe.journal import Entry, Journal
from shoe.service.rounds.intents import DrainResult, drive
from shoe.service.rounds.reconcile import ShoeFacts, reconcile_step, wants_stack
from shoe.service.rounds.run import RoundRun

__all__ = ["JournalFacts", "find_stack", "read_stack", "reconcile", "scan_journal"]

LOG_PAGE = 32
POSITION_WINDOW = 16
"""The first window (in journal seq) :func:`journal_position` looks back through for the last position."""


@dataclass
class JournalFacts:
    last_seq: int = 0
    known_dispense_id: int = 0
    resume: tuple[int, int] | None = None  # (boot id, last event number) of the shoe's event stream
    shoe_serial: str | None = None
    open_round: Entry | None = None
    round_entries: list[Entry] = field(default_factory=list)


def scan_journal(journal: Journal) -> JournalFacts:
    """What a start needs from the journal: the open round, the last dispense known, where events resume.

    Read through the journal's indexes, not the whole journal (start time independent of the
    journal's size): the last ``service`` entry (a start or stop, which records the position then), the
    entries after it, and the last round's entries. Only one round is ever live (the desk refuses a new
    one while one is), so the round still open, if any, is the last one opened.
    """
    facts = JournalFacts()
    last = journal.last()
    facts.last_seq = 0 if last is None else last.seq
    start = journal.last("service")
    for entry in journal.entries(after_seq=0 if start is None else start.seq - 1):
        _learn(facts, entry.data)
    opened = journal.last("round-opened")
    if opened is not None and opened.round_id:
        entries = list(journal.entries(round_id=opened.round_id))
        if not any(entry.kind == "round-closed" for entry in entries):
            facts.open_round, facts.round_entries = opened, entries
    return facts


def _learn(facts: JournalFacts, data: Mapping[str, Any]) -> None:
    known = data.get("known_dispense_id")
    if isinstance(known, int):
        facts.known_dispense_id = max(facts.known_dispense_id, known)
    boot, event_no = data.get("boot_id"), data.get("event_no")
    if isinstance(boot, int) and isinstance(event_no, int):
        facts.resume = (boot, event_no)
    serial = (data.get("shoe") or {}).get("serial") if isinstance(data.get("shoe"), dict) else None
    if serial:
        facts.shoe_serial = serial


def find_stack(client: ShoeClient, dispense_id: int) -> tuple[CardRead, ...] | None:
    """The cards of ``dispense_id`` from the shoe's event log (this boot only); ``None`` if not there."""
    first = 1
    while True:
        _, events, more = client.event_log(first, LOG_PAGE)
        for event in events:
            if isinstance(event, m.StackReady) and event.dispense_id == dispense_id:
                return event.cards
            if isinstance(event, m.FaultRaised) and event.dispense_id == dispense_id:
                return None
        if not more or not events:
            return None
        first = events[-1].event_no + 1


class Owner(Protocol):
    """What reconciliation needs of the owner thread (a ``Desk`` with the journal's knowledge)."""

    known_dispense_id: int

    def append(self, kind: str, data: dict[str, Any], round_id: str | None) -> int: ...
    def dispense(self, size: int) -> Stack: ...
    def scan(self) -> CardRead: ...
    def release_stub(self) -> int: ...
    def drain(self) -> DrainResult: ...
    def shoe_serial(self) -> str | None: ...
    def cards_remaining(self) -> int | None: ...
    def deck_for_round(self) -> tuple[int | None, dict[str, Any]]: ...
    def load_on_top(self, codes: Sequence[str]) -> bool: ...
    def raise_alarm(
        self, cause: str, detail: str, *, dispense_id: int | None = None, unjournaled: int | None = None
    ) -> None: ...


def _settled_status(client: ShoeClient, wait: float) -> m.Status:
    """STATUS once no dispense is in progress (a stack still moving finishes first)."""
    deadline = time.monotonic() + wait
    status = client.status()
    while status.active_dispense_id and time.monotonic() < deadline:
        time.sleep(0.05)
        status = client.status()
    return status


def reconcile(owner: Owner, run: RoundRun | None, client: ShoeClient) -> str:
    """Compare the journal with the shoe; resume or void a paused round. Returns the decision taken.

    The edge of :func:`~shoe.service.rounds.reconcile.reconcile_step`: the shoe is asked here, first (a
    failure to answer leaves the journal as it was: the next resync retries); the decision is the step's.
    """
    status = _settled_status(client, client.timeouts.dispense(8))
    known, last = owner.known_dispense_id, status.last_dispense_id
    if run is None or run.closed or run.terminal or not run.paused:
        if (run is None or run.closed) and last > known:
            _alarm_unnamed(owner, client, known, last)
            return "stacks-alarmed"
        return "nothing-to-reconcile"
    serial = client.identity.serial if client.identity else None
    stack, why = read_stack(client, last) if wants_stack(run, known, last, serial) else (None, "")
    # How many cards each stack beyond the journal's holds: the alarms' counts, should the round be void.
    moved = {did: _moved(client, did) for did in range(max(known + 1, last - 7), last + 1)}
    facts = ShoeFacts(serial, last, status.state is ShoeState.STUB_RELEASED, stack, why, moved, status.cards_remaining)
    verdict = drive(reconcile_step(run, facts, known), owner)
    if verdict.known_dispense_id is not None:
        owner.known_dispense_id = verdict.known_dispense_id
    return verdict.decision


def _alarm_unnamed(owner: Owner, client: ShoeClient, known: int, last: int) -> None:
    """No round is live and the shoe completed stacks the journal never named (a round voided while its
    reconciliation could not reach the shoe): each one an alarm with its dispense id and its count of
    cards, never adopted in silence; then the journal knows up to the shoe's last."""
    for did in range(max(known + 1, last - 7), last + 1):  # at most 8, as reconciliation alarms them
        moved = _moved(client, did)
        detail = f"the shoe completed dispense {did}, which the journal never recorded (no round is live)"
        owner.raise_alarm("stack-unjournaled", detail, dispense_id=did, unjournaled=moved)
    owner.known_dispense_id = max(owner.known_dispense_id, last)


def _moved(client: ShoeClient, dispense_id: int) -> int | None:
    """How many cards the shoe's stored result of ``dispense_id`` holds; None if it cannot say."""
    try:
        report = client.query_dispense(dispense_id)
    except ShoeError:
        return None
    return len(report.cards) if report.phase in (DispensePhase.COMPLETE, DispensePhase.FAILED) else None


def read_stack(client: ShoeClient, dispense_id: int) -> tuple[tuple[CardRead, ...] | None, str]:
    """A completed stack's cards, asked of the shoe without moving a card; ``None`` and why not.

    ``QUERY_DISPENSE`` answers from the shoe's non-volatile results, so a shoe reboot does not lose the
    stack; a shoe that cannot answer it (no stored result) is asked through its event log (this boot).
    """
    try:
        report = client.query_dispense(dispense_id)
    except ShoeProtocolError:
        cards = find_stack(client, dispense_id)
        return cards, f"stack {dispense_id} is neither stored in the shoe nor in its event log"
    if report.phase is DispensePhase.COMPLETE:
        return report.cards, ""
    if report.phase is DispensePhase.FAILED:
        return None, f"stack {dispense_id} failed in the shoe (fault {report.fault})"
    return None, f"stack {dispense_id} is {report.phase.name.lower().replace('_', ' ')} in the shoe"


# -- the shoe's position against the journal's, at every connect -------------------

POSITION_EVENT = "shoe-position"
"""The ``link`` entry journaled at every connect: the shoe's serial, last dispense id and lifetime counters."""


@dataclass
class ShoePosition:
    """What the journal knows of the shoe's position: the last ``shoe-position`` entry and what followed it."""

    serial: str | None = None
    cards_counter: int | None = None
    cards_since: int = 0
    """Cards the journal accounts for since that entry: dispensed cards, maintenance stacks, alarms' counts."""


def journal_position(journal: Journal) -> ShoePosition:
    """The last ``shoe-position`` entry (:func:`_last_position`), and the cards journaled after it (one pass)."""
    pos = ShoePosition()
    since = 0
    entry = _last_position(journal)
    if entry is not None:
        since, pos.serial, pos.cards_counter = entry.seq, entry.data.get("serial"), entry.data.get("cards_counter")
    for entry in journal.entries(after_seq=since, kinds=("card", "technician", "fault")):
        data = entry.data
        if entry.kind == "card" and data.get("dispense_id") is not None:
            pos.cards_since += 1
        elif entry.kind == "technician" and isinstance(data.get("cards"), list) and data.get("dispense_id"):
            pos.cards_since += len(data["cards"])
        elif entry.kind == "fault" and data.get("event") == "alarm" and isinstance(data.get("unjournaled"), int):
            pos.cards_since += data["unjournaled"]
    return pos


def _last_position(journal: Journal) -> Entry | None:
    """The last ``shoe-position`` entry, looked for backwards in windows of seq that double from
    :data:`POSITION_WINDOW`: the link entries near the end, not every one of the journal (a connect
    writes one; start independent of the journal's size). None: the journal has none."""
    last = journal.last("link")
    if last is None:
        return None
    if last.data.get("event") == POSITION_EVENT:
        return last
    end, window = last.seq, POSITION_WINDOW
    while end > 0:
        low = max(0, end - window)
        found = None
        for entry in journal.entries(after_seq=low, kinds=("link",)):
            if entry.seq > end:
                break
            if entry.data.get("event") == POSITION_EVENT:
                found = entry
        if found is not None:
            return found
        end, window = low, window * 2
    return None


@dataclass(frozen=True)
class PositionVerdict:
    """``ahead`` (an alarm: cards moved that the journal never saw, or a used shoe it has never seen),
    ``behind`` (a new or replaced shoe, a fresh emulator: journaled, fine), ``adopted`` (an unused shoe on a
    journal without a shoe position) or ``same``."""

    verdict: str
    detail: str


def judge_position(
    pos: ShoePosition,
    known_dispense_id: int,
    serial: str | None,
    status: m.Status,
    counters: m.Counters,
    *,
    in_doubt: int = 0,
) -> PositionVerdict:
    """The shoe's last dispense id and card counter against the journal's (rules digest,
    "Irregularities": a card the journal cannot account for is never a fresh start).

    ``in_doubt`` cards (and one dispense id) belong to a paused round's announced stack that
    reconciliation reads back from the shoe (:func:`reconcile`): not ahead.
    """
    last = status.last_dispense_id
    if pos.serial is not None and serial is not None and serial != pos.serial:
        return PositionVerdict("behind", f"another shoe ({serial}) than the last one journaled ({pos.serial})")
    if pos.cards_counter is None and known_dispense_id == 0:
        if last or counters.cards:  # a journal that lost its history looks just like this: never a fresh start
            return PositionVerdict(
                "ahead",
                f"a shoe this journal has never seen has dispensed {counters.cards} cards (last dispense {last})",
            )
        return PositionVerdict("adopted", "a new shoe, a new journal")
    if last > known_dispense_id + (1 if in_doubt else 0):
        return PositionVerdict(
            "ahead", f"the shoe's last dispense is {last}, the journal knows dispenses up to {known_dispense_id}"
        )
    if pos.cards_counter is not None:
        expected = pos.cards_counter + pos.cards_since
        if counters.cards > expected + in_doubt:
            return PositionVerdict(
                "ahead",
                f"the shoe's card counter is {counters.cards}, the journal accounts for {expected}: "
                f"{counters.cards - expected} card(s) moved that the journal never saw",
            )
        if counters.cards < pos.cards_counter:
            return PositionVerdict("behind", f"the shoe's card counter {counters.cards} is below the journal's")
    if last < known_dispense_id:
        return PositionVerdict("behind", f"the shoe's last dispense is {last}, the journal's {known_dispense_id}")
    return PositionVerdict("same", "")
