"""The USB link: the shoe's vendor bulk interface through pyusb (SPEC.md §1).

Port URL: ``usb://VID:PID[/SERIAL]``, hex ids (``usb://1209:0001/EMU0001``); ``usb://`` or ``usb:///SERIAL``
uses the ids of ``drivers.usb_ids``. Parsing it, the libusb backend and finding the device are
``drivers.usb_discovery`` (its public names are re-exported here). The pyusb traps of driver-notes.md,
and how the link meets them:

- kernel drivers are detached from every interface before claiming (``NotImplementedError`` off Linux is
  fine) and re-attached on ``close()``;
- the configuration is set only on an unconfigured device: on a configured one it is a light reset;
- ``USBTimeoutError`` on a read is "no data yet": ``b""``; no call gets 0 ms, which libusb reads as
  "forever"; reads ask for a multiple of the max packet size (a smaller buffer can overflow);
- after an unplug (errno 19) the ``Device`` is dead: ``ShoeIOError`` from then on; a new ``open_usb``
  runs ``find()`` again.

No libusb call blocks longer than ``POLL_S``, so ``close()`` ends a blocked ``read`` or ``write`` soon.
"""

from __future__ import annotations

import contextlib
import errno
import math
import threading
import time
from typing import Any

import structlog
import usb.core
import usb.util

from drivers.errors import ShoeInitError, ShoeIOError
from drivers.transport import Transport
from drivers.usb_discovery import (
    UsbShoeInfo,
    UsbTarget,
    dispose_quietly,
    find_device,
    list_usb_shoes,
    parse_usb_url,
    resolve_backend,
    set_backend,
    unavailable,
    usb_url,
)
from drivers.usb_ids import INTERFACE_CLASS

__all__ = [
    "POLL_S",
    "READ_SIZE",
    "WRITE_TIMEOUT_S",
    "UsbShoeInfo",
    "UsbTarget",
    "UsbTransport",
    "list_usb_shoes",
    "open_usb",
    "parse_usb_url",
    "set_backend",
    "usb_url",
]

log = structlog.get_logger(__name__)

READ_SIZE = 2048  # bytes asked per bulk read, rounded up to a multiple of the max packet size
POLL_S = 0.1  # the longest one libusb call may block
WRITE_TIMEOUT_S = 2.0  # a shoe that accepts no byte for this long has a dead link (``write_timeout``)


def _ms(seconds: float) -> int:
    """A libusb timeout in ms: at least 1, because 0 means "wait forever"."""
    return max(1, math.ceil(seconds * 1000))


def _bulk_endpoint(intf: Any, direction: int) -> Any:
    def match(ep: Any) -> bool:
        return bool(
            usb.util.endpoint_direction(ep.bEndpointAddress) == direction
            and usb.util.endpoint_type(ep.bmAttributes) == usb.util.ENDPOINT_TYPE_BULK
        )

    return usb.util.find_descriptor(intf, custom_match=match)


def _is_shoe_interface(intf: Any) -> bool:
    return bool(
        intf.bInterfaceClass == INTERFACE_CLASS
        and _bulk_endpoint(intf, usb.util.ENDPOINT_OUT) is not None
        and _bulk_endpoint(intf, usb.util.ENDPOINT_IN) is not None
    )


def _active_configuration(dev: Any) -> Any:
    """The active configuration, or None when the device is unconfigured (pyusb raises without errno)."""
    try:
        return dev.get_active_configuration()
    except usb.core.USBError as exc:
        if exc.errno is None:  # "Configuration not set"
            return None
        raise


def _reattach(dev: Any, interfaces: list[int]) -> None:
    for number in interfaces:
        with contextlib.suppress(usb.core.USBError, NotImplementedError):
            dev.attach_kernel_driver(number)


def _bring_up(dev: Any, target: UsbTarget) -> tuple[int, Any, Any, list[int]]:
    """Configure (only if unconfigured), detach kernel drivers from every interface, claim the shoe's.

    Returns the interface number, the OUT and IN endpoints and the interfaces whose driver was detached.
    """
    detached: list[int] = []
    try:
        cfg = _active_configuration(dev)
        if cfg is None:  # nothing can be bound to an unconfigured device's interfaces
            dev.set_configuration()
            cfg = dev.get_active_configuration()
        for number in sorted({int(intf.bInterfaceNumber) for intf in cfg}):
            try:
                if dev.is_kernel_driver_active(number):
                    dev.detach_kernel_driver(number)
                    detached.append(number)
            except NotImplementedError:  # macOS, Windows: no kernel driver API
                break
        intf = usb.util.find_descriptor(cfg, custom_match=_is_shoe_interface)
        if intf is None:
            raise ShoeInitError(
                f"USB device {target} has no vendor interface (class {INTERFACE_CLASS:#04x}) with bulk "
                "IN and OUT endpoints",
                hint="this is not a shoe, or its firmware is not the one SPEC.md §1 describes",
            )
        number = int(intf.bInterfaceNumber)
        usb.util.claim_interface(dev, number)
        if intf.bAlternateSetting:
            dev.set_interface_altsetting(number, intf.bAlternateSetting)
        return number, _bulk_endpoint(intf, usb.util.ENDPOINT_OUT), _bulk_endpoint(intf, usb.util.ENDPOINT_IN), detached
    except BaseException as exc:
        _reattach(dev, detached)
        if isinstance(exc, usb.core.USBError):
            raise unavailable(exc, target, "opening") from exc
        raise


class UsbTransport(Transport):
    """A claimed vendor bulk interface. Built by ``open_usb``."""

    def __init__(self, url: str, dev: Any, *, interface: int, ep_out: Any, ep_in: Any, detached: list[int]) -> None:
        self.url, self.write_timeout = url, WRITE_TIMEOUT_S
        self.bus: int | None = dev.bus
        self.address: int | None = dev.address
        self._dev, self._interface, self._detached = dev, interface, detached
        self._out, self._in = int(ep_out.bEndpointAddress), int(ep_in.bEndpointAddress)
        packet = int(ep_in.wMaxPacketSize) & 0x7FF or 64
        self._read_size = math.ceil(READ_SIZE / packet) * packet
        self._lost: str | None = None  # why the link died; the Device object is dead from then on
        self._closed = threading.Event()
        self._close_lock, self._read_lock, self._write_lock = threading.Lock(), threading.Lock(), threading.Lock()

    def __enter__(self) -> UsbTransport:
        return self

    def __repr__(self) -> str:
        state = "closed" if self._closed.is_set() else ("lost" if self._lost else "open")
        return f"<UsbTransport {self.url} bus {self.bus} address {self.address} {state}>"

    def _check_usable(self) -> None:
        if self._closed.is_set():
            raise ShoeIOError(f"{self.url}: the USB transport is closed")
        if self._lost is not None:
            raise ShoeIOError(f"{self.url}: USB link lost ({self._lost}); open the port again")

    def _link_lost(self, doing: str, endpoint: int, exc: usb.core.USBError) -> ShoeIOError:
        if exc.errno == errno.EPIPE:  # a stalled endpoint stays stalled across a reopen: clear it now
            with contextlib.suppress(usb.core.USBError, NotImplementedError):
                self._dev.clear_halt(endpoint)
        why = "the shoe was unplugged or reset" if exc.errno == errno.ENODEV else str(exc)
        self._lost = f"{doing}: {why}"
        log.warning("usb_link_lost", url=self.url, doing=doing, errno=exc.errno, error=str(exc))
        return ShoeIOError(f"{self.url}: USB link lost during {doing}: {why}")

    def read(self, timeout: float) -> bytes:
        deadline = time.monotonic() + max(timeout, 0.0)
        with self._read_lock:
            self._check_usable()
            while True:
                wait = min(deadline - time.monotonic(), POLL_S)
                try:
                    data = self._dev.read(self._in, self._read_size, _ms(wait))
                except usb.core.USBTimeoutError:  # no data yet
                    data = None
                except usb.core.USBError as exc:
                    raise self._link_lost("bulk read", self._in, exc) from exc
                if data:
                    return bytes(data)
                if self._closed.is_set() or time.monotonic() >= deadline:
                    return b""

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        with self._write_lock:
            self._check_usable()
            deadline = time.monotonic() + self.write_timeout
            sent = 0
            while sent < len(view):
                if self._closed.is_set():
                    raise ShoeIOError(f"{self.url}: the USB transport was closed during a write")
                left = deadline - time.monotonic()
                if left <= 0:  # maybe a partial frame went out: the stream needs a reopen and resync
                    self._lost = f"bulk write stalled after {sent} of {len(view)} bytes"
                    raise ShoeIOError(f"{self.url}: the shoe accepted no byte for {self.write_timeout} s")
                try:
                    count = int(self._dev.write(self._out, view[sent:].tobytes(), _ms(min(left, POLL_S))))
                except usb.core.USBTimeoutError:  # libusb1 reports a partial transfer as a count
                    continue
                except usb.core.USBError as exc:
                    raise self._link_lost("bulk write", self._out, exc) from exc
                if count:
                    sent += count
                    deadline = time.monotonic() + self.write_timeout

    def close(self) -> None:
        with self._close_lock:
            if self._closed.is_set():
                return
            self._closed.set()
        # A blocked read or write notices the flag within POLL_S and lets go of its lock.
        with self._read_lock, self._write_lock:
            with contextlib.suppress(usb.core.USBError):
                usb.util.release_interface(self._dev, self._interface)
            if self._lost is None:
                _reattach(self._dev, self._detached)
            dispose_quietly(self._dev)
        log.info("usb_closed", url=self.url)


def open_usb(url: str, *, backend: object | None = None) -> UsbTransport:
    """Open the shoe a ``usb://`` URL names. Raises ``ShoeUnavailable`` or ``ShoeInitError``."""
    target = parse_usb_url(url)
    dev = find_device(target, resolve_backend(backend))
    try:
        interface, ep_out, ep_in, detached = _bring_up(dev, target)
    except BaseException:
        dispose_quietly(dev)
        raise
    transport = UsbTransport(url, dev, interface=interface, ep_out=ep_out, ep_in=ep_in, detached=detached)
    log.info("usb_opened", url=url, bus=transport.bus, address=transport.address, detached=detached)
    return transport
