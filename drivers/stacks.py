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
        self._wake = threading.Lock()
        """Released when there is news (``_news``), taken again by ``wait``: an Event's set, wait and clear in
        one bare lock, without the Condition and waiter lock an Event builds and takes."""
        self._wake.acquire()

    def card_read(self, position: int, read: CardRead) -> None:
        if self.result is not None or (position in self.reads and self.reads[position] != read):
            self.contradict(f"a second CARD_READ for position {position} of dispense {self.dispense_id}")
        self.reads[position] = read

    def ready(self, cards: tuple[CardRead, ...]) -> None:
        if self.result is not None and self.result != cards:
            self.contradict(f"a second, different STACK_READY for dispense {self.dispense_id}")
        self.result = cards
        self._news()

    def contradict(self, why: str) -> None:
        """Note the first contradiction and wake the waiter: the stack is a misdeal, whatever it holds."""
        self.conflict = self.conflict or why
        self._news()

    def failed(self, code: FaultCode) -> None:
        self.fault = code
        self._news()

    def interrupt(self) -> None:
        """The link dropped: wake the waiter so it can reconcile."""
        self.interrupted = True
        self._news()

    def _news(self) -> None:
        # Any thread may tell (the reader, a requester that saw a reboot): a second telling before the wait
        # finds the lock released already, as a second Event.set finds it set. (try, not contextlib.suppress:
        # this runs for every stack, and suppress is three Python calls.)
        try:  # noqa: SIM105
            self._wake.release()
        except RuntimeError:
            pass

    def wait(self, timeout: float) -> bool:
        """True if there was news since the last wait (then consumed), else False after ``timeout`` s."""
        return self._wake.acquire(timeout=max(timeout, 0.0))

    def cards_so_far(self) -> tuple[CardRead, ...]:
        return tuple(self.reads[p] for p in sorted(self.reads))
