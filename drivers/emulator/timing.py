"""Time in the emulator: mechanical timing profiles, an injectable clock, a timer heap and its thread.

Profiles:

- ``instant`` (default): the mechanism takes no time. A dispense's CARD_READ and STACK_READY events
  are produced synchronously right after the STARTED reply (the reply is queued first), and a SCAN of
  a presented card answers at once. Only waits the protocol asks for (a SCAN with nothing to read,
  ``take_delay_s``, event re-sends) take time.
- ``realistic``: about 0.25 s of mechanical time per card and 0.3 s per scan, like a real shoe.

Clocks: the shoe reads ``clock()`` (``time.monotonic`` by default). A test may pass a ``ManualClock``;
the shoe then starts no timer thread and runs due work only when the test calls ``EmulatedShoe.tick()``,
which makes re-send and timing tests deterministic and fast.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import structlog

log = structlog.get_logger(__name__)

Clock = Callable[[], float]


@dataclass(frozen=True)
class TimingProfile:
    name: str
    card_s: float  # mechanical time to feed and read one card
    scan_s: float  # time to read one card the dealer passes across the reader

    @property
    def instant(self) -> bool:
        return self.card_s == 0.0 and self.scan_s == 0.0


INSTANT = TimingProfile("instant", 0.0, 0.0)
REALISTIC = TimingProfile("realistic", 0.25, 0.3)
PROFILES = {p.name: p for p in (INSTANT, REALISTIC)}


def profile(name: str) -> TimingProfile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"timing {name!r} is not one of {', '.join(PROFILES)}") from None


class ManualClock:
    """A clock that moves only when told to: ``clock.advance(0.2)``."""

    def __init__(self, start: float = 1000.0) -> None:
        self._now = start

    def __call__(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("a clock does not go backwards")
        self._now += seconds


@dataclass(order=True)
class _Timer:
    due: float
    order: int
    action: Callable[[], None] = field(compare=False)


class Scheduler:
    """A heap of one-shot actions by due time. Not thread-safe: the owner holds its lock."""

    def __init__(self) -> None:
        self._heap: list[_Timer] = []
        self._order = itertools.count()

    def at(self, due: float, action: Callable[[], None]) -> None:
        heapq.heappush(self._heap, _Timer(due, next(self._order), action))

    def next_due(self) -> float | None:
        return self._heap[0].due if self._heap else None

    def pop_due(self, now: float) -> list[Callable[[], None]]:
        due: list[Callable[[], None]] = []
        while self._heap and self._heap[0].due <= now:
            due.append(heapq.heappop(self._heap).action)
        return due

    def clear(self) -> None:
        self._heap.clear()


class TimerThread:
    """A daemon thread that calls ``tick()`` whenever ``next_wakeup()`` (clock time) comes due.

    Both are called with ``lock`` held. The thread sleeps on a condition of its own over that lock, so
    that the shoe's notifications to readers of its output (one per frame sent) do not wake it: the
    owner calls ``wake(due)`` after adding work, and only work due before the thread's current wait
    (``until``) wakes it (a wake-up and a GIL hand-off per frame were on the answer path).
    ``stop()`` ends the thread.
    """

    def __init__(
        self,
        lock: threading.RLock,
        clock: Clock,
        next_wakeup: Callable[[], float | None],
        tick: Callable[[], None],
    ) -> None:
        self._cond = threading.Condition(lock)
        self._clock = clock
        self._next_wakeup = next_wakeup
        self._tick = tick
        self._stopped = False
        self.until: float | None = None
        """When the thread's current wait ends (clock time); None: it waits to be woken."""
        self._thread = threading.Thread(target=self._run, name="shoe-emulator-timer", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        with self._cond:
            while not self._stopped:
                wake = self._next_wakeup()
                now = self._clock()
                if wake is not None and wake <= now:
                    try:
                        self._tick()
                    except Exception:  # a bug in a timed action must not kill the shoe's clock
                        log.exception("emulator_timer_failed")
                    continue
                self.until = wake
                self._cond.wait(None if wake is None else wake - now)

    def wake(self, due: float | None) -> None:
        """Work is due at ``due`` (None: unknown): wake the thread unless its wait ends by then anyway."""
        if due is None or self.until is None or due < self.until:
            self.until = due  # a second wake before the thread runs need not notify again
            self._cond.notify()

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=2.0)


class Timekeeper:
    """A shoe's time: its clock, its timers and, unless the clock is a test's, the thread running them.

    ``next_extra()`` and ``on_tick(now)`` let the owner add periodic work (event re-sends) without a
    timer per item. Call everything but ``stop`` with ``lock`` held.
    """

    def __init__(
        self,
        lock: threading.RLock,
        clock: Clock | None,
        next_extra: Callable[[], float | None],
        on_tick: Callable[[float], None],
    ) -> None:
        self.clock: Clock = clock or time.monotonic
        self.manual = clock is not None  # a test clock: no thread; the test calls tick()
        self._lock = lock
        self._next_extra = next_extra
        self._on_tick = on_tick
        self._timers = Scheduler()
        self._thread: TimerThread | None = None
        self._stopped = False

    def later(self, delay: float, action: Callable[[], None]) -> None:
        due = self.clock() + delay
        self._timers.at(due, action)
        self.wake(due)

    def wake(self, due: float | None = None) -> None:
        """Work comes due at ``due`` (None: recompute anyway): the thread (started on first use) waits for it."""
        if self.manual or self._stopped:
            return
        if self._thread is None:
            self._thread = TimerThread(self._lock, self.clock, self.next_wakeup, self.tick)
        self._thread.wake(due)

    def next_wakeup(self) -> float | None:
        times = [t for t in (self._timers.next_due(), self._next_extra()) if t is not None]
        return min(times, default=None)

    def tick(self) -> None:
        now = self.clock()
        while actions := self._timers.pop_due(now):
            for action in actions:
                action()
        self._on_tick(now)

    def clear(self) -> None:
        self._timers.clear()

    def stop(self) -> None:
        """End the thread (call without the lock held: it waits for the thread)."""
        with self._lock:
            self._stopped = True
            thread, self._thread = self._thread, None
        if thread is not None:
            thread.stop()
