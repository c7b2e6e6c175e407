"""How the link's reader thread hands a request its answer: one lock, no ``Event``.

:class:`Pending` is the one request in flight. The hand-off is a bare lock held from the start and
released by the reader when the answer is in: one futex wake and one wait per request, where an
``Event`` builds a ``Condition`` and a waiter lock for each wait. :class:`AckHold` keeps the
cumulative EVENT_ACK a requesting thread was handed with its answer, for its next request's write.
"""

from __future__ import annotations

import threading

from drivers.errors import ShoeError
from protocols.messages import EventAck, Message


class Pending:
    """The request in flight: its answer or the link's loss, and the EVENT_ACK handed over with it.

    Only the reader thread calls ``deliver`` (``taken`` is its flag); the requester ``wait``s, and
    ``rearm``s to wait for a replay or a re-send's answer.
    """

    __slots__ = ("_gate", "ack", "defer", "error", "response", "seq", "taken")

    def __init__(self, seq: int, *, defer: bool = False) -> None:
        self.seq = seq
        self.defer = defer
        """The requester holds acknowledgements (``AckHold``): its answer's read's EVENT_ACK comes with it."""
        self.response: Message | None = None
        self.error: ShoeError | None = None
        self.ack: EventAck | None = None
        self.taken = False
        """An answer (or a loss) was delivered since the last ``rearm``: later copies are late."""
        self._gate = threading.Lock()
        self._gate.acquire()

    def deliver(self) -> None:
        """The reader thread: the answer (or ``error``) is set; wake the requester."""
        if not self.taken:
            self.taken = True
            self._gate.release()

    def wait(self, timeout: float) -> bool:
        """The requester: True once delivered (the gate is then held again, for ``rearm``)."""
        return self._gate.acquire(timeout=max(timeout, 0.0))

    def rearm(self) -> None:
        """After a delivered answer was consumed: wait for the next one (a replay, a re-send).

        A loss delivered while the requester was not waiting (its own write had failed) left the gate
        open: it is closed again here, or the next ``wait`` would return at once with nothing delivered."""
        if self.taken:
            self._gate.acquire(blocking=False)
        self.response = None
        self.error = None
        self.taken = False


class AckHold:
    """The EVENT_ACK one thread holds for its next request (one write for both) or for ``release``.

    EVENT_ACK(boot, n) says every event of that boot up to n arrived (SPEC §5): of two for the same
    boot the higher says all, and one of an older boot goes out (``flush``) before a newer boot's.
    Used by the owner thread of ``Link.holding_acks`` only, so it needs no lock.
    """

    def __init__(self) -> None:
        self.owner: int | None = None
        self._ack: EventAck | None = None

    def keep(self, ack: EventAck) -> EventAck | None:
        """Hold ``ack``; returns an older boot's ack that must go out now (else None)."""
        held = self._ack
        if held is not None and held.boot_id != ack.boot_id:
            self._ack = ack
            return held
        if held is None or ack.event_no > held.event_no:
            self._ack = ack
        return None

    def take(self) -> EventAck | None:
        ack, self._ack = self._ack, None
        return ack
