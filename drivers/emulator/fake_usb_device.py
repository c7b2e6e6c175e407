"""One emulated shoe on the fake USB bus, with the host-side state the kernel and libusb keep for it.

``drivers.emulator.fake_usb`` plugs these into a ``FakeUsbBus`` and serves them to pyusb. A device
notices an unplug or replug of its shoe at ``sync``: an unplug bumps its generation (old handles are
dead), a replug gives it a new address and first-plug state.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from drivers.emulator.fake_usb_descriptors import (
    DFU_INTERFACE,
    SHOE_INTERFACE,
    STRING_MANUFACTURER,
    STRING_PRODUCT,
    STRING_SERIAL,
    Descriptor,
    Layout,
    device_descriptor,
)
from drivers.usb_ids import PRODUCT_ID, VENDOR_ID

if TYPE_CHECKING:
    from drivers.emulator.fake_usb import FakeUsbBus


class ShoeConfigLike(Protocol):
    @property
    def serial(self) -> str: ...


class EmulatedShoeLike(Protocol):
    """What the bus needs of an emulated shoe (``drivers.emulator.EmulatedShoe`` has it)."""

    @property
    def config(self) -> ShoeConfigLike: ...
    @property
    def plugged(self) -> bool: ...
    def host_write(self, data: bytes) -> None: ...
    def host_read(self, timeout: float) -> bytes: ...
    def unplug(self) -> None: ...
    def replug(self) -> None: ...


@dataclass(frozen=True)
class DeviceId:
    """What ``enumerate_devices`` yields: one device as it was plugged at one address."""

    device: FakeUsbDevice
    generation: int
    address: int


@dataclass(eq=False)
class FakeHandle:
    device: FakeUsbDevice
    generation: int
    closed: bool = False


class FakeUsbDevice:
    """One emulated shoe on the bus, with the host-side state the kernel and libusb keep for it."""

    def __init__(
        self, bus: FakeUsbBus, shoe: EmulatedShoeLike, *, vid: int = VENDOR_ID, pid: int = PRODUCT_ID,
        manufacturer: str = "pid.codes test device", product: str = "Card shoe emulator",
        configured: bool = True, kernel_drivers: Iterable[int] = (0,), kernel_driver_api: bool = True,
        accessible: bool = True, dfu_interface: bool = False,
    ) -> None:  # fmt: skip
        self.bus, self.shoe, self.vid, self.pid = bus, shoe, vid, pid
        self.strings = {STRING_MANUFACTURER: manufacturer, STRING_PRODUCT: product}
        self.layout: Layout = [[SHOE_INTERFACE], [DFU_INTERFACE]] if dfu_interface else [[SHOE_INTERFACE]]
        self.initial_drivers = frozenset(kernel_drivers)
        if not self.initial_drivers <= {alts[0][0].bInterfaceNumber for alts in self.layout}:
            raise ValueError(f"kernel drivers on interfaces the device lacks: {sorted(self.initial_drivers)}")
        self.configured_at_plug, self.kernel_driver_api, self.accessible = configured, kernel_driver_api, accessible
        self.removed, self.present, self.generation, self.address = False, shoe.plugged, 0, bus.next_address()
        self.link_seen = getattr(shoe, "link_generation", None)
        self.set_configuration_calls = 0
        self.detached: list[int] = []
        self.cleared_halts: list[int] = []
        self.fail_next_transfer: int | None = None  # a libusb code the next bulk transfer fails with
        self.handles: set[FakeHandle] = set()
        self.lock = threading.RLock()
        self.in_lock = threading.Lock()  # one bulk IN transfer at a time; never held with ``lock`` waiting
        self._reset()

    def _reset(self) -> None:
        """The host-side state of a freshly plugged device."""
        self.configuration = 1 if self.configured_at_plug else 0
        self.kernel_drivers = set(self.initial_drivers) if self.configuration else set()
        self.claims: dict[int, FakeHandle] = {}
        self.pending_in = bytearray()

    def sync(self) -> None:
        """Notice an unplug or replug of the shoe (a changed ``link_generation``, if it has one, is both)."""
        with self.lock:
            link = getattr(self.shoe, "link_generation", None)
            plugged = self.shoe.plugged and not self.removed
            if self.present and (not plugged or link != self.link_seen):
                self.present = False
                self.generation += 1
                self._reset()
            if plugged and not self.present:
                self.present = True
                self.address = self.bus.next_address()
                self._reset()
            self.link_seen = link

    def descriptor(self, address: int) -> Descriptor:
        port = self.bus.devices.index(self) + 1 if self in self.bus.devices else 0
        serial = STRING_SERIAL if self.shoe.config.serial else 0
        return device_descriptor(self.vid, self.pid, serial, address, port)

    def interface_numbers(self) -> set[int]:
        return {alts[0][0].bInterfaceNumber for alts in self.layout} if self.configuration else set()

    def string(self, index: int) -> str | None:
        return self.shoe.config.serial if index == STRING_SERIAL else self.strings.get(index)
