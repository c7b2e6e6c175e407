"""What the host checks of everything the shoe says about a dispense (SPEC §6, "What the host checks").

A shoe reports one stack several ways: the answer to DISPENSE (a new id answers STARTED), one CARD_READ
per card, STACK_READY with the whole stack, the stored result (QUERY_DISPENSE), its lifetime counters
and cards remaining (before and after), and its boot id in every IDENTITY and STATUS. An honest shoe
says the same thing every way; a broken or lying one (or a man in the middle) does not. Each function
here compares two of these and raises :class:`~drivers.errors.ShoeDiscrepancy` when they disagree;
it never picks one version. What needs the round (cards moved against cards journaled) is the
service's check, not the driver's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from drivers.errors import ShoeDiscrepancy
from protocols import messages as m
from protocols.codes import DispensePhase
from protocols.fields import CardRead

__all__ = ["BootWatch", "Position", "counters_agree", "reads_agree", "stored_agrees"]


class Position(NamedTuple):
    """What check 4 compares (SPEC §6): COUNTERS ``cards`` and ``stacks``, STATUS's cards remaining, last and
    active dispense id. Read with COUNTERS and STATUS (v1.0), or carried in a dispense report (v1.1)."""

    cards: int
    stacks: int
    cards_remaining: int
    last_dispense_id: int
    active_dispense_id: int

    @classmethod
    def read(cls, counters: m.Counters, status: m.Status) -> Position:
        return cls(counters.cards, counters.stacks, status.cards_remaining, status.last_dispense_id,
                   status.active_dispense_id)  # fmt: skip

    @classmethod
    def carried(cls, report: m.DispenseReport) -> Position | None:
        """The position a v1.1 report carries (DISPENSE_POSITION), None from an older shoe."""
        fields = (report.cards_total, report.stacks, report.cards_remaining, report.last_dispense_id,
                  report.active_dispense_id)  # fmt: skip
        if None in fields:
            return None
        return cls(*fields)  # type: ignore[arg-type]


def _codes(reads: tuple[CardRead, ...] | list[CardRead]) -> str:
    """Positions and read statuses only: card identities never go into an error message."""
    return f"{len(reads)} card(s)"


def reads_agree(
    dispense_id: int, reads: Mapping[int, CardRead], stack: tuple[CardRead, ...], *, every_card: bool, what: str
) -> None:
    """Per-card events against the stack ``what`` (STACK_READY, a COMPLETE report, a FAILED stack).

    ``every_card``: STACK_READY comes after the CARD_READ of each of its cards (events are delivered in
    order, SPEC §5), so every position must have been read; a report read back may precede its events.
    """
    for position, read in sorted(reads.items()):
        if position > len(stack):
            raise ShoeDiscrepancy(
                "card-read-mismatch",
                f"dispense {dispense_id}: a CARD_READ at position {position}, but {what} has {_codes(stack)}",
                dispense_id=dispense_id,
            )
        said = stack[position - 1]
        if said is not read and said != read:  # one shared CardRead per valid read: mostly the same object
            raise ShoeDiscrepancy(
                "card-read-mismatch",
                f"dispense {dispense_id}: the CARD_READ at position {position} is not the card {what} gives there",
                dispense_id=dispense_id,
                moved=len(stack),
            )
    if every_card and len(reads) != len(stack):
        missing = [p for p in range(1, len(stack) + 1) if p not in reads]
        raise ShoeDiscrepancy(
            "card-read-mismatch",
            f"dispense {dispense_id}: {what} arrived without a CARD_READ for position(s) {missing}",
            dispense_id=dispense_id,
            moved=len(stack),
        )


def stored_agrees(dispense_id: int, stored: m.DispenseReport, cards: tuple[CardRead, ...], *, failed: bool) -> None:
    """The shoe's stored result (QUERY_DISPENSE, SPEC §6 rule 6) against the stack the events gave."""
    want = DispensePhase.FAILED if failed else DispensePhase.COMPLETE
    if stored.dispense_id != dispense_id or stored.phase is not want or stored.cards != cards:
        raise ShoeDiscrepancy(
            "stored-result-mismatch",
            f"dispense {dispense_id} ended {want.name} with {_codes(cards)}, but the shoe's stored result is "
            f"{stored.phase.name} with {_codes(stored.cards)}"
            + ("" if stored.cards == cards or len(stored.cards) != len(cards) else " (other cards)"),
            dispense_id=dispense_id,
            moved=len(stored.cards) if stored.phase in (DispensePhase.COMPLETE, DispensePhase.FAILED) else None,
        )


def counters_agree(dispense_id: int, before: Position, after: Position, cards: int, *, failed: bool) -> None:
    """Lifetime counters and cards remaining before and after one dispense (SPEC §3 COUNTERS, STATUS).

    A complete stack adds its cards to ``cards`` and one to ``stacks``, and takes its cards from
    ``cards_remaining``; a failed one adds no stack and at least the cards it read (a double feed puts
    unread cards in the tray). STATUS then names it as the last dispense.
    """
    c0 = s0 = before
    c1 = s1 = after
    moved = c1.cards - c0.cards
    problem = None
    if failed:
        if c1.stacks != c0.stacks or moved < cards:
            problem = f"a failed stack of {cards} read card(s), but the counters moved {moved} card(s) and "
            problem += f"{c1.stacks - c0.stacks} stack(s)"
    elif moved != cards or c1.stacks - c0.stacks != 1:
        problem = (
            f"a stack of {cards} card(s), but the counters moved {moved} card(s), {c1.stacks - c0.stacks} stack(s)"
        )
    elif m.Status.UNKNOWN_REMAINING not in (s0.cards_remaining, s1.cards_remaining) and (
        s0.cards_remaining - s1.cards_remaining != cards
    ):
        problem = f"a stack of {cards} card(s), but cards remaining went {s0.cards_remaining} -> {s1.cards_remaining}"
    if problem is None and (s1.last_dispense_id != dispense_id or s1.active_dispense_id != 0):
        problem = f"STATUS names dispense {s1.last_dispense_id} as the last (active {s1.active_dispense_id})"
    if problem is not None:
        raise ShoeDiscrepancy("counters-mismatch", f"dispense {dispense_id}: {problem}", dispense_id=dispense_id,
                              moved=max(moved, 0))  # fmt: skip


class BootWatch:
    """Every boot id the shoe has announced. A boot id never comes back (SPEC §3 RESET: a new one per boot)."""

    def __init__(self) -> None:
        self.current: int | None = None
        self.retired: set[int] = set()

    def see(self, boot_id: int) -> str:
        """``same``, ``new`` (a reboot: the current id is retired) or ``flapped`` (a retired id again)."""
        if self.current is None or boot_id == self.current:
            self.current = boot_id
            return "same"
        flapped = boot_id in self.retired
        self.retired.discard(boot_id)
        self.retired.add(self.current)
        self.current = boot_id
        return "flapped" if flapped else "new"
