"""Opening a USB shoe (``drivers.usb_transport``, ``drivers.usb_discovery``) over pyusb and the fake bus.

URLs, finding the shoe (by ids, by serial, among several), the errors and hints of a shoe that cannot
be opened, claiming (kernel drivers, configuration), the libusb backend, listing and the registry.
The fake backend stands in for a physical USB bus: the transport talks to it through the real pyusb,
so every pyusb trap in driver-notes.md is exercised as in the field.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
import usb.backend.libusb1

from drivers import usb_discovery, usb_transport
from drivers.emulator.fake_usb import FakeUsbBus
from drivers.errors import ShoeInitError, ShoeUnavailable
from drivers.transport import open_transport
from drivers.usb_transport import UsbTarget, list_usb_shoes, open_usb, parse_usb_url, set_backend

from .usb_support import URL, LoopbackShoe, read_all

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
    monkeypatch.setattr(usb_discovery, "_cached_backend", None)
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
