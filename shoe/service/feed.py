"""The event stream clients follow: every journal entry projected through the secrecy rules, in order.

Each event's ``cursor`` is the journal sequence number of the entry it came from, so a client that
reconnects (or outlives a service restart) asks for the events after the last cursor it saw. The
feed keeps the last ``size`` events in memory (:data:`KEPT`) and is refilled from the journal at start.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from shoe.service.secrecy import project

__all__ = ["KEPT", "EventFeed"]

KEPT = 2_000
"""Events held for resuming streams: about 50 four-seat rounds, the window a restart refills
(``shoe.service.sink.FEED_REFILL`` entries), so a long run holds no more than a fresh start does
(issue 16: 10,000 held were ~8 MiB of a 60 MB budget). Older cursors resume from the oldest held."""


class EventFeed:
    def __init__(self, size: int = KEPT) -> None:
        self._events: deque[dict[str, Any]] = deque(maxlen=size)
        self._cond = threading.Condition()
        self._latest = 0

    @property
    def latest(self) -> int:
        return self._latest

    def publish(
        self,
        seq: int,
        ts: str,
        kind: str,
        round_id: str | None,
        data: Mapping[str, Any],
        *,
        also: Sequence[Mapping[str, Any]] = (),
    ) -> list[dict[str, Any]]:
        """Project one journal entry; wake every waiting reader. Returns the events it made.

        ``also``: events the entry caused, already public (the deck view after a deck entry), published
        with the entry's cursor in the same step, so a reader never sees the cursor without them.
        """
        events = project(seq, ts, kind, round_id, data)
        events += [{"cursor": seq, "ts": ts, "round_id": None, **event} for event in also]  # the table's, not a round's
        with self._cond:
            self._events.extend(events)
            self._latest = max(self._latest, seq)
            if events:  # an entry that projects to nothing (e.g. a hidden card) wakes no stream
                self._cond.notify_all()
        return events

    def since(self, cursor: int, timeout: float) -> tuple[int, list[dict[str, Any]]]:
        """Events after ``cursor``, waiting up to ``timeout`` seconds for one; ``(latest cursor, events)``."""
        deadline = time.monotonic() + max(timeout, 0.0)
        with self._cond:
            while self._latest <= cursor:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return self._latest, []
                self._cond.wait(remaining)
            return self._latest, self._after(cursor)

    def _after(self, cursor: int) -> list[dict[str, Any]]:
        """Events with a cursor above ``cursor``, scanning back from the newest end only as far as needed.

        Cursors ascend through the deque, so a follower that is up to date costs a few steps, not a
        scan of the whole buffer (which made every open stream slower as the service ran).
        """
        newer: list[dict[str, Any]] = []
        for event in reversed(self._events):
            if event["cursor"] <= cursor:
                break
            newer.append(dict(event))
        newer.reverse()
        return newer
