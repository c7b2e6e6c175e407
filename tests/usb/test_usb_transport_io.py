"""I/O over an open USB shoe (``drivers.usb_transport``): transfers, timeouts, link loss and close.

Bulk reads and writes through pyusb and the fake bus, a loopback shoe and the real emulator (protocol
v1): timeouts, stalls, unplug and replug, and a reopen that finds the shoe again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import usb.core
import usb.util

from drivers.emulator import EmulatedShoe, EmulatorConfig
from drivers.emulator.fake_usb import PIPE, SHOE_IN, TIMEOUT, FakeUsbBus
from drivers.errors import ShoeIOError, ShoeUnavailable
from drivers.usb_transport import open_usb
from protocols import codec, messages
from protocols.framing import Deframer, Frame

from .usb_support import URL, LoopbackShoe, read_all

# --- I/O ------------------------------------------------------------------------------------------


def test_long_write_and_reads_in_pieces(bus: FakeUsbBus) -> None:
    bus.add(LoopbackShoe())
    payload = bytes(range(256)) * 12
    with open_usb(URL, backend=bus.backend()) as t:
        t.write(payload)
        assert read_all(t, len(payload)) == payload


def test_write_timeout_is_retried(bus: FakeUsbBus) -> None:
    device = bus.add(LoopbackShoe())
    with open_usb(URL, backend=bus.backend()) as t:
        device.fail_next_transfer = TIMEOUT  # the shoe took nothing this time
        t.write(b"abc")
        assert read_all(t, 3) == b"abc"


def test_read_timeout_returns_empty(bus: FakeUsbBus) -> None:
    bus.add(LoopbackShoe())
    with open_usb(URL, backend=bus.backend()) as t:
        start = time.monotonic()
        assert t.read(0.25) == b""
        assert 0.2 <= time.monotonic() - start < 2.0
        assert t.read(0) == b""  # one 1 ms poll, never libusb's "0 = forever"


def test_unplug_is_link_lost_and_reopen_after_replug_finds_it_again(bus: FakeUsbBus) -> None:
    shoe = LoopbackShoe()
    bus.add(shoe)
    t = open_usb(URL, backend=bus.backend())
    old_address = t.address
    bus.unplug(shoe)
    with pytest.raises(ShoeIOError, match="unplugged"):
        t.read(0.1)
    with pytest.raises(ShoeIOError, match="link lost"):  # stays lost: the Device object is dead
        t.write(b"x")
    t.close()
    with pytest.raises(ShoeUnavailable, match="no USB shoe"):
        open_usb(URL, backend=bus.backend())
    bus.replug(shoe)
    with open_usb(URL, backend=bus.backend()) as again:
        assert again.address != old_address
        again.write(b"back")
        assert read_all(again, 4) == b"back"


def test_write_after_unplug_is_link_lost(bus: FakeUsbBus) -> None:
    shoe = LoopbackShoe()
    bus.add(shoe)
    with open_usb(URL, backend=bus.backend()) as t:
        bus.unplug(shoe)
        with pytest.raises(ShoeIOError):
            t.write(b"x")


def test_stall_is_link_lost_and_the_halt_is_cleared(bus: FakeUsbBus) -> None:
    device = bus.add(LoopbackShoe())
    with open_usb(URL, backend=bus.backend()) as t:
        device.fail_next_transfer = PIPE
        with pytest.raises(ShoeIOError, match="Pipe error"):
            t.read(0.1)
    assert device.cleared_halts == [SHOE_IN]


def test_close_wakes_a_blocked_reader_and_is_idempotent(bus: FakeUsbBus) -> None:
    bus.add(LoopbackShoe())
    t = open_usb(URL, backend=bus.backend())
    result: list[bytes] = []
    reader = threading.Thread(target=lambda: result.append(t.read(10.0)))
    reader.start()
    time.sleep(0.05)
    start = time.monotonic()
    t.close()
    reader.join(2.0)
    assert result == [b""] and time.monotonic() - start < 2.0  # POLL_S, with room for a loaded machine
    t.close()
    with pytest.raises(ShoeIOError, match="closed"):
        t.read(0.01)


# --- the real emulator -------------------------------------------------------------------------------


@pytest.fixture
def emulators() -> Iterator[Callable[..., EmulatedShoe]]:
    """Real emulated shoes (protocol v1), closed at the end."""
    made: list[EmulatedShoe] = []

    def make(**config: Any) -> EmulatedShoe:
        made.append(EmulatedShoe(EmulatorConfig(seed=1, **config)))
        return made[-1]

    yield make
    for shoe in made:
        shoe.close()


def identify(transport: Any, seq: int) -> messages.Identity:
    """Send IDENTIFY (after the flush byte a host sends on every open) and wait for its IDENTITY."""
    transport.write(b"\x00" + codec.encode(messages.Identify(), seq))
    deframer = Deframer()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        for frame in deframer.feed(transport.read(0.2)):
            if isinstance(frame, Frame) and frame.seq == seq:  # events (seq 0) may come first
                reply = codec.decode(frame)
                assert isinstance(reply, messages.Identity)
                return reply
    raise AssertionError("no IDENTITY")


def test_identify_round_trip_through_pyusb(bus: FakeUsbBus, emulators: Callable[..., EmulatedShoe]) -> None:
    shoe = emulators()
    bus.add(shoe)
    found = usb.core.find(backend=bus.backend(), idVendor=0x1209, serial_number="EMU0001")
    assert found is not None
    usb.util.dispose_resources(found)
    with open_usb(f"{URL}/EMU0001", backend=bus.backend()) as t:
        reply = identify(t, 1)
    assert (reply.serial, reply.protocol_version) == ("EMU0001", 1)


def test_emulator_unplug_replug_and_reopen(bus: FakeUsbBus, emulators: Callable[..., EmulatedShoe]) -> None:
    bus.add(emulators(serial="EMU0007"))
    bus.add(shoe := emulators(serial="EMU0008"))
    t = open_usb(f"{URL}/EMU0008", backend=bus.backend())
    assert identify(t, 1).serial == "EMU0008"
    shoe.unplug()  # the emulator's own unplug, then replug before the host looks: still a dead Device
    shoe.replug()
    with pytest.raises(ShoeIOError, match="unplugged"):
        t.read(0.1)
    t.close()
    with open_usb(f"{URL}/EMU0008", backend=bus.backend()) as again:
        assert again.address != t.address
        assert identify(again, 2).serial == "EMU0008"
    shoe.close()  # a closed emulator is a device gone for good
    with open_usb(f"{URL}/EMU0007", backend=bus.backend()) as other:
        assert identify(other, 3).serial == "EMU0007"
