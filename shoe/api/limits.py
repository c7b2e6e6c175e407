"""The HTTP server's bounds: how many connections, event streams and waiting sockets, and for how long.

One thread serves one connection (``ThreadingHTTPServer``), so a bound on connections is a bound on
threads and file descriptors.  The figures and the reasoning are in docs/api.md ("Bounds under a
flood"); the limits are module constants (``Limits()`` holds them; tests pass smaller ones):

- ``CONNECTIONS`` ordinary connections, each on its own thread, keep-alive allowed;
- past them a new connection waits, with no thread, in the waiting room (``shoe.api.waiting``,
  at most ``WAITING`` sockets): if its whole request arrives within ``RESERVED_WAIT_S`` and it is
  one the dealer display makes (a known token, or any request when no tokens are configured, or a UI
  file) it gets one of the ``RESERVED`` slots, is answered and closed; otherwise ``503`` with
  ``Retry-After``.  A full waiting room evicts its oldest socket (``503``) for the newcomer, never
  refuses the newcomer unheard: the dealer's whole request is read and its token checked first;
- ``STREAMS`` event streams (``GET /v1/events``), counted apart: a stream lives for hours by design;
- a request must arrive whole (request line, headers and body) within ``REQUEST_S`` of its first
  byte, however it is spread over reads; an idle keep-alive connection is closed after ``IDLE_S``.

``fit_file_limit`` raises the process's open-file soft limit to what these bounds hold at once
(``sockets_needed``), or shrinks the waiting room when the hard limit is lower.
"""

from __future__ import annotations

import dataclasses
import io
import resource
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import structlog

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

    from shoe.api.metrics import ApiCounters

__all__ = [
    "BACKLOG",
    "CONNECTIONS",
    "IDLE_S",
    "REQUEST_S",
    "RESERVED",
    "RESERVED_WAIT_S",
    "RETRY_AFTER_S",
    "SEND_S",
    "STREAMS",
    "WAITING",
    "DeadlineReader",
    "Gate",
    "Limits",
    "RefusalLog",
    "RequestClock",
    "fit_file_limit",
    "sockets_needed",
]

CONNECTIONS = 64  # ordinary connections (one thread each)
RESERVED = 8  # slots for a whole, quick, authenticated request when the ordinary ones are taken
STREAMS = 16  # event streams open at once (the dealer display and technician pages hold one each)
WAITING = 1024  # sockets waiting (no thread) for their whole request: past it the oldest is evicted
REQUEST_S = 10.0  # a whole request (headers and body) from its first byte
IDLE_S = 5.0  # an idle keep-alive connection, or a new one that sends nothing, is closed after this
RESERVED_WAIT_S = 2.0  # the whole request must be in within this to take a reserved slot
SEND_S = 30.0  # one blocked send of an answer (a client that does not read) ends the connection
RETRY_AFTER_S = 2  # the Retry-After of a 503
BACKLOG = 128  # the listen backlog (the kernel caps it at net.core.somaxconn)
LOG_EVERY_S = 10.0  # at most one "connections refused" line this often; each carries the count
FD_MARGIN = 256  # file descriptors beside the sockets: the journal, the people store, the shoe, logs, imports

log = structlog.get_logger("shoe.api")


@dataclass(frozen=True)
class Limits:
    connections: int = CONNECTIONS
    reserved: int = RESERVED
    streams: int = STREAMS
    waiting: int = WAITING
    request_s: float = REQUEST_S
    idle_s: float = IDLE_S
    reserved_wait_s: float = RESERVED_WAIT_S
    send_s: float = SEND_S
    retry_after_s: int = RETRY_AFTER_S
    backlog: int = BACKLOG


def sockets_needed(limits: Limits) -> int:
    """The file descriptors the bounds allow the server to hold at once, with ``FD_MARGIN`` for the rest."""
    # waiting and lingering sockets, and evictions not yet answered (shoe.api.waiting.EVICTIONS_BEHIND)
    return limits.connections + limits.reserved + limits.streams + 2 * limits.waiting + 64 + FD_MARGIN


def fit_file_limit(limits: Limits) -> Limits:
    """``limits`` that the process's open-file limit can hold: the soft limit raised (to the hard one at
    most) so that every socket the bounds allow has a descriptor, else the waiting room made smaller.

    Out of descriptors, ``accept`` fails and the connection stays in the backlog, the dealer's with the
    flood's: a server must never reach that by its own bounds (a shell's default soft limit is 1,024).
    """
    need = sockets_needed(limits)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < need:
        target = need if hard == resource.RLIM_INFINITY else min(need, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    if soft == resource.RLIM_INFINITY or soft >= need:
        return limits
    room = max(16, (soft - (need - 2 * limits.waiting)) // 2)
    log.warning(
        "open-file limit too low for the HTTP bounds",
        limit=soft,
        needed=need,
        waiting=room,
        hint="raise LimitNOFILE (systemd) or ulimit -n: fewer sockets can wait for their request under a flood",
    )
    return dataclasses.replace(limits, waiting=room)


class RefusalLog:
    """Counts refusals and logs them rate-limited: the first of a burst at once, then one line every
    ``LOG_EVERY_S`` with the count since the last line (``flush`` writes a burst's last count)."""

    def __init__(self, counters: ApiCounters, every_s: float = LOG_EVERY_S) -> None:
        self._counters = counters
        self._every = every_s
        self._lock = threading.Lock()
        self._pending: Counter[str] = Counter()
        self._last = -float("inf")
        self.waker: Callable[[], None] | None = None  # the thread that calls flush() (the waiting room), if asleep

    @property
    def pending(self) -> bool:
        """Refusals counted but not yet logged: ``flush`` has a line to write when ``LOG_EVERY_S`` has passed."""
        return bool(self._pending)

    def note(self, reason: str) -> None:
        self._counters.refused(reason)
        with self._lock:
            self._pending[reason] += 1
        self.flush()
        if self._pending and self.waker is not None:
            self.waker()

    def flush(self) -> None:
        with self._lock:
            now = time.monotonic()
            if not self._pending or now - self._last < self._every:
                return
            pending, self._pending, self._last = self._pending, Counter(), now
        log.warning(
            "connections refused",
            count=sum(pending.values()),
            reason=pending.most_common(1)[0][0],
            reasons=dict(pending),
            hint="a flood of connections or slow requests: see shoe_api_refused_total in /metrics",
        )


class Gate:
    """The slots: ``ordinary``, ``reserved`` and ``stream``; thread-safe; the open count goes to ``counters``."""

    def __init__(self, limits: Limits, counters: ApiCounters) -> None:
        self._caps = {"ordinary": limits.connections, "reserved": limits.reserved, "stream": limits.streams}
        self._used = dict.fromkeys(self._caps, 0)
        self._lock = threading.Lock()
        self._counters = counters

    def take(self, kind: str) -> bool:
        with self._lock:
            if self._used[kind] >= self._caps[kind]:
                return False
            self._used[kind] += 1
            self._publish()
            return True

    def move(self, old: str, new: str) -> bool:
        """Trade an ``old`` slot for a ``new`` one (a request that turns into an event stream)."""
        with self._lock:
            if self._used[new] >= self._caps[new]:
                return False
            self._used[old] -= 1
            self._used[new] += 1
            self._publish()
            return True

    def release(self, kind: str) -> None:
        with self._lock:
            self._used[kind] -= 1
            self._publish()

    def used(self, kind: str) -> int:
        with self._lock:
            return self._used[kind]

    def _publish(self) -> None:
        self._counters.connections(self._used["ordinary"] + self._used["reserved"])


class RequestClock:
    """The deadline of the request being read on one connection.

    ``idle()`` before each request: the connection may sit silent ``idle_s``; its first byte starts
    the whole-request bound, ``request_s``; ``done()`` once the body is read (no read deadline then).
    """

    def __init__(self, limits: Limits) -> None:
        self._limits = limits
        self.deadline: float | None = None
        self.started = False  # a byte of the current request has arrived
        self.expired = False

    def idle(self) -> None:
        self.deadline = time.monotonic() + self._limits.idle_s
        self.started = self.expired = False

    def arrived(self) -> None:
        if not self.started:
            self.started = True
            self.deadline = time.monotonic() + self._limits.request_s

    def done(self) -> None:
        self.deadline = None


class DeadlineReader(io.RawIOBase):
    """The socket as a raw stream whose every read waits only until the clock's deadline.

    ``prefix`` is what was already read from the socket (by the waiting room), served first.
    """

    def __init__(self, sock: socket.socket, clock: RequestClock, send_s: float, prefix: bytes = b"") -> None:
        super().__init__()
        self._sock = sock
        self._clock = clock
        self._send_s = send_s
        self._prefix = memoryview(prefix)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        view = memoryview(buffer).cast("B")
        if self._prefix:
            n = min(len(view), len(self._prefix))
            view[:n] = self._prefix[:n]
            self._prefix = self._prefix[n:]
            self._clock.arrived()
            return n
        deadline = self._clock.deadline
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                self._clock.expired = True
                raise TimeoutError("the request took longer than its bound")
            self._sock.settimeout(left)
        try:
            n = self._sock.recv_into(view)
        except TimeoutError:
            self._clock.expired = True
            raise
        finally:
            self._sock.settimeout(self._send_s)  # what the answer's sends wait at most
        if n:
            self._clock.arrived()
        return n
