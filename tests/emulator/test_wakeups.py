"""The emulator's answer path wakes no thread but the server's: counted, never timed.

An answer used to wake the timer thread (it slept on the shoe's condition, which every frame sent
notifies) and to go round the server's loop twice (the shoe's wake-up pipe, written for output that
the server's own write to the shoe had made). Both made a request cost more wake-ups and GIL hand-offs
than the bytes need, in the emulator's process that the link benchmark talks to.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import serial

from drivers.emulator import EmulatedShoe, EmulatorConfig, serve_pty
from drivers.emulator.model import Counters
from protocols import codec
from protocols import messages as m
from tests.emulator import DECK
from tests.emulator.test_serve import SerialHost

REQUESTS = 60


@pytest.fixture
def shoe() -> Iterator[EmulatedShoe]:
    emulated = EmulatedShoe(EmulatorConfig(deck=DECK))
    yield emulated
    emulated.close()


def _switches(native_id: int) -> int:
    text = Path(f"/proc/self/task/{native_id}/status").read_text()
    return int(next(line for line in text.splitlines() if line.startswith("voluntary_ctxt_switches")).split()[1])


def _acked_dispense(host: SerialHost, shoe: EmulatedShoe) -> None:
    """One stack, every event acknowledged: the timer thread runs, and then has nothing due."""
    host.call(m.Dispense(1, 2))
    deadline = time.monotonic() + 5
    while len(host.events) < 4:  # CARD_READ x2, STACK_READY, STACK_TAKEN
        assert time.monotonic() < deadline, "the stack's events did not come"
        host.call(m.GetStatus())
    host.port.write(b"\x00" + codec.encode(m.EventAck(shoe.boot_id, max(e.event_no for e in host.events)), 0))
    host.call(m.GetStatus())  # the ack went before this answer


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
def test_answers_do_not_wake_the_timer_thread(shoe: EmulatedShoe) -> None:
    with serve_pty(shoe) as server, serial.Serial(server.path, timeout=0.5) as port:
        host = SerialHost(port)
        _acked_dispense(host, shoe)
        timer = shoe._time._thread
        assert timer is not None, "events start the timer thread"
        native_id = timer._thread.native_id
        assert native_id is not None
        before = _switches(native_id)
        for _ in range(REQUESTS):
            assert isinstance(host.call(m.GetStatus()), m.Status)
        woken = _switches(native_id) - before
    assert woken < REQUESTS // 3, f"the timer thread woke {woken} times for {REQUESTS} answers"


def test_the_server_reads_its_own_answers_in_the_same_pass(shoe: EmulatedShoe) -> None:
    with serve_pty(shoe) as server, serial.Serial(server.path, timeout=0.5) as port:
        host = SerialHost(port)
        host.call(m.GetStatus())
        passes = [0]
        once = server._once

        def counted() -> None:
            passes[0] += 1
            once()

        server._once = counted  # type: ignore[method-assign]
        for _ in range(REQUESTS):
            assert isinstance(host.call(m.GetStatus()), m.Status)
        server._once = once  # type: ignore[method-assign]
    # One pass per request (a request split over two reads: one more); the pipe made it two at least.
    assert passes[0] < REQUESTS * 3 // 2, f"{passes[0]} server passes for {REQUESTS} requests"


def test_counters_values_are_the_fields_in_order() -> None:
    counters = Counters(*range(1, len(dataclasses.fields(Counters)) + 1))
    assert counters.values() == dataclasses.astuple(counters)
