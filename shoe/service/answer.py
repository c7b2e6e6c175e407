"""A command's answer: set once by the owner thread, waited for by the thread that sent the command.

What ``concurrent.futures.Future`` gave the command (``set_running_or_notify_cancel``, ``cancel``,
``set_result``, ``set_exception``, ``result``) and nothing else: no callbacks, no ``Condition``. The gate
is a plain lock the owner releases once. Every action crosses this hand-off, and the ``Condition``'s
Python (its waiter list, ``notify_all``) was about a third of the hand-off's CPU: 50 -> 36 µs for a
command and its answer between two threads, with ``queue.SimpleQueue`` as the owner's inbox
(``bench/handoff.py``).
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["Answer", "AnswerTimeout"]


class AnswerTimeout(TimeoutError):
    """:meth:`Answer.result` waited its whole timeout."""


_WAITING, _RUNNING, _CANCELLED, _DONE = range(4)


class Answer:
    """One command's answer. States: waiting -> running (the owner took it) -> done, or waiting -> cancelled
    (its sender stopped waiting first: the owner then skips it, so "busy" means nothing was done)."""

    __slots__ = ("_error", "_gate", "_state", "_state_lock", "_value")

    def __init__(self) -> None:
        self._gate = threading.Lock()
        self._gate.acquire()  # released once, by set_result or set_exception
        self._state_lock = threading.Lock()
        self._state = _WAITING
        self._value: dict[str, Any] | None = None
        self._error: BaseException | None = None

    def set_running_or_notify_cancel(self) -> bool:
        """The owner takes the command: False when its sender gave up waiting first (then do nothing)."""
        with self._state_lock:
            if self._state == _CANCELLED:
                return False
            self._state = _RUNNING
            return True

    def cancel(self) -> bool:
        """The sender gives up: True when the owner had not taken the command (it never will)."""
        with self._state_lock:
            if self._state == _WAITING:
                self._state = _CANCELLED
            return self._state == _CANCELLED

    def set_result(self, value: dict[str, Any]) -> None:
        self._finish(value, None)

    def set_exception(self, error: BaseException) -> None:
        self._finish(None, error)

    def _finish(self, value: dict[str, Any] | None, error: BaseException | None) -> None:
        with self._state_lock:
            if self._state == _DONE:
                raise RuntimeError("the command was answered twice")
            self._state = _DONE
            self._value, self._error = value, error
        self._gate.release()

    def result(self, timeout: float) -> dict[str, Any]:
        """The answer (or its error raised), waiting ``timeout`` seconds at most (:class:`AnswerTimeout`)."""
        if not self._gate.acquire(timeout=max(timeout, 0.0)):
            raise AnswerTimeout(f"no answer within {timeout:g} s")
        self._gate.release()  # answered: a later call returns at once
        if self._error is not None:
            raise self._error
        assert self._value is not None
        return self._value
