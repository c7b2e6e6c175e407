"""Fixtures of the USB tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from drivers.emulator.fake_usb import FakeUsbBus


@pytest.fixture
def bus() -> Iterator[FakeUsbBus]:
    """A fake bus; a test that leaves a device handle open fails."""
    bus = FakeUsbBus()
    yield bus
    for device in bus.devices:
        assert not device.handles, "a test left a device handle open"
