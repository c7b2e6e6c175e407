"""Sign-in sessions, in memory: a session token's digest -> who, since when, last used.

A session ends at sign-out, after ``idle_s`` without a request (the display's idle sign-out), when
its employee is disabled or removed, and when shoed stops (a restart signs everybody out: the
display asks for the badge again). Only the token's SHA-256 digest is kept.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from shoe.people.credentials import SESSION_PREFIX, digest, new_token

__all__ = ["Session", "Sessions"]


@dataclass
class Session:
    id: str  # a short public id, journaled (never the token)
    employee_id: str
    started: float
    last_seen: float


class Sessions:
    def __init__(self, idle_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.idle_s = idle_s
        self._clock = clock
        self._lock = threading.Lock()
        self._by_digest: dict[str, Session] = {}

    def open(self, employee_id: str) -> tuple[str, Session]:
        token = new_token(SESSION_PREFIX)
        now = self._clock()
        session = Session(secrets.token_hex(4), employee_id, now, now)
        with self._lock:
            self._by_digest[digest(token)] = session
        return token, session

    def find(self, token: str) -> tuple[Session | None, bool]:
        """The live session of ``token`` (touched now), or ``(expired session, True)`` once it idled out."""
        key = digest(token)
        now = self._clock()
        with self._lock:
            session = self._by_digest.get(key)
            if session is None:
                return None, False
            if now - session.last_seen > self.idle_s:
                del self._by_digest[key]
                return session, True
            session.last_seen = now
            return session, False

    def peek(self, token: str) -> bool:
        """Whether ``token`` is a live session, without touching it."""
        with self._lock:
            session = self._by_digest.get(digest(token))
            return session is not None and self._clock() - session.last_seen <= self.idle_s

    def close(self, token: str) -> Session | None:
        with self._lock:
            return self._by_digest.pop(digest(token), None)

    def close_employee(self, employee_id: str) -> list[Session]:
        with self._lock:
            keys = [k for k, s in self._by_digest.items() if s.employee_id == employee_id]
            return [self._by_digest.pop(k) for k in keys]

    def expired(self) -> list[Session]:
        """Take out the sessions idle past ``idle_s`` (the periodic sweep journals them)."""
        now = self._clock()
        with self._lock:
            keys = [k for k, s in self._by_digest.items() if now - s.last_seen > self.idle_s]
            return [self._by_digest.pop(k) for k in keys]

    def live(self) -> list[Session]:
        with self._lock:
            return list(self._by_digest.values())
