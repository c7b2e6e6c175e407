"""Fixtures of the USB tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from drivers.emulator.fake_usb import FakeUsbBus
from tests.usb.libusb_bus import Bus, require_or_skip


@pytest.fixture
def bus() -> Iterator[FakeUsbBus]:
    """A fake bus; a test that leaves a device handle open fails."""
    bus = FakeUsbBus()
    yield bus
    for device in bus.devices:
        assert not device.handles, "a test left a device handle open"


@pytest.fixture(scope="module")
def umockdev_bus() -> Iterator[Bus]:
    """The umockdev bus for real libusb (skipped, or failed when required, without Debian's packages)."""
    require_or_skip()
    bus = Bus()
    yield bus
    errors = bus.close()
    assert "Traceback" not in errors, errors
