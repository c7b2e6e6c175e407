"""The event stream clients follow: every journal entry projected through the secrecy rules, in order.

Each event's ``cursor`` is the journal sequence number of the entry it came from, so a client that
reconnects (or outlives a service restart) asks for the events after the last cursor it saw. The
feed keeps the last ``size`` events in memory (:data:`KEPT`), each as its compact JSON (what the stream
writes anyway; a decoded event held the entry's data besides its projection, ~1.5 KiB an event). The
events of the entries before the start are read from the journal only when a client first asks for
one of them (:meth:`EventFeed.refill_from`), on that client's thread, not at every start.
"""

from __future__ import annotations

import contextlib
import functools
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from enum import Enum
from typing import Any

import msgspec

from shoe.journal import JournalError

__all__ = ["KEPT", "EventFeed", "Held", "json_bytes"]


@functools.cache
def _projector() -> Callable[..., list[dict[str, Any]]]:
    """``secrecy.project``, imported by the first entry projected, not at import: the rules' records it needs are
    the larger part of the imports ``shoed`` makes before its first status."""
    from shoe.service.journal.secrecy import project

    return project

KEPT = 2_000
"""Events held for resuming streams: about 50 four-seat rounds, the window a restart refills
(``shoe.service.journal.sink.FEED_REFILL`` entries), so a long run holds no more than a fresh start does
(10,000 held were ~8 MiB of a 60 MB budget). Older cursors resume from the oldest held."""

EntryRow = tuple[int, str, str, "str | None", Mapping[str, Any]]
"""(seq, ts, kind, round_id, data) of one journal entry, what :meth:`EventFeed.refill_from` reads."""


def _default(value: object) -> object:
    if isinstance(value, Enum):
        return value.value
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


_ENCODE = msgspec.json.Encoder(enc_hook=_default).encode


def json_bytes(value: object) -> bytes:
    """Compact UTF-8 JSON on one line: the stream's own form of an event, and every API answer's
    (``shoe.api.errors`` uses this one; SSE ``data:`` lines rely on there being no newline).

    msgspec's encoder, not ``json.dumps``: a ``json.dumps`` with ``default=`` builds its encoder at every call
    (8.6 us for a card event, 0.45 us here), and every entry, answer and stream write comes through this.
    Keys keep their order; a float is written in its shortest form (``0.00001``, ``1e16``); a NaN or infinity
    is ``null`` (``json.dumps`` wrote ``NaN``, which no JSON parser takes); text that has no UTF-8 form (a lone
    surrogate) is a ``UnicodeEncodeError`` as before. A set is an array in the set's own order (no answer or event
    holds one: views and entries carry lists)."""
    return _ENCODE(value)


Held = tuple[int, str, bytes]
"""One held event: its cursor, ``type`` and JSON (the stream's ``id``, ``event`` and ``data`` lines)."""


def _held(event: Mapping[str, Any]) -> Held:
    return int(event["cursor"]), str(event.get("type", "message")), json_bytes(event)


class EventFeed:
    def __init__(self, size: int = KEPT) -> None:
        self._events: deque[Held] = deque(maxlen=size)
        self._size = size
        self._cond = threading.Condition()
        self._latest = 0
        self._refill: Callable[[], Iterable[EntryRow]] | None = None
        self._refill_upto = 0  # the entries up to this seq are the refill's, not yet read
        self._refill_lock = threading.Lock()
        self._held_wake = False  # inside publishing(): wake the readers at its end (the publisher's thread only)
        self._wake_due = False  # an event was published inside it (guarded by _cond)

    @property
    def latest(self) -> int:
        return self._latest

    def refill_from(self, read: Callable[[], Iterable[EntryRow]], upto: int) -> None:
        """The journal's entries up to ``upto`` (the last at the start) are the feed's history, read by
        ``read`` when a client first asks for a cursor below ``upto``, not now (start to first
        200 independent of the journal; the 2,000 entries read and projected were ~150 ms of a start).

        ``read`` yields the entries the feed may hold, oldest first (the journal is thread-safe);
        ``upto`` is the journal's latest cursor from now on, so a stream never waits for one it had.
        """
        with self._cond:
            self._refill, self._refill_upto = read, upto
            self._latest = max(self._latest, upto)

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

        ``also``: views the entry changed, already public (``{"type": "deck", ...}``: the deck view after a
        deck entry), carried by the entry's own event as ``<type>_view`` (``"deck_view": {...}``), so that each
        cursor is one event's: a client resuming after an id (``Last-Event-ID``) gets every event after
        it, none twice, none lost. An entry that projects to no event of its own (a hidden card) sends the
        view alone, as an event of that type with the entry's cursor.
        """
        events = _projector()(seq, ts, kind, round_id, data)
        for view in also:
            name = str(view.get("type"))
            shown = {key: value for key, value in view.items() if key != "type"}
            if events:
                events[-1][f"{name}_view"] = shown  # a round-opened event has a `deck` of its own
            else:  # the table's, not a round's
                events.append({"cursor": seq, "ts": ts, "round_id": None, "type": name, **shown})
        encoded = [_held(event) for event in events]
        with self._cond:
            self._events.extend(encoded)
            self._latest = max(self._latest, seq)
            if events:  # an entry that projects to nothing (e.g. a hidden card) wakes no stream
                if self._held_wake:
                    self._wake_due = True
                else:
                    self._cond.notify_all()
        return events

    @contextlib.contextmanager
    def publishing(self) -> Iterator[None]:
        """Inside, :meth:`publish` holds its wake-up back; on leaving, the waiting readers are woken once for
        every event published meanwhile (the entries of one commit). The events are readable as each is
        published; only the wake-up waits, and never past the block (an exception leaving it wakes them too)."""
        held, self._held_wake = self._held_wake, True
        try:
            yield
        finally:
            self._held_wake = held  # a block inside another leaves the wake-up to the outer one
            with self._cond:
                if self._wake_due and not held:
                    self._wake_due = False
                    self._cond.notify_all()

    def since(self, cursor: int, timeout: float) -> tuple[int, list[dict[str, Any]]]:
        """Events after ``cursor``, waiting up to ``timeout`` seconds for one; ``(latest cursor, events)``."""
        latest, held = self.since_json(cursor, timeout)
        return latest, [json.loads(line) for _, _, line in held]

    def since_json(self, cursor: int, timeout: float) -> tuple[int, list[Held]]:
        """:meth:`since`, each event as held: (cursor, type, compact JSON), as the stream writes it."""
        if self._refill is not None and cursor < self._refill_upto:
            self._read_history()
        deadline = time.monotonic() + max(timeout, 0.0)
        with self._cond:
            while self._latest <= cursor:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return self._latest, []
                self._cond.wait(remaining)
            return self._latest, self._after(cursor)

    def _read_history(self) -> None:
        """Read the entries before the start once (the first reader that needs them waits for it)."""
        with self._refill_lock:
            read, upto = self._refill, self._refill_upto
            if read is None:
                return
            held: deque[Held] = deque(maxlen=self._size)
            project = _projector()
            try:
                for seq, ts, kind, round_id, data in read():
                    if seq > upto:
                        break
                    held.extend(_held(event) for event in project(seq, ts, kind, round_id, data))
            except JournalError:  # closed under a stop: resume from the oldest held, as a too-old cursor does
                held.clear()
            with self._cond:
                room = self._size - len(self._events)
                older = [event for event in held if not self._events or event[0] < self._events[0][0]]
                self._events.extendleft(reversed(older[len(older) - room :] if room > 0 else []))
                self._refill = None

    def _after(self, cursor: int) -> list[Held]:
        """Events with a cursor above ``cursor``, scanning back from the newest end only as far as needed.

        Cursors ascend through the deque, so a follower that is up to date costs a few steps, not a
        scan of the whole buffer (which made every open stream slower as the service ran).
        """
        newer: list[Held] = []
        for held in reversed(self._events):
            if held[0] <= cursor:
                break
            newer.append(held)
        newer.reverse()
        return newer
