"""The waiting room: a connection that finds every ordinary slot taken waits here, with no thread.

One thread and one selector hold up to ``Limits.waiting`` sockets and read what they send.  A socket
whose whole request (headers, and the body its ``Content-Length`` announces) arrives within
``Limits.reserved_wait_s`` is offered to ``admit`` (the server: an ordinary slot if one came free,
else a reserved slot if the request is eligible); anything else is answered ``503`` with
``Retry-After`` and closed.  A full room evicts its oldest waiting socket for a newcomer
(:meth:`WaitingRoom.add`): an arrival is never refused before it was heard.  So a slow-loris
connection costs a file descriptor for two seconds at most and never a thread, and the dealer
display's quick requests still find a slot (docs/api.md, "Bounds under a flood").

A refused socket lingers (``LINGER_S``, without a thread) after its ``503`` so that the client reads
the answer: closing a socket with unread request bytes would reset the connection and lose it.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from shoe.api.errors import envelope, json_bytes
from shoe.api.limits import Limits, RefusalLog

__all__ = ["LINGER_S", "WaitingRoom", "refusal_bytes"]

LINGER_S = 1.0
MAX_HEAD = 64 * 1024  # the stdlib parser's own limits are 64 KiB a line, 100 headers
MAX_BODY = 64 * 1024  # as shoe.api.handler.MAX_BODY: a larger body is refused there, unread
TICK_S = 0.5
EVICTIONS_BEHIND = 64  # evictions the room's thread has yet to answer before the accept thread waits for it
CATCH_UP_S = 1.0  # how long the accept thread waits for that; still behind then, a newcomer is refused unheard
IDLE_S = 60.0  # the longest sleep with no socket waiting and no refusal to log: an arrival wakes it

_MESSAGES = {
    "connections": "the table service is at its connection limit",
    "reserved": "the table service is at its connection limit; its reserved slots serve only requests "
    "with a known bearer token",
    "slow": "the table service is at its connection limit, and this request did not arrive whole in time",
    "crowded": "the table service is at its connection limit, and this request did not arrive whole in time",
}

Admit = Callable[[socket.socket, Any, bytes], str | None]


def refusal_bytes(reason: str, retry_after_s: int) -> bytes:
    """The whole ``503`` answer for a refusal before any thread took the connection."""
    message = f"{_MESSAGES.get(reason, _MESSAGES['connections'])}; retry after {retry_after_s} s"
    body = json_bytes(envelope("unavailable", message))
    head = (
        "HTTP/1.1 503 Service Unavailable\r\nServer: shoed/1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nRetry-After: {retry_after_s}\r\nCache-Control: no-store\r\n"
        "X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


def _whole(data: bytes) -> bool | None:
    """True when ``data`` holds a whole request, False when more is due, None when it is too large."""
    end = data.find(b"\r\n\r\n")
    if end < 0:
        return None if len(data) > MAX_HEAD else False
    length = 0
    for line in data[:end].split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            raw = value.strip()
            length = int(raw) if raw.isdigit() and len(raw) < 10 else 0  # the handler refuses a bad one
    return length > MAX_BODY or len(data) >= end + 4 + length


@dataclass
class _Entry:
    address: Any
    deadline: float
    lingering: bool
    data: bytes = b""
    evicted: bool = False  # pushed out by a newer arrival while the room was full: refused by the room's thread
    done: bool = False  # a lingering socket already closed (its client closed first)


class WaitingRoom:
    """Sockets waiting for their request (or lingering after a 503), on one thread.

    A full room never refuses a newcomer unheard: it evicts its oldest waiting socket instead (a ``503``,
    reason ``crowded``). A request that comes whole at once (what every real client sends) is read
    within a loop of its arrival and never the oldest, so a flood of slow connections, however often
    it reconnects, cannot keep the display's requests from being read; what it can hold is only its
    own sockets, each for less time the harder it pushes.
    """

    def __init__(self, limits: Limits, admit: Admit, refusals: RefusalLog) -> None:
        self._limits = limits
        self._admit = admit
        self._refusals = refusals
        self._selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._selector.register(self._wake_r, selectors.EVENT_READ)
        refusals.waker = self._wake
        self._lock = threading.Lock()
        self._caught_up = threading.Condition(self._lock)  # the room's thread has answered its evictions
        self._incoming: list[tuple[socket.socket, _Entry]] = []  # to register, on the room's thread
        self._evicted: list[tuple[socket.socket, _Entry]] = []  # to refuse, on the room's thread
        self._order: OrderedDict[socket.socket, _Entry] = OrderedDict()  # waiting sockets, oldest first
        self._lingering = 0
        self._lingerers: deque[tuple[socket.socket, _Entry]] = deque()  # registered, in deadline order
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="shoe-api-waiting", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        with self._lock:
            self._caught_up.notify_all()
        self._wake()
        if self._thread is not None:
            self._thread.join(timeout=5)
        for key in list(self._selector.get_map().values()):
            with contextlib.suppress(OSError):
                key.fileobj.close()  # type: ignore[union-attr]
        with self._lock:
            for sock, _ in self._incoming + self._evicted:
                sock.close()
            self._incoming.clear()
            self._evicted.clear()
            self._order.clear()
        self._selector.close()
        self._wake_w.close()

    @property
    def waiting(self) -> int:
        with self._lock:
            return len(self._order)

    def add(self, sock: socket.socket, address: Any) -> None:
        """Take a new connection (the accept thread calls this): a full room evicts its oldest to make room."""
        entry = _Entry(address, time.monotonic() + self._limits.reserved_wait_s, False)
        with self._lock:
            if len(self._evicted) >= EVICTIONS_BEHIND:  # let the room's thread catch up: the backlog holds the rest
                self._caught_up.wait_for(self._is_caught_up, CATCH_UP_S)
            admitted = not self._stopping.is_set() and len(self._evicted) < EVICTIONS_BEHIND
            if admitted:
                if len(self._order) >= self._limits.waiting:
                    victim, old = self._order.popitem(last=False)
                    old.evicted = True
                    self._evicted.append((victim, old))
                self._order[sock] = entry
                sock.setblocking(False)
                self._incoming.append((sock, entry))
        if admitted:
            self._wake()
        else:  # the room's thread is stuck behind its evictions: this one is refused unheard
            self.refuse(sock, "connections")

    def _is_caught_up(self) -> bool:
        return len(self._evicted) < EVICTIONS_BEHIND or self._stopping.is_set()

    def shed(self, count: int) -> int:
        """Evict up to ``count`` of the oldest waiting sockets now (the server is out of file descriptors)."""
        with self._lock:
            shed = 0
            while self._order and shed < count:
                victim, old = self._order.popitem(last=False)
                old.evicted = True
                self._evicted.append((victim, old))
                shed += 1
        self._wake()
        return shed

    def refuse(self, sock: socket.socket, reason: str) -> None:
        """Answer ``503`` without blocking, count and log it, and let the socket linger."""
        self._refusals.note(reason)
        with contextlib.suppress(OSError):
            sock.setblocking(False)
            sock.send(refusal_bytes(reason, self._limits.retry_after_s))
            sock.shutdown(socket.SHUT_WR)
        with self._lock:
            lingers = not self._stopping.is_set() and self._lingering < self._limits.waiting
            if lingers:
                self._lingering += 1
                self._incoming.append((sock, _Entry(None, time.monotonic() + LINGER_S, True)))
        if lingers:
            self._wake()
        else:
            sock.close()

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            self._wake_w.send(b"x")

    def _claim(self, sock: socket.socket, entry: _Entry) -> bool:
        """Take a waiting socket out of the room's order; ``False``: it was evicted first (refused elsewhere)."""
        with self._lock:
            if entry.evicted:
                return False
            self._order.pop(sock, None)
            return True

    def _leave(self, sock: socket.socket, entry: _Entry, *, close: bool) -> None:
        with contextlib.suppress(KeyError, ValueError):
            self._selector.unregister(sock)
        if entry.lingering and not entry.done:
            entry.done = True
            with self._lock:
                self._lingering -= 1
        if close:
            sock.close()

    def _nearest(self) -> float | None:
        """The next deadline: every socket waits as long as the others of its kind, so the oldest of each
        kind (waiting, lingering) is the next due, and nothing is scanned (a flood holds a thousand)."""
        with self._lock:
            waiting = next(iter(self._order.values())).deadline if self._order else None
        while self._lingerers and self._lingerers[0][1].done:
            self._lingerers.popleft()
        lingering = self._lingerers[0][1].deadline if self._lingerers else None
        due = [t for t in (waiting, lingering) if t is not None]
        return min(due) if due else None

    def _run(self) -> None:
        while not self._stopping.is_set():
            now = time.monotonic()
            nearest = self._nearest()
            if nearest is not None:
                timeout = max(0.0, min(TICK_S, nearest - now))
            else:  # nothing is due: sleep until a wake byte (or a refusal line to flush)
                timeout = TICK_S if self._refusals.pending else IDLE_S
            for key, _ in self._selector.select(timeout):
                if key.fileobj is self._wake_r:
                    with contextlib.suppress(OSError):
                        self._wake_r.recv(4096)
                    continue
                assert isinstance(key.fileobj, socket.socket)
                if key.fileobj.fileno() >= 0:  # not refused and closed earlier in this same pass
                    self._read(key.fileobj, key.data)
            with self._lock:
                incoming, self._incoming = self._incoming, []
                evicted, self._evicted = self._evicted, []
                self._caught_up.notify_all()
            for sock, entry in incoming:
                if entry.evicted:
                    continue  # refused below, never registered
                self._selector.register(sock, selectors.EVENT_READ, entry)
                if entry.lingering:
                    self._lingerers.append((sock, entry))
                else:
                    self._read(sock, entry)  # a whole request is usually in already: admit it now
            for sock, _ in evicted:
                with contextlib.suppress(KeyError, ValueError):
                    self._selector.unregister(sock)
                self.refuse(sock, "crowded")
            self._expire(time.monotonic())
            self._refusals.flush()

    def _expire(self, now: float) -> None:
        """Refuse the waiting sockets past their deadline (``slow``), close the lingering ones past theirs."""
        with self._lock:
            late = []
            while self._order:
                sock, entry = next(iter(self._order.items()))
                if entry.deadline > now:
                    break
                del self._order[sock]
                late.append(sock)
        for sock in late:
            with contextlib.suppress(KeyError, ValueError):
                self._selector.unregister(sock)
            self.refuse(sock, "slow")
        while self._lingerers and (self._lingerers[0][1].done or self._lingerers[0][1].deadline <= now):
            sock, entry = self._lingerers.popleft()
            if not entry.done:
                self._leave(sock, entry, close=True)

    def _read(self, sock: socket.socket, entry: _Entry) -> None:
        try:
            chunk = sock.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            if entry.lingering or self._claim(sock, entry):
                self._leave(sock, entry, close=True)
            return
        if entry.lingering:
            return  # drained: the client's request bytes, read so that close() sends no reset
        entry.data += chunk
        whole = _whole(entry.data)
        if whole is False or not self._claim(sock, entry):
            return
        self._leave(sock, entry, close=False)
        reason = "reserved" if whole is None else self._admit(sock, entry.address, entry.data)
        if reason is not None:
            self.refuse(sock, reason)
