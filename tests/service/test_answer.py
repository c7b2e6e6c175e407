"""A command's answer between the owner thread and its sender: set once, cancelled only before the owner
took it, waited for with a timeout, the error raised where the result would be returned."""

from __future__ import annotations

import threading
import time

import pytest

from shoe.service.answer import Answer, AnswerTimeout
from shoe.service.errors import ServiceError


def test_a_result_set_on_another_thread_wakes_the_waiter() -> None:
    answer = Answer()
    assert answer.set_running_or_notify_cancel()
    threading.Timer(0.05, answer.set_result, ({"state": "dealt"},)).start()
    assert answer.result(timeout=5) == {"state": "dealt"}
    assert answer.result(timeout=0) == {"state": "dealt"}  # asked again: at once, the same


def test_an_error_is_raised_to_the_waiter() -> None:
    answer = Answer()
    answer.set_running_or_notify_cancel()
    answer.set_exception(ServiceError("conflict", "no round is open"))
    with pytest.raises(ServiceError, match="no round is open"):
        answer.result(timeout=0)


def test_waiting_gives_up_after_its_timeout() -> None:
    answer = Answer()
    started = time.monotonic()
    with pytest.raises(AnswerTimeout):
        answer.result(timeout=0.05)
    assert time.monotonic() - started >= 0.04


def test_a_command_cancelled_before_the_owner_took_it_is_never_run() -> None:
    answer = Answer()
    assert answer.cancel()
    assert answer.cancel()  # cancelled stays cancelled
    assert not answer.set_running_or_notify_cancel()  # the owner skips it: "busy", nothing was done


@pytest.mark.parametrize("taken", ["running", "done"])
def test_a_command_the_owner_took_cannot_be_cancelled(taken: str) -> None:
    answer = Answer()
    assert answer.set_running_or_notify_cancel()
    if taken == "done":
        answer.set_result({})
    assert not answer.cancel()  # "still running": the sender must check before repeating it


def test_an_answer_is_set_once() -> None:
    answer = Answer()
    answer.set_running_or_notify_cancel()
    answer.set_result({})
    with pytest.raises(RuntimeError, match="answered twice"):
        answer.set_exception(ServiceError("internal", "late"))
    assert answer.result(timeout=0) == {}


def _take(answer: Answer, outcomes: list[bool]) -> None:
    outcomes.append(answer.set_running_or_notify_cancel())


def test_cancel_and_take_race_to_exactly_one_winner() -> None:
    for _ in range(300):
        answer = Answer()
        outcomes: list[bool] = []
        owner = threading.Thread(target=_take, args=(answer, outcomes))
        owner.start()
        cancelled = answer.cancel()
        owner.join()
        assert outcomes == [not cancelled]
