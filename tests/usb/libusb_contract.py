"""The driver contract suite (tests/drivers/test_contract.py) over ``usb://`` through real pyusb, libusb 1.0
and usbdevfs ioctls answered by the umockdev bus.

Not collected by the suite itself (its name is not ``test_*``): ``tests/usb/test_libusb.py`` runs it in a
child pytest started with the bus's ``UMOCKDEV_DIR`` and ``LD_PRELOAD``, which must be in place before
libusb is loaded. Each rig's emulated shoe is served on TCP in this process and plugged into the bus as a
USB device whose bulk endpoints carry that stream.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from drivers.client import ShoeClient
from drivers.emulator import EmulatedShoe, EmulatorConfig, serve_tcp
from drivers.timeouts import LinkTimeouts
from drivers.usb_transport import list_usb_shoes, open_usb
from tests.drivers.conftest import FAST, Rig
from tests.drivers.test_contract import *  # noqa: F403 - the contract's tests, collected here with these fixtures
from tests.usb.libusb_bus import connect_to_running_bus


def wait_until_listed(serial: str, timeout: float = 10.0) -> None:
    """A libusb already running learns of a new device from udev's add event, a moment after the plug."""
    deadline = time.monotonic() + timeout
    while not any(s.serial == serial for s in list_usb_shoes()):
        assert time.monotonic() < deadline, f"libusb never listed the plugged shoe {serial}"
        time.sleep(0.1)


@pytest.fixture
def backend() -> str:
    return "libusb"


@pytest.fixture
def rig_factory() -> Iterator[Callable[..., Rig]]:
    bus = connect_to_running_bus()
    cleanups: list[Callable[[], None]] = []

    def build(kind: str = "libusb", timeouts: LinkTimeouts = FAST, **config: Any) -> Rig:
        assert kind == "libusb"
        shoe = EmulatedShoe(EmulatorConfig(**config))
        tcp = serve_tcp(shoe, "127.0.0.1", 0)
        device = bus.plug(tcp.address, shoe.config.serial)
        cleanups.extend([shoe.close, tcp.close, lambda: bus.unplug(device)])
        wait_until_listed(device.serial)
        client = ShoeClient(open_usb(device.url), timeouts=timeouts)
        rig = Rig(shoe, client)
        client.subscribe(rig.received.append)
        cleanups.append(client.close)
        client.connect()
        return rig

    yield build
    for cleanup in reversed(cleanups):
        cleanup()
