"""Tracking one dispense from request to stack in the tray (SPEC §6), fed by the event stream."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from drivers.errors import ShoeFault
from protocols.codes import FaultCode, ReadStatus
from protocols.fields import CardRead


@dataclass(frozen=True)
class Stack:
    """A stack the shoe dispensed: its id, the card reads in order, and whether it was a replay."""

    dispense_id: int
    cards: tuple[CardRead, ...]
    replayed: bool = False
    counters: tuple[int, int] | None = None
    """The shoe's lifetime card counter before and after this stack, once checked (None: not checked)."""

    @property
    def codes(self) -> tuple[str | None, ...]:
        return tuple(read.card for read in self.cards)

    @property
    def unreadable(self) -> tuple[int, ...]:
        """1-based positions the reader could not identify."""
        return tuple(i for i, read in enumerate(self.cards, 1) if read.status is not ReadStatus.OK)


class DispenseFailed(ShoeFault):
    """The shoe stopped a dispense with a fault; ``cards`` holds what was read before it stopped."""

    def __init__(self, code: FaultCode, dispense_id: int, cards: tuple[CardRead, ...]) -> None:
        super().__init__(code, f"dispense {dispense_id} stopped by {code.name} after {len(cards)} card(s)")
        self.dispense_id = dispense_id
        self.cards = cards


class StackTracker:
    """Collects the events of one dispense id; ``wait`` returns when it is ready, failed or interrupted."""

    def __init__(self, dispense_id: int) -> None:
        self.dispense_id = dispense_id
        self.reads: dict[int, CardRead] = {}
        self.result: tuple[CardRead, ...] | None = None
        self.fault: FaultCode | None = None
        self.interrupted = False
        self.conflict: str | None = None
        """Set when the events of this id contradict each other (SPEC §6, "What the host checks")."""
        self._wake = threading.Event()

    def card_read(self, position: int, read: CardRead) -> None:
        if self.result is not None or (position in self.reads and self.reads[position] != read):
            self.contradict(f"a second CARD_READ for position {position} of dispense {self.dispense_id}")
        self.reads[position] = read

    def ready(self, cards: tuple[CardRead, ...]) -> None:
        if self.result is not None and self.result != cards:
            self.contradict(f"a second, different STACK_READY for dispense {self.dispense_id}")
        self.result = cards
        self._wake.set()

    def contradict(self, why: str) -> None:
        """Note the first contradiction and wake the waiter: the stack is a misdeal, whatever it holds."""
        self.conflict = self.conflict or why
        self._wake.set()

    def failed(self, code: FaultCode) -> None:
        self.fault = code
        self._wake.set()

    def interrupt(self) -> None:
        """The link dropped: wake the waiter so it can reconcile."""
        self.interrupted = True
        self._wake.set()

    def wait(self, timeout: float) -> bool:
        woke = self._wake.wait(timeout)
        self._wake.clear()
        return woke

    def cards_so_far(self) -> tuple[CardRead, ...]:
        return tuple(self.reads[p] for p in sorted(self.reads))
