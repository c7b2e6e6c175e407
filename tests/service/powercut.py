"""Power cuts of the table service, in process, for the recovery tests (``tests/service`` and
``tests/e2e/test_crash_inprocess.py``).

A power cut between two journal writes of one command cannot be timed from outside the process, so
``power_cut_before`` makes one chosen write fail as if the power went just before it: the service's journal
sink is left killed, with its journal closed. The test then kills the service (no stop entry) and starts a new one on
the same SQLite journal and the same emulated shoe, which must recover the round.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import pytest

from shoe.journal import JournalError
from shoe.service import Role, ServiceError, TableService
from shoe.service.journal.sink import JournalSink

Hit = Callable[[str, Mapping[str, Any]], bool]
"""Whether the journal write of entry ``kind`` with ``data`` is the one the power goes before."""


@contextmanager
def power_cut_before(hit: Hit) -> Iterator[None]:
    """Inside, the first journal write that ``hit`` matches never happens: the owner is marked killed, its
    journal closed, and the write raises ``JournalError``. Other writes go through; leaving restores them all."""
    original = JournalSink.append
    armed = True

    def append(sink: JournalSink, kind: str, data: dict[str, Any], round_id: str | None) -> int:
        nonlocal armed
        if armed and hit(kind, data):
            armed = False
            sink.killed = True
            if sink.journal is not None:
                sink.journal.close()
            raise JournalError("power cut")
        return original(sink, kind, data, round_id)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(JournalSink, "append", append)
        yield


def cut_power_during(service: TableService, action: str, hit: Hit) -> ServiceError:
    """Submit ``action`` (by the dealer, no payload) with the power going before the first journal write that
    ``hit`` matches, then kill ``service`` (no stop entry). Returns the error the command failed with."""
    with power_cut_before(hit):
        with pytest.raises(ServiceError) as failed:
            service.submit(action, {}, Role.DEALER)
        service.kill()
    return failed.value


def card_of_stack(dispense_id: int) -> Hit:
    """The first card entry of stack ``dispense_id``: the shoe dispensed it, the journal has none of its cards."""
    return lambda kind, data: kind == "card" and data.get("dispense_id") == dispense_id


def stack_ordered(number: int) -> Hit:
    """The decision that orders stack ``number``: the power goes before the shoe dispenses it."""
    return lambda kind, data: data.get("action") == "stack-for-seat" and data.get("number") == number


def decision(action: str) -> Hit:
    """The journal entry of decision ``action``."""
    return lambda kind, data: kind == "decision" and data.get("action") == action
