"""A fake USB bus: a pyusb backend presenting emulated shoes, so the USB driver runs through pyusb itself.

Give ``FakeUsbBus().backend()`` to ``usb.core.find(backend=...)``, ``open_usb(url, backend=...)`` or
``drivers.usb_transport.set_backend``. Each device is backed by an emulated shoe and acts as Linux libusb
does wherever a driver can tell: device 1209:0001, configuration 1, interface 0 of class 0xFF with bulk
OUT 0x01 and bulk IN 0x81 (64-byte packets), optionally a DFU interface 1; IndexError for a missing
alternate setting; ``USBError(strerror, libusb code, errno)`` as the libusb1 backend raises it, and
``USBTimeoutError`` (errno 110) for a read with no data; string descriptors (LANGID 0x0409 first); a
kernel driver on interface 0 that makes claiming EBUSY until detached; ``set_configuration`` counted
(on a configured device it is a light reset). Unplug: the device leaves enumeration and every call on an
old handle raises ENODEV; replug: a new address and first-plug state. Plugging is noticed at the next
backend call (or through the shoe's ``link_generation``): ``FakeUsbBus.unplug``/``replug`` never miss it.
"""

from __future__ import annotations

import array
import errno
import struct
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Protocol

import usb.backend
import usb.core

from drivers.usb_ids import INTERFACE_CLASS, PRODUCT_ID, VENDOR_ID

SHOE_OUT = 0x01
SHOE_IN = 0x81
MAX_PACKET = 64
BUS_NUMBER = 1
LANGID_EN_US = 0x0409
STRING_MANUFACTURER, STRING_PRODUCT, STRING_SERIAL = 1, 2, 3

# libusb error codes, with the strerror and errno the libusb1 backend raises them with
IO, ACCESS, NO_DEVICE, NOT_FOUND, BUSY, TIMEOUT, OVERFLOW, PIPE = -1, -3, -4, -5, -6, -7, -8, -9
LIBUSB_ERRORS: dict[int, tuple[str, int]] = {
    IO: ("Input/output error", errno.EIO), ACCESS: ("Access denied (insufficient permissions)", errno.EACCES),
    NO_DEVICE: ("No such device (it may have been disconnected)", errno.ENODEV), PIPE: ("Pipe error", errno.EPIPE),
    NOT_FOUND: ("Entity not found", errno.ENOENT), BUSY: ("Resource busy", errno.EBUSY),
    TIMEOUT: ("Operation timed out", errno.ETIMEDOUT), OVERFLOW: ("Overflow", errno.EOVERFLOW),
}  # fmt: skip


def usb_error(code: int) -> usb.core.USBError:
    """The exception the libusb1 backend raises for a libusb error code."""
    message, err = LIBUSB_ERRORS[code]
    kind = usb.core.USBTimeoutError if code == TIMEOUT else usb.core.USBError
    return kind(message, code, err)


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


class Descriptor(SimpleNamespace):
    """A USB descriptor as pyusb reads it: every standard field as an attribute, and ``extra_descriptors``."""


def _interface(number: int, cls: int, subclass: int = 0, protocol: int = 0, endpoints: int = 0) -> Descriptor:
    return Descriptor(bLength=9, bDescriptorType=4, bInterfaceNumber=number, bAlternateSetting=0, iInterface=0,
                      bNumEndpoints=endpoints, bInterfaceClass=cls, bInterfaceSubClass=subclass,
                      bInterfaceProtocol=protocol, extra_descriptors=[])  # fmt: skip


def _bulk_endpoint(address: int) -> Descriptor:
    return Descriptor(bLength=7, bDescriptorType=5, bEndpointAddress=address, bmAttributes=0x02, bInterval=0,
                      wMaxPacketSize=MAX_PACKET, bRefresh=0, bSynchAddress=0, extra_descriptors=[])  # fmt: skip


# interface index -> alternate settings -> (interface, its endpoints)
Layout = list[list[tuple[Descriptor, list[Descriptor]]]]
_SHOE_INTERFACE = (_interface(0, INTERFACE_CLASS, endpoints=2), [_bulk_endpoint(SHOE_OUT), _bulk_endpoint(SHOE_IN)])
_DFU_INTERFACE: tuple[Descriptor, list[Descriptor]] = (_interface(1, 0xFE, subclass=1, protocol=1), [])


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
        self.layout: Layout = [[_SHOE_INTERFACE], [_DFU_INTERFACE]] if dfu_interface else [[_SHOE_INTERFACE]]
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
        return Descriptor(  # speed 2 = LIBUSB_SPEED_FULL: 64-byte bulk packets
            bLength=18, bDescriptorType=1, bcdUSB=0x0200, bDeviceClass=0, bDeviceSubClass=0, bDeviceProtocol=0,
            bMaxPacketSize0=64, idVendor=self.vid, idProduct=self.pid, bcdDevice=0x0100, bNumConfigurations=1,
            iManufacturer=STRING_MANUFACTURER, iProduct=STRING_PRODUCT, iSerialNumber=serial, speed=2,
            bus=BUS_NUMBER, address=address, port_number=port, port_numbers=(port,), extra_descriptors=[],
        )  # fmt: skip

    def interface_numbers(self) -> set[int]:
        return {alts[0][0].bInterfaceNumber for alts in self.layout} if self.configuration else set()

    def string(self, index: int) -> str | None:
        return self.shoe.config.serial if index == STRING_SERIAL else self.strings.get(index)


class FakeUsbBus:
    """The emulated shoes plugged into one fake host. Thread-safe."""

    def __init__(self) -> None:
        self.devices: list[FakeUsbDevice] = []
        self._next_address = 2  # 1 is the root hub
        self._lock = threading.Lock()

    def next_address(self) -> int:
        with self._lock:
            address, self._next_address = self._next_address, self._next_address % 127 + 1
            return address

    def add(self, shoe: EmulatedShoeLike, **options: Any) -> FakeUsbDevice:
        """Plug ``shoe`` in. ``options`` are ``FakeUsbDevice``'s keyword arguments."""
        device = FakeUsbDevice(self, shoe, **options)
        self.devices.append(device)
        return device

    def device(self, shoe: EmulatedShoeLike) -> FakeUsbDevice:
        return next(d for d in self.devices if d.shoe is shoe)

    def remove(self, shoe: EmulatedShoeLike) -> None:
        """Take the device off the bus for good: old handles get ENODEV."""
        device = self.device(shoe)
        device.removed = True
        device.sync()
        self.devices.remove(device)

    def unplug(self, shoe: EmulatedShoeLike) -> None:
        shoe.unplug()
        self.device(shoe).sync()

    def replug(self, shoe: EmulatedShoeLike) -> None:
        shoe.replug()
        self.device(shoe).sync()

    def backend(self) -> FakeUsbBackend:
        return FakeUsbBackend(self)


class FakeUsbBackend(usb.backend.IBackend):  # type: ignore[misc]  # pyusb is untyped
    """The pyusb backend interface over a ``FakeUsbBus``."""

    def __init__(self, bus: FakeUsbBus) -> None:
        self.bus = bus

    # -- enumeration and descriptors (cached by libusb: they work on a stale id too)
    def enumerate_devices(self) -> list[DeviceId]:
        for device in list(self.bus.devices):
            device.sync()
        return [DeviceId(d, d.generation, d.address) for d in list(self.bus.devices) if d.present]

    def get_device_descriptor(self, dev: DeviceId) -> Descriptor:
        return dev.device.descriptor(dev.address)

    def get_configuration_descriptor(self, dev: DeviceId, config: int) -> Descriptor:
        if config != 0:
            raise usb_error(NOT_FOUND)
        layout = dev.device.layout
        total = 9 + sum(9 + 7 * len(eps) for alts in layout for _, eps in alts)
        return Descriptor(
            bLength=9, bDescriptorType=2, wTotalLength=total, bNumInterfaces=len(layout), bConfigurationValue=1,
            iConfiguration=0, bmAttributes=0x80, bMaxPower=50, extra_descriptors=[],  # bus powered, 100 mA
        )  # fmt: skip

    def get_interface_descriptor(self, dev: DeviceId, intf: int, alt: int, config: int) -> Descriptor:
        self.get_configuration_descriptor(dev, config)
        layout = dev.device.layout
        if intf >= len(layout):
            raise IndexError(f"Invalid interface index {intf}")
        if alt >= len(layout[intf]):  # pyusb stops iterating alternate settings on this
            raise IndexError(f"Invalid alternate setting index {alt}")
        return layout[intf][alt][0]

    def get_endpoint_descriptor(self, dev: DeviceId, ep: int, intf: int, alt: int, config: int) -> Descriptor:
        self.get_interface_descriptor(dev, intf, alt, config)
        endpoints = dev.device.layout[intf][alt][1]
        if ep >= len(endpoints):
            raise IndexError(f"Invalid endpoint index {ep}")
        return endpoints[ep]

    # -- handles and configuration
    def _alive(self, handle: FakeHandle) -> FakeUsbDevice:
        device = handle.device
        device.sync()
        if handle.closed:
            raise usb_error(IO)
        if not device.present or handle.generation != device.generation:
            raise usb_error(NO_DEVICE)
        return device

    def open_device(self, dev: DeviceId) -> FakeHandle:
        handle = FakeHandle(dev.device, dev.generation)
        device = self._alive(handle)  # ENODEV for an id from before an unplug
        if not device.accessible:
            raise usb_error(ACCESS)
        with device.lock:
            device.handles.add(handle)
        return handle

    def close_device(self, dev_handle: FakeHandle) -> None:
        device = dev_handle.device
        with device.lock:
            for number in [n for n, h in device.claims.items() if h is dev_handle]:
                del device.claims[number]
            device.handles.discard(dev_handle)
        dev_handle.closed = True

    def set_configuration(self, dev_handle: FakeHandle, config_value: int) -> None:
        device = self._alive(dev_handle)
        with device.lock:
            if config_value not in (0, 1):
                raise usb_error(NOT_FOUND)
            if device.claims or device.kernel_drivers:
                raise usb_error(BUSY)
            device.set_configuration_calls += 1
            device.configuration = config_value
            device.kernel_drivers = set(device.initial_drivers) if config_value else set()
            device.pending_in.clear()

    def get_configuration(self, dev_handle: FakeHandle) -> int:
        return self._alive(dev_handle).configuration

    def claim_interface(self, dev_handle: FakeHandle, intf: int) -> None:
        device = self._alive(dev_handle)
        with device.lock:
            if intf not in device.interface_numbers():
                raise usb_error(NOT_FOUND)
            if intf in device.kernel_drivers or device.claims.get(intf, dev_handle) is not dev_handle:
                raise usb_error(BUSY)
            device.claims[intf] = dev_handle

    def release_interface(self, dev_handle: FakeHandle, intf: int) -> None:
        device = self._alive(dev_handle)
        with device.lock:
            if device.claims.get(intf) is not dev_handle:
                raise usb_error(NOT_FOUND)
            del device.claims[intf]

    # -- kernel drivers (Linux only: off it, libusb reports "not supported")
    def _driver_interface(self, dev_handle: FakeHandle, intf: int) -> FakeUsbDevice:
        device = self._alive(dev_handle)
        if not device.kernel_driver_api:
            raise NotImplementedError("Operation not supported or unimplemented on this platform")
        if intf not in device.interface_numbers():
            raise usb_error(NOT_FOUND)
        return device

    def is_kernel_driver_active(self, dev_handle: FakeHandle, intf: int) -> bool:
        return intf in self._driver_interface(dev_handle, intf).kernel_drivers

    def detach_kernel_driver(self, dev_handle: FakeHandle, intf: int) -> None:
        device = self._driver_interface(dev_handle, intf)
        with device.lock:
            if intf not in device.kernel_drivers:
                raise usb_error(NOT_FOUND)
            device.kernel_drivers.discard(intf)
            device.detached.append(intf)

    def attach_kernel_driver(self, dev_handle: FakeHandle, intf: int) -> None:
        device = self._driver_interface(dev_handle, intf)
        with device.lock:
            if intf in device.kernel_drivers or intf in device.claims:
                raise usb_error(BUSY)
            device.kernel_drivers.add(intf)

    # -- transfers
    def _transfer_check(self, dev_handle: FakeHandle, ep: int, want_ep: int, intf: int, timeout: int) -> FakeUsbDevice:
        device = self._alive(dev_handle)
        if timeout <= 0:
            raise ValueError("timeout 0 makes libusb wait forever; the fake refuses it")
        if ep != want_ep or device.claims.get(intf) is not dev_handle:
            raise usb_error(NOT_FOUND)
        code, device.fail_next_transfer = device.fail_next_transfer, None
        if code is not None:
            raise usb_error(code)
        return device

    def _gone(self, dev_handle: FakeHandle, exc: OSError) -> usb.core.USBError:
        self._alive(dev_handle)  # raises ENODEV when the shoe went away
        return usb_error(NO_DEVICE if exc.errno == errno.ENODEV else IO)

    def bulk_write(self, dev_handle: FakeHandle, ep: int, intf: int, data: array.array[int], timeout: int) -> int:
        device = self._transfer_check(dev_handle, ep, SHOE_OUT, intf, timeout)
        try:
            device.shoe.host_write(data.tobytes())
        except OSError as exc:  # the emulator's EmulatorUnplugged (errno ENODEV)
            raise self._gone(dev_handle, exc) from exc
        return len(data)

    def bulk_read(self, dev_handle: FakeHandle, ep: int, intf: int, buff: array.array[int], timeout: int) -> int:
        device = self._transfer_check(dev_handle, ep, SHOE_IN, intf, timeout)
        with device.in_lock:
            pending = device.pending_in
            if not pending:
                try:
                    pending += device.shoe.host_read(timeout / 1000)
                except OSError as exc:
                    raise self._gone(dev_handle, exc) from exc
                self._alive(dev_handle)  # unplugged while waiting: the data is lost with the device
            if not pending:
                raise usb_error(TIMEOUT)
            if len(pending) > len(buff) and len(buff) % MAX_PACKET:
                raise usb_error(OVERFLOW)  # a full packet does not fit the buffer's tail
            count = min(len(pending), len(buff))
            buff[:count] = array.array("B", pending[:count])
            del pending[:count]
            return count

    def ctrl_transfer(  # noqa: PLR0917 - pyusb's signature
        self, dev_handle: FakeHandle, bmRequestType: int, bRequest: int, wValue: int, wIndex: int,  # noqa: N803
        data: array.array[int], timeout: int,
    ) -> int:  # fmt: skip
        device = self._alive(dev_handle)
        kind, index = wValue >> 8, wValue & 0xFF
        if bmRequestType != 0x80 or bRequest != 0x06:  # only GET_DESCRIPTOR (of strings) is answered
            raise usb_error(PIPE)
        if kind == 3 and index == 0:
            reply = struct.pack("<BBH", 4, 3, LANGID_EN_US)
        elif kind == 3 and wIndex == LANGID_EN_US and (text := device.string(index)):
            encoded = text.encode("utf-16-le")[:253]
            reply = bytes([2 + len(encoded), 3]) + encoded
        else:
            raise usb_error(PIPE)  # the device stalls a request it cannot answer
        count = min(len(reply), len(data))
        data[:count] = array.array("B", reply[:count])
        return count

    def clear_halt(self, dev_handle: FakeHandle, ep: int) -> None:
        self._alive(dev_handle).cleared_halts.append(ep)
