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

The descriptors live in ``fake_usb_descriptors`` and a device's host-side state in ``fake_usb_device``;
their names are re-exported here.
"""

from __future__ import annotations

import array
import errno
import struct
import threading
from typing import Any

import usb.backend
import usb.core

from drivers.emulator.fake_usb_descriptors import (
    BUS_NUMBER,
    LANGID_EN_US,
    MAX_PACKET,
    SHOE_IN,
    SHOE_OUT,
    STRING_MANUFACTURER,
    STRING_PRODUCT,
    STRING_SERIAL,
    Descriptor,
    Layout,
    configuration_descriptor,
)
from drivers.emulator.fake_usb_device import DeviceId, EmulatedShoeLike, FakeHandle, FakeUsbDevice, ShoeConfigLike

__all__ = [
    "ACCESS",
    "BUSY",
    "BUS_NUMBER",
    "IO",
    "LANGID_EN_US",
    "LIBUSB_ERRORS",
    "MAX_PACKET",
    "NOT_FOUND",
    "NO_DEVICE",
    "OVERFLOW",
    "PIPE",
    "SHOE_IN",
    "SHOE_OUT",
    "STRING_MANUFACTURER",
    "STRING_PRODUCT",
    "STRING_SERIAL",
    "TIMEOUT",
    "Descriptor",
    "DeviceId",
    "EmulatedShoeLike",
    "FakeHandle",
    "FakeUsbBackend",
    "FakeUsbBus",
    "FakeUsbDevice",
    "Layout",
    "ShoeConfigLike",
    "usb_error",
]

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
        return configuration_descriptor(dev.device.layout)

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
