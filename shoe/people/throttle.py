"""Failed sign-ins: exponential back-off per client address and per badge, and their journal summary
(pure: the caller passes the time; one lock, the HTTP threads call it). docs/people.md, "Failed sign-ins".

**Back-off, not a lock.** A lock an anonymous caller can trigger is a way to keep staff out: five wrong
PINs typed by anyone locked a dealer until a floorperson came. Instead a client address that keeps
failing waits longer and longer (``base_s`` doubling up to ``max_s``) from its ``free``-th failure, whatever
badges it tries, and so does a badge that keeps failing (guessed from several addresses) -- but only
for the clients that have failed on that badge: a display that has not been failing signs its dealer
in with the right PIN at once, however many wrong PINs others sent for that badge. Failures are
forgotten after ``forget_s`` without one.

**Summaries, not one entry per attempt.** Failures are counted per (employee, client) -- every badge
nobody holds counts as one employee, ``None`` -- over a window of ``window_s``: the first is journaled
at once, the rest as one entry with the count when the window closes. The number of keys tracked is
bounded; past it, addresses are counted together as ``*``.

Badges are tracked whether anyone holds them or not, so the back-off says nothing about who exists.
"""

from __future__ import annotations

import ipaddress
import threading
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from typing import TypeVar

__all__ = ["FailureSummary", "SignInThrottle", "client_key"]

TRACKED = 4096  # clients, badges and badge-client pairs remembered each (the oldest forgotten first)
_K = TypeVar("_K")
_V = TypeVar("_V")
SUMMARY_KEYS = 256  # (employee, client) pairs summarised per window before addresses are pooled as "*"


def client_key(address: str) -> str:
    """The address back-off is counted by: an IPv4 address, or the /64 of an IPv6 one (one host holds a
    whole /64, so counting single IPv6 addresses would give it 2**64 fresh starts)."""
    try:
        ip = ipaddress.ip_address(address.split("%", maxsplit=1)[0])
    except ValueError:
        return address[:64] or "?"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((int(ip) >> 64 << 64, 64)))
    return str(ip)


@dataclass
class _Track:
    failures: int = 0
    last: float = 0.0
    until: float = 0.0  # backed off before this time


@dataclass
class FailureSummary:
    """A journal entry's worth of failed sign-ins of one employee (``None``: unknown badges) from one client."""

    employee_id: str | None
    name: str | None
    client: str
    part: str  # "first": journaled at once; "rest": the window's other failures, at its close
    count: int
    reasons: dict[str, int]
    window_s: float


@dataclass
class _Window:
    started: float
    employee_id: str | None
    name: str | None
    client: str
    rest: Counter[str] = field(default_factory=Counter)


class SignInThrottle:
    def __init__(
        self,
        free: int = 5,
        *,
        base_s: float = 1.0,
        max_s: float = 300.0,
        forget_s: float = 900.0,
        window_s: float = 60.0,
    ) -> None:
        self.free, self.base_s, self.max_s, self.forget_s, self.window_s = free, base_s, max_s, forget_s, window_s
        self._lock = threading.Lock()
        self._clients: OrderedDict[str, _Track] = OrderedDict()
        self._badges: OrderedDict[str, _Track] = OrderedDict()
        self._pairs: OrderedDict[tuple[str, str], float] = OrderedDict()  # last failure of a badge from a client
        self._windows: dict[tuple[str | None, str], _Window] = {}

    # -- back-off ----------------------------------------------------------------------------------

    def backed_off(self, badge: str, client: str, now: float) -> bool:
        """Whether a sign-in for ``badge`` from ``client`` must be refused unchecked now."""
        with self._lock:
            mine = self._live(self._clients, client, now)
            if mine is not None and now < mine.until:
                return True
            theirs = self._live(self._badges, badge, now)
            pair = self._pairs.get((badge, client))
            failed_here = pair is not None and now - pair <= self.forget_s
            return theirs is not None and now < theirs.until and failed_here

    def failed(self, badge: str, client: str, now: float) -> None:
        """Count a failed sign-in (a backed-off one too: a client that keeps trying keeps waiting)."""
        with self._lock:
            for table, key in ((self._clients, client), (self._badges, badge)):
                track = self._live(table, key, now) or _Track()
                track.failures += 1
                track.last = now
                over = track.failures - self.free  # from the free-th failure on: base_s, then doubling
                if over >= 0:
                    track.until = now + min(self.max_s, self.base_s * 2 ** min(over, 32))
                _put(table, key, track)
            _put(self._pairs, (badge, client), now)

    def succeeded(self, badge: str, client: str) -> None:
        """The right PIN from ``client``: that client and that pair start afresh (the badge's count stays:
        it still tells of guesses from elsewhere)."""
        with self._lock:
            self._clients.pop(client, None)
            self._pairs.pop((badge, client), None)

    def forget_badge(self, badge: str) -> None:
        """A new PIN (a reset): earlier guesses at the old one count for nothing."""
        with self._lock:
            self._badges.pop(badge, None)
            for key in [k for k in self._pairs if k[0] == badge]:
                del self._pairs[key]

    def _live(self, table: OrderedDict[str, _Track], key: str, now: float) -> _Track | None:
        track = table.get(key)
        if track is not None and now - track.last > self.forget_s and now >= track.until:
            del table[key]
            return None
        return track

    # -- the journal's summary ---------------------------------------------------------------------

    def note(
        self, employee_id: str | None, name: str | None, client: str, reason: str, now: float
    ) -> FailureSummary | None:
        """Count one failure for the summary: the entry to journal now (the window's first), or ``None``."""
        with self._lock:
            key = (employee_id, client)
            if key not in self._windows and len(self._windows) >= SUMMARY_KEYS:
                key = (employee_id, "*")
            window = self._windows.get(key)
            if window is not None:
                window.rest[reason] += 1
                return None
            self._windows[key] = _Window(now, employee_id, name, key[1])
            return FailureSummary(employee_id, name, key[1], "first", 1, {reason: 1}, self.window_s)

    def closed(self, now: float, *, every: bool = False) -> list[FailureSummary]:
        """The summaries of the windows that closed by ``now`` (``every``: all of them, at shutdown)."""
        with self._lock:
            done = [k for k, w in self._windows.items() if every or now - w.started >= self.window_s]
            out = []
            for key in done:
                w = self._windows.pop(key)
                if w.rest:
                    total = sum(w.rest.values())
                    out.append(FailureSummary(w.employee_id, w.name, w.client, "rest", total, dict(w.rest),
                                              self.window_s))  # fmt: skip
            return out


def _put(table: OrderedDict[_K, _V], key: _K, value: _V) -> None:
    table[key] = value
    table.move_to_end(key)
    while len(table) > TRACKED:
        table.popitem(last=False)
