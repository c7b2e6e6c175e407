"""Tests of the software shoe. ``Host`` drives an ``EmulatedShoe`` with real frames from ``protocols.codec``.

No client library is involved: these tests check the shoe side of the protocol on its own.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from drivers.emulator import EmulatedShoe, EmulatorConfig
from drivers.emulator.timing import ManualClock
from protocols import codec
from protocols import messages as m
from protocols.framing import BadFrame, Deframer, Frame

R = TypeVar("R", bound=m.Message)
E = TypeVar("E", bound=m.Event)


class Host:
    """A bare host: sends requests, collects responses and events, acknowledges only when told."""

    def __init__(self, shoe: EmulatedShoe) -> None:
        self.shoe = shoe
        self.deframer = Deframer()
        self.seq = 0
        self.events: list[m.Event] = []
        self.responses: list[tuple[int, m.Message]] = []
        self.bad = 0

    def next_seq(self) -> int:
        self.seq = self.seq % 65535 + 1
        return self.seq

    def send(self, message: m.Message, seq: int | None = None) -> int:
        seq = self.next_seq() if seq is None else seq
        self.shoe.host_write(codec.encode(message, seq))
        return seq

    def pump(self, timeout: float = 0.0) -> list[m.Message]:
        """Read what the shoe sent within ``timeout``; record events and responses; return them in order."""
        out: list[m.Message] = []
        data = self.shoe.host_read(timeout)
        while data:
            for item in self.deframer.feed(data):
                if isinstance(item, BadFrame):
                    self.bad += 1
                    continue
                out.append(self._take(item))
            data = self.shoe.host_read(0)
        return out

    def _take(self, frame: Frame) -> m.Message:
        message = codec.decode(frame)
        if isinstance(message, m.Event):
            self.events.append(message)
        else:
            self.responses.append((frame.seq, message))
        return message

    def wait_response(self, seq: int, timeout: float = 2.0) -> m.Message:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for got_seq, message in self.responses:
                if got_seq == seq:
                    self.responses.remove((got_seq, message))
                    return message
            self.pump(0.02)
        raise AssertionError(f"no response to seq {seq} within {timeout} s")

    def call(self, message: m.Message, expect: type[R] | None = None, seq: int | None = None) -> Any:
        reply = self.wait_response(self.send(message, seq))
        if expect is not None:
            assert isinstance(reply, expect), reply
        return reply

    def nak(self, message: m.Message) -> m.Nak:
        reply = self.call(message)
        assert isinstance(reply, m.Nak), reply
        return reply

    def status(self) -> m.Status:
        reply: m.Status = self.call(m.GetStatus(), m.Status)
        return reply

    def ack(self, boot_id: int | None = None, event_no: int | None = None) -> None:
        boot = self.status().boot_id if boot_id is None else boot_id
        last = max(e.event_no for e in self.events) if event_no is None else event_no
        self.send(m.EventAck(boot, last))

    def of(self, kind: type[R]) -> list[R]:
        return [e for e in self.events if isinstance(e, kind)]

    def unique(self, kind: type[E]) -> list[E]:
        """Events of one kind with re-sent duplicates dropped (as a host drops them)."""
        seen: dict[int, E] = {}
        for event in self.of(kind):
            seen.setdefault(event.event_no, event)
        return list(seen.values())


Factory = Callable[..., tuple[EmulatedShoe, Host]]


def shoe_factory() -> Iterator[Factory]:
    """Body of a fixture (``new = pytest.fixture(shoe_factory)``): build shoes, close them all after."""
    made: list[EmulatedShoe] = []

    def build(clock: ManualClock | None = None, **options: Any) -> tuple[EmulatedShoe, Host]:
        # These tests hold the v1.0 rules (exact reports); tests/emulator/test_v11.py holds v1.1's additions.
        options.setdefault("protocol", "1.0")
        shoe = EmulatedShoe(EmulatorConfig(**options), clock=clock)
        made.append(shoe)
        return shoe, Host(shoe)

    yield build
    for shoe in made:
        shoe.close()


DECK = ("As", "Kd", "7c", "2h", "Td", "9s", "3c", "Qh", "5d", "8s", "Jc", "4h")
"""A short, known deck for tests (top card first)."""
