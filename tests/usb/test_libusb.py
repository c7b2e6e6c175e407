"""The USB link through real libusb: pyusb, libusb 1.0 and usbdevfs ioctls, the device served by umockdev.

The fake pyusb backend (``drivers.emulator.fake_usb``) stands in for libusb everywhere else; here libusb
itself enumerates the shoe from sysfs, opens its ``/dev/bus/usb`` node, claims the interface and moves
the bytes in URBs that ``umockdev_bus.py`` answers, and an unplug completes the URBs in flight with
-ENODEV as the kernel does. Skipped with the install hint where Debian's umockdev packages are absent;
``SHOE_USB_TESTS=required`` (CI) makes that a failure.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import pytest

from drivers.emulator import EmulatedShoe, EmulatorConfig, serve_tcp
from tests.hil.support import INNER_PLUGINS
from tests.usb.libusb_bus import ROOT, Bus, Plugged

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def bus(umockdev_bus: Bus) -> Bus:
    return umockdev_bus


@pytest.fixture
def plugged(bus: Bus) -> Iterator[tuple[EmulatedShoe, Plugged]]:
    shoe = EmulatedShoe(EmulatorConfig(seed=7, serial="LIBUSB01"))
    tcp = serve_tcp(shoe, "127.0.0.1", 0)
    device = bus.plug(tcp.address, shoe.config.serial)
    yield shoe, device
    bus.unplug(device)
    tcp.close()
    shoe.close()


def shoectl(bus: Bus, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "shoe.cli.main", *argv], capture_output=True, text=True, timeout=120, check=False,
        env=bus.env(), cwd=ROOT,
    )  # fmt: skip


def test_shoectl_identify_through_libusb(bus: Bus, plugged: tuple[EmulatedShoe, Plugged]) -> None:
    _, device = plugged
    done = shoectl(bus, "--port", device.url, "--json", "identify")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["serial"] == "LIBUSB01"
    ioctls, sent, received = bus.stats(device)
    assert ioctls > 0 and sent > 0 and received > 0  # the bytes went through URBs, not around them


def test_shoectl_devices_lists_the_shoe_with_its_serial(bus: Bus, plugged: tuple[EmulatedShoe, Plugged]) -> None:
    _, device = plugged
    done = shoectl(bus, "--json", "devices")
    assert done.returncode == 0, done.stderr
    usb = [d for d in json.loads(done.stdout)["devices"] if d["kind"] == "usb"]
    assert [(d["url"], d["serial_number"], d["problem"]) for d in usb] == [(device.url, "LIBUSB01", None)]


def test_dispense_through_libusb_moves_the_cards_it_reports(bus: Bus, plugged: tuple[EmulatedShoe, Plugged]) -> None:
    shoe, device = plugged
    done = shoectl(bus, "--port", device.url, "--json", "dispense", "--stacks", "3")
    assert done.returncode == 0, done.stderr
    stacks = json.loads(done.stdout)["stacks"]
    assert [s["dispense_id"] for s in stacks] == [1, 2, 3]
    assert shoe.stats.cards_moved == sum(len(s["cards"]) for s in stacks) == 6


def test_the_transport_contract_through_libusb(bus: Bus) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *INNER_PLUGINS,
         str(ROOT / "tests/usb/libusb_contract.py")],
        capture_output=True, text=True, timeout=280, check=False, cwd=ROOT,
        env={**bus.env(), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "skipped" not in done.stdout, done.stdout[-2000:]
