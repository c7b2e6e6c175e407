"""Turns the shoe's re-sent, possibly reordered events into one ordered stream without duplicates.

Pure bookkeeping (SPEC §5): deliver event n only after n-1, hold early arrivals, drop anything at or
below the last delivered number, and say what cumulative acknowledgement to send.
"""

from __future__ import annotations

from typing import NamedTuple

from protocols.messages import Event

MAX_HELD = 1024
"""Early events held while waiting for a gap to fill; matches the shoe's event log depth."""


class Accepted(NamedTuple):
    """Result of offering one event: what to deliver now, and the ack to send (None: no ack).

    A tuple: one is built per event on the link's reader thread, where a dataclass's generated ``__init__``
    and its default factory cost several times more."""

    deliver: list[Event]
    ack: int | None = None
    duplicate: bool = False


class EventSequencer:
    def __init__(self) -> None:
        self.boot_id: int | None = None
        self.last_delivered = 0
        self._held: dict[int, Event] = {}
        self.duplicates = 0

    def new_boot(self, boot_id: int, last_delivered: int = 0) -> None:
        """Start over for a shoe boot: event numbers begin again."""
        self.boot_id = boot_id
        self.last_delivered = last_delivered
        self._held.clear()

    @property
    def gap(self) -> int | None:
        """The first missing event number when later ones are held, else None."""
        return self.last_delivered + 1 if self._held else None

    def next_in_order(self, event: Event) -> bool:
        """Deliver ``event`` if it is the next one and none is held (then True: deliver it, ack its number);
        else False, and nothing changed: ``offer`` it. What ``offer`` does in that case, without its result."""
        n = event.event_no
        if n != self.last_delivered + 1 or self._held:
            return False
        self.last_delivered = n
        return True

    def offer(self, event: Event) -> Accepted:
        n = event.event_no
        if n <= self.last_delivered:
            self.duplicates += 1
            # Our earlier ack was lost: repeat it so the shoe stops re-sending.
            return Accepted([], self.last_delivered, True)
        if n > self.last_delivered + 1:
            if len(self._held) < MAX_HELD or n in self._held:
                self._held[n] = event
            return Accepted([])
        self.last_delivered = n
        if not self._held:
            return Accepted([event], n)
        out = [event]
        while self.last_delivered + 1 in self._held:
            self.last_delivered += 1
            out.append(self._held.pop(self.last_delivered))
        return Accepted(out, self.last_delivered)
