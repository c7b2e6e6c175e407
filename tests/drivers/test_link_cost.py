"""The link's per-dispense cost, over a real pseudo-terminal: one cumulative EVENT_ACK per read
of events (SPEC §5: EVENT_ACK(boot, n) acknowledges every event up to n), and an idle reader that sleeps
in one select instead of polling, woken at once by close."""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
import tty
from collections.abc import Iterator
from pathlib import Path

import pytest

from drivers.link import Link
from drivers.serial_transport import SerialTransport
from drivers.timeouts import LinkTimeouts
from protocols import auth, codec
from protocols import messages as m
from protocols.fields import CardRead
from protocols.framing import Deframer, Frame

BOOT = 0x1234


@contextlib.contextmanager
def pty_link() -> Iterator[tuple[int, Link, list[m.Event]]]:
    master, slave = os.openpty()
    tty.setraw(slave)
    events: list[m.Event] = []
    link: Link | None = None

    def ack_each(delivered: list[m.Event]) -> None:  # one EVENT_ACK asked for per event delivered
        for event in delivered:
            events.append(event)
            assert link is not None
            link.send(m.EventAck(BOOT, event.event_no))

    link = Link(SerialTransport(os.ttyname(slave)), timeouts=LinkTimeouts(), on_events=ack_each,
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


def test_a_reads_events_come_in_one_call_and_a_refusal_between_them_keeps_its_place() -> None:
    """One ``on_events`` call a read; a frame refused in the middle of it (here a sealed frame on a plain
    link) is told after the events before it and before the events after it: the order the shoe sent."""
    master, slave = os.openpty()
    tty.setraw(slave)
    calls: list[object] = []
    link = Link(SerialTransport(os.ttyname(slave)), timeouts=LinkTimeouts(),
                on_events=lambda events: calls.append([e.event_no for e in events]),
                on_notice=lambda notice: calls.append(type(notice).__name__))  # fmt: skip
    link.start()
    try:
        assert os.read(master, 16) == b"\x00"
        session = auth.session_key(bytes(range(32)), bytes(16), bytes(16), 1)
        sealed = auth.seal(session, auth.Direction.SHOE_TO_HOST, 1, m.StackTaken.TYPE, 0,
                           payload=codec.encode_payload(m.StackTaken(9, 7)))  # fmt: skip
        plain = [codec.encode(m.StackTaken(n, 7), 0) for n in (1, 2, 3)]
        os.write(master, plain[0] + plain[1] + sealed + plain[2])  # one write: one read on the host
        deadline = time.monotonic() + 5
        while len(calls) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert calls == [[1, 2], "FrameRefused", [3]]
        assert link.stats.refused == 1 and link.stats.frames_in == 3
    finally:
        link.close()
        os.close(master)
        os.close(slave)


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


class _Writes(SerialTransport):
    """Our transport, keeping the messages of each write (one list per ``write`` call)."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.writes: list[list[m.Message]] = []

    def write(self, data: bytes) -> None:
        self.writes.append([codec.decode(f) for f in Deframer().feed(data) if isinstance(f, Frame)])
        super().write(data)


@contextlib.contextmanager
def _shoe_answering(master: int, events_with_first: list[m.Event]) -> Iterator[list[m.Message]]:
    """The shoe's end of the pty: answers each request with OK (the first one with ``events_with_first``
    in the same write); yields what it received, in order."""
    received: list[m.Message] = []
    stop = threading.Event()

    def run() -> None:
        deframer, first = Deframer(), True
        while not stop.is_set():
            ready, _, _ = select.select([master], [], [], 0.05)
            if not ready:
                continue
            for item in deframer.feed(os.read(master, 4096)):
                if not isinstance(item, Frame):
                    continue
                message = codec.decode(item)
                received.append(message)
                if isinstance(message, m.EventAck):
                    continue
                extra = b"".join(codec.encode(e, 0) for e in events_with_first) if first else b""
                os.write(master, codec.encode(m.Ok(), item.seq) + extra)
                first = False

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield received
    finally:
        stop.set()
        thread.join(5)


def _writes_link(master: int, slave: int) -> tuple[Link, _Writes]:
    transport = _Writes(os.ttyname(slave))
    link: Link | None = None

    def ack_each(delivered: list[m.Event]) -> None:
        assert link is not None
        for event in delivered:
            link.send(m.EventAck(BOOT, event.event_no))

    link = Link(transport, timeouts=LinkTimeouts(), on_events=ack_each, on_notice=lambda notice: None)
    link.start()
    return link, transport


STACK = [m.CardReadEvent(1, 7, 1, CardRead("As")), m.CardReadEvent(2, 7, 2, CardRead("Td")),
         m.StackReady(3, 7, (CardRead("As"), CardRead("Td")))]  # fmt: skip


def test_holding_acks_an_answers_events_are_acked_with_the_next_request() -> None:
    master, slave = os.openpty()
    tty.setraw(slave)
    link, transport = _writes_link(master, slave)
    try:
        with _shoe_answering(master, STACK) as received:
            with link.holding_acks():
                link.request(m.GetStatus())
                link.request(m.GetCounters())
            assert transport.writes[1:] == [[m.GetStatus()], [m.EventAck(BOOT, 3), m.GetCounters()]]
            deadline = time.monotonic() + 5
            while len(received) < 3 and time.monotonic() < deadline:
                time.sleep(0.01)
            assert received == [m.GetStatus(), m.EventAck(BOOT, 3), m.GetCounters()]
    finally:
        link.close()
        os.close(master)
        os.close(slave)


def test_an_ack_held_at_the_end_goes_out_then_and_none_is_held_without() -> None:
    master, slave = os.openpty()
    tty.setraw(slave)
    link, transport = _writes_link(master, slave)
    try:
        with _shoe_answering(master, STACK):
            with link.holding_acks():
                link.request(m.GetStatus())
                assert transport.writes[1:] == [[m.GetStatus()]]  # held: nothing else written yet
            assert transport.writes[1:] == [[m.GetStatus()], [m.EventAck(BOOT, 3)]]
        with _shoe_answering(master, [m.StackTaken(4, 7)]):
            link.request(m.GetCounters())  # not holding: the reader acks the read itself, at once
            deadline = time.monotonic() + 5
            while len(transport.writes) < 5 and time.monotonic() < deadline:
                time.sleep(0.01)
            assert transport.writes[3:] == [[m.GetCounters()], [m.EventAck(BOOT, 4)]]
    finally:
        link.close()
        os.close(master)
        os.close(slave)
