"""The link's per-dispense cost (issue 16), over a real pseudo-terminal: one cumulative EVENT_ACK per read
of events (SPEC §5: EVENT_ACK(boot, n) acknowledges every event up to n), and an idle reader that sleeps
in one select instead of polling, woken at once by close."""

from __future__ import annotations

import contextlib
import os
import threading
import tty
from collections.abc import Iterator
from pathlib import Path

import pytest

from drivers.link import Link
from drivers.serial_transport import SerialTransport
from drivers.timeouts import LinkTimeouts
from protocols import codec
from protocols import messages as m
from protocols.fields import CardRead
from protocols.framing import Deframer, Frame

BOOT = 0x1234


@contextlib.contextmanager
def pty_link(on_event: object = None) -> Iterator[tuple[int, Link, list[m.Event]]]:
    master, slave = os.openpty()
    tty.setraw(slave)
    events: list[m.Event] = []
    link: Link | None = None

    def ack_each(event: m.Event) -> None:  # as ShoeClient does: one EVENT_ACK asked for per event delivered
        events.append(event)
        assert link is not None
        link.send(m.EventAck(BOOT, event.event_no))

    link = Link(SerialTransport(os.ttyname(slave)), timeouts=LinkTimeouts(), on_event=ack_each,
                on_notice=lambda notice: None)  # fmt: skip
    link.start()
    try:
        yield master, link, events
    finally:
        link.close()
        os.close(master)
        os.close(slave)


def _frames_from(master: int, want: int) -> list[m.Message]:
    deframer, got = Deframer(), []
    while len(got) < want:
        for item in deframer.feed(os.read(master, 4096)):
            if isinstance(item, Frame):
                got.append(codec.decode(item))
    return got


def test_one_cumulative_ack_for_the_events_of_one_read() -> None:
    with pty_link() as (master, link, events):
        assert os.read(master, 16) == b"\x00"  # the link's flush delimiter (SPEC §2)
        burst = [m.CardReadEvent(1, 7, 1, CardRead("As")), m.CardReadEvent(2, 7, 2, CardRead("Td")),
                 m.StackReady(3, 7, (CardRead("As"), CardRead("Td"))), m.StackTaken(4, 7)]  # fmt: skip
        os.write(master, b"".join(codec.encode(e, 0) for e in burst))  # one write: one read on the host
        (ack,) = _frames_from(master, 1)
        assert ack == m.EventAck(BOOT, 4)
        assert [e.event_no for e in events] == [1, 2, 3, 4]
        os.write(master, codec.encode(m.StackTaken(5, 8), 0))
        assert _frames_from(master, 1) == [m.EventAck(BOOT, 5)]
        assert link.stats.frames_in == 5


def _switches(tid: int) -> int:
    text = Path(f"/proc/self/task/{tid}/status").read_text()
    return int(next(line for line in text.splitlines() if line.startswith("voluntary_ctxt_switches")).split()[1])


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
def test_an_idle_reader_sleeps_and_close_wakes_it() -> None:
    with pty_link() as (master, link, _):
        os.read(master, 16)
        thread = link._thread
        assert thread is not None and thread.native_id is not None
        done = threading.Event()
        before = _switches(thread.native_id)
        done.wait(1.0)
        woke = _switches(thread.native_id) - before
        assert woke <= 3, f"the idle reader woke {woke} times in a second (it polled every 50 ms before)"
    thread.join(5)  # close() woke the 5 s wait
    assert not thread.is_alive()
