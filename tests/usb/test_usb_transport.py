"""The USB transport (``drivers.usb_transport``) over pyusb and the fake USB backend.

The fake backend stands in for a physical USB bus, the one thing that cannot exist here: the transport
talks to it through the real pyusb (``usb.core.find(backend=...)``, ``Device.read``/``write``, claiming,
string descriptors), so every pyusb trap in driver-notes.md is exercised as in the field.

No ``__init__.py`` in this directory on purpose: without ``tests/__init__.py`` a package here would be
named ``usb`` and hide pyusb.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import pytest
import usb.backend.libusb1
import usb.core
import usb.util

from drivers import usb_transport
from drivers.emulator import EmulatedShoe, EmulatorConfig
from drivers.emulator.fake_usb import PIPE, SHOE_IN, TIMEOUT, FakeUsbBus
from drivers.errors import ShoeInitError, ShoeIOError, ShoeUnavailable
from drivers.transport import open_transport
from drivers.usb_transport import UsbTarget, list_usb_shoes, open_usb, parse_usb_url, set_backend
from protocols import codec, messages
from protocols.framing import Deframer, Frame

URL = "usb://1209:0001"


class LoopbackShoe:
    """A stand-in shoe that echoes every byte the host writes."""

    def __init__(self, serial: str = "LOOP0001") -> None:
        self.config = SimpleNamespace(serial=serial)
        self.plugged = True
        self._buffer = bytearray()
        self._cond = threading.Condition()

    def host_write(self, data: bytes) -> None:
        with self._cond:
            self._buffer += data
            self._cond.notify_all()

    def host_read(self, timeout: float) -> bytes:
        with self._cond:
            self._cond.wait_for(lambda: self._buffer, timeout)
            data = bytes(self._buffer)
            self._buffer.clear()
            return data

    def unplug(self) -> None:
        self.plugged = False
        self._buffer.clear()

    def replug(self) -> None:
        self.plugged = True


@pytest.fixture
def bus() -> Iterator[FakeUsbBus]:
    """A fake bus; a test that leaves a device handle open fails."""
    bus = FakeUsbBus()
    yield bus
    for device in bus.devices:
        assert not device.handles, "a test left a device handle open"


def read_all(transport: Any, size: int, timeout: float = 2.0) -> bytes:
    data = b""
    deadline = time.monotonic() + timeout
    while len(data) < size and time.monotonic() < deadline:
        data += transport.read(0.1)
    return data


# --- URLs -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "target"),
    [
        ("usb://", UsbTarget()),
        ("usb://1209:0001", UsbTarget(0x1209, 0x0001)),
        ("USB://1209:0001/", UsbTarget(0x1209, 0x0001)),
        ("usb://1209:0001/EMU0001", UsbTarget(0x1209, 0x0001, "EMU0001")),
        ("usb://abcd:EF01/A%2FB", UsbTarget(0xABCD, 0xEF01, "A/B")),
        ("usb:///EMU0001", UsbTarget(serial="EMU0001")),
    ],
)
def test_parse_usb_url(url: str, target: UsbTarget) -> None:
    assert parse_usb_url(url) == target


@pytest.mark.parametrize("url", ["usb://1209", "usb://12345:1", "usb://0x1209:1", "usb://1209:0001/a/b",
                                 "usb://1209:0001?x=1", "serial:///dev/ttyUSB0"])  # fmt: skip
def test_bad_usb_url(url: str) -> None:
    with pytest.raises(ShoeUnavailable, match="not a USB shoe URL") as err:
        parse_usb_url(url)
    assert "usb://1209:0001/EMU0001" in err.value.hint


# --- finding and opening ----------------------------------------------------------------------------


def test_open_by_ids_and_by_serial(bus: FakeUsbBus) -> None:
    bus.add(LoopbackShoe("A1"))
    with open_usb(URL, backend=bus.backend()) as t:
        t.write(b"ping")
        assert read_all(t, 4) == b"ping"
    bus.add(LoopbackShoe("B2"))
    with open_usb(f"{URL}/B2", backend=bus.backend()) as t:
        assert t.address == bus.devices[1].address
    with open_usb("usb:///A1", backend=bus.backend()) as t:
        assert t.address == bus.devices[0].address


def test_two_shoes_without_serial_is_an_error_naming_them(bus: FakeUsbBus) -> None:
    bus.add(LoopbackShoe("A1"))
    bus.add(LoopbackShoe("B2"))
    with pytest.raises(ShoeUnavailable, match="A1, B2") as err:
        open_usb(URL, backend=bus.backend())
    assert "usb://1209:0001/SERIAL" in err.value.hint


def test_not_found_names_ids_serial_and_what_to_check(bus: FakeUsbBus) -> None:
    bus.add(LoopbackShoe("A1"))
    with pytest.raises(ShoeUnavailable, match="1209:0001 with serial 'NOPE'") as err:
        open_usb(f"{URL}/NOPE", backend=bus.backend())
    assert "udev" in err.value.hint and "shoectl devices" in err.value.hint
    with pytest.raises(ShoeUnavailable, match="no USB shoe 1209:0002 found"):
        open_usb("usb://1209:0002", backend=bus.backend())


def test_permission_denied_points_at_udev(bus: FakeUsbBus) -> None:
    bus.add(LoopbackShoe("A1"), accessible=False)
    for url in (URL, f"{URL}/A1"):  # opening, and reading the serial to match it
        with pytest.raises(ShoeUnavailable, match="permission denied") as err:
            open_usb(url, backend=bus.backend())
        assert "udev" in err.value.hint and "group" in err.value.hint


def test_busy_when_another_program_holds_the_interface(bus: FakeUsbBus) -> None:
    bus.add(LoopbackShoe())
    with open_usb(URL, backend=bus.backend()):
        with pytest.raises(ShoeUnavailable, match="busy") as err:
            open_usb(URL, backend=bus.backend())
        assert "another program" in err.value.hint


def test_kernel_driver_detached_from_every_interface_and_reattached(bus: FakeUsbBus) -> None:
    device = bus.add(LoopbackShoe(), dfu_interface=True, kernel_drivers=(0, 1))
    with open_usb(URL, backend=bus.backend()):
        assert device.detached == [0, 1]
        assert device.kernel_drivers == set()
    assert device.kernel_drivers == {0, 1}  # given back on close


def test_no_kernel_driver_api_is_tolerated(bus: FakeUsbBus) -> None:
    bus.add(LoopbackShoe(), kernel_drivers=(), kernel_driver_api=False)  # macOS, Windows
    with open_usb(URL, backend=bus.backend()) as t:
        t.write(b"ok")
        assert read_all(t, 2) == b"ok"


def test_configuration_not_set_again_when_active(bus: FakeUsbBus) -> None:
    configured = bus.add(LoopbackShoe("A1"))
    unconfigured = bus.add(LoopbackShoe("B2"), configured=False)
    for _ in range(2):
        with open_usb(f"{URL}/A1", backend=bus.backend()):
            pass
        with open_usb(f"{URL}/B2", backend=bus.backend()):
            pass
    assert configured.set_configuration_calls == 0
    assert unconfigured.set_configuration_calls == 1  # once, when it had no configuration
    assert unconfigured.detached == [0, 0]  # the driver bound at configuration was detached too


def test_device_without_the_vendor_interface_is_an_init_error(bus: FakeUsbBus, monkeypatch: pytest.MonkeyPatch) -> None:
    device = bus.add(LoopbackShoe())
    monkeypatch.setattr(usb_transport, "INTERFACE_CLASS", 0x42)  # as if the firmware had another layout
    with pytest.raises(ShoeInitError, match="no vendor interface"):
        open_usb(URL, backend=bus.backend())
    assert device.kernel_drivers == {0} and not device.claims  # left as found


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


# --- the backend, listing, the registry ---------------------------------------------------------------


def test_list_usb_shoes(bus: FakeUsbBus) -> None:
    bus.add(LoopbackShoe("A1"))
    bus.add(LoopbackShoe("B2"), accessible=False)
    first, second = list_usb_shoes(bus.backend())
    assert (first.vid, first.pid, first.serial, first.bus) == (0x1209, 0x0001, "A1", 1)
    assert first.url == "usb://1209:0001/A1" and first.problem is None
    assert first.address == bus.devices[0].address
    assert second.serial is None and second.url == URL
    assert second.problem is not None and "udev" in second.problem
    assert list_usb_shoes(bus.backend(), pid=0x0002) == []


def test_libusb_backend_looked_up_once_and_injectable(bus: FakeUsbBus, monkeypatch: pytest.MonkeyPatch) -> None:
    bus.add(LoopbackShoe())
    calls: list[None] = []

    def get_backend() -> Any:
        calls.append(None)
        return bus.backend()

    monkeypatch.setattr(usb.backend.libusb1, "get_backend", get_backend)
    set_backend(None)
    try:
        for _ in range(3):
            with open_transport(URL):  # the registry's path: open_usb(url) with no backend given
                pass
        list_usb_shoes()
        assert len(calls) == 1
        set_backend(bus.backend())
        with open_transport(URL):
            pass
        assert len(calls) == 1
    finally:
        set_backend(None)


def test_no_libusb_is_unavailable_with_a_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(usb.backend.libusb1, "get_backend", lambda: None)
    monkeypatch.setattr(usb_transport, "_cached_backend", None)
    with pytest.raises(ShoeUnavailable, match="libusb") as err:
        open_usb(URL)
    assert "libusb-1.0" in err.value.hint


def test_pyusb_is_imported_only_for_usb_ports() -> None:
    code = (
        "import sys\n"
        "import drivers.transport as t\n"
        "assert 'usb' not in sys.modules\n"
        "try:\n"
        "    t.open_transport('nosuch://x')\n"
        "except t.ShoeUnavailable:\n"
        "    pass\n"
        "t.open_transport('emu://?seed=1').close()\n"
        "assert 'usb' not in sys.modules, 'pyusb imported without a usb:// port'\n"
        "import drivers.usb_ids\n"
        "assert 'usb' not in sys.modules, 'the ids module must not need pyusb (udev rules read it)'\n"
        "try:\n"
        "    t.open_transport('usb://1209:fffe')\n"
        "except t.ShoeUnavailable:\n"
        "    pass\n"
        "assert 'usb.core' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


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
