"""The HTTP server's threads: a connection goes to an idle worker, or to a new one; none ever waits.

``ThreadingHTTPServer`` started a thread for every connection and let it end with the connection:
with one connection per request (what ``bench/service.py`` and many clients do) that was a thread's
creation, its start hand-off and its end on every request (a fifth of shoed's CPU per
round was the HTTP threads).  Here a worker that has served its connection waits for the next one,
for ``IDLE_S`` at most, then ends; so a busy server reuses its threads and an idle one holds none
(no wake-ups: the wait is one ``Condition.wait``).

The bound on threads does not change: a connection reaches ``submit`` only once it holds a slot
(``shoe.api.limits.Gate``), and a connection never waits for a worker: with no idle worker a new one
starts, so a keep-alive connection or an event stream on a worker never delays another connection.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Generic, TypeVar

import structlog

__all__ = ["IDLE_S", "Workers"]

IDLE_S = 1.0  # an idle worker ends after this (the next connection starts a new one): long enough to serve a
# round's requests, sent back to back, on one thread; short enough that a quiet server holds none
Job = TypeVar("Job")
log = structlog.get_logger("shoe.api")


class Workers(Generic[Job]):
    """Threads that run ``serve(job)`` for each submitted job, reused while jobs keep coming."""

    def __init__(self, serve: Callable[[Job], None], *, idle_s: float = IDLE_S, name: str = "shoe-api-worker") -> None:
        self._serve = serve
        self._idle_s = idle_s
        self._name = name
        self._cond = threading.Condition(threading.Lock())
        self._jobs: deque[Job] = deque()
        self._idle = 0  # workers waiting in _next (or woken and not yet back with a job)
        self._threads: set[threading.Thread] = set()
        self._stopping = False

    def submit(self, job: Job) -> None:
        """Run ``job`` on an idle worker at once, or on a new one: never behind another job."""
        with self._cond:
            self._jobs.append(job)  # after stop() too: that worker ends when its connection does
            if self._idle >= len(self._jobs):  # a waiting worker for this job and every one before it
                self._cond.notify()
                return
        thread = threading.Thread(target=self._run, name=self._name, daemon=True)
        with self._cond:
            self._threads.add(thread)
        thread.start()

    def _run(self) -> None:
        try:
            while (job := self._next()) is not None:
                try:
                    self._serve(job)
                except Exception:  # serve handles its own errors; a worker outlives a bug in one connection
                    log.exception("connection failed")
                del job
        finally:
            with self._cond:
                self._threads.discard(threading.current_thread())

    def _next(self) -> Job | None:
        """The next job, or ``None`` once idle for ``idle_s`` (or stopping) with no job left."""
        with self._cond:
            deadline = time.monotonic() + self._idle_s
            while not self._jobs and not self._stopping:  # woken for a job another worker took: wait on
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._idle += 1
                try:
                    self._cond.wait(left)  # a job or stop() notifies
                finally:
                    self._idle -= 1
            return self._jobs.popleft() if self._jobs else None

    @property
    def threads(self) -> int:
        """The workers alive now, busy or idle."""
        with self._cond:
            return len(self._threads)

    @property
    def idle(self) -> int:
        with self._cond:
            return self._idle

    def stop(self) -> None:
        """Idle workers end now; busy ones end after their connection (the server closes those)."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
