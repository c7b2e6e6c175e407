"""Finding USB shoes: ``usb://`` URLs, the libusb backend, enumeration and serials (SPEC.md §1).

Port URL: ``usb://VID:PID[/SERIAL]``, hex ids (``usb://1209:0001/EMU0001``); ``usb://`` or ``usb:///SERIAL``
uses the ids of ``drivers.usb_ids``. The pyusb traps of driver-notes.md met here:

- the libusb backend is looked up once and given to every ``find()`` (``set_backend`` swaps it);
- a serial is read with an explicit LANGID, so a permission error keeps its errno (13: the udev hint);
- every device looked at but not chosen has its resources released.

``drivers.usb_transport`` opens what ``find_device`` finds and re-exports the public names here.
"""

from __future__ import annotations

import contextlib
import errno
import re
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import usb.backend.libusb1
import usb.core
import usb.util

from drivers.errors import BadPort, ShoeUnavailable
from drivers.usb_ids import PRODUCT_ID, VENDOR_ID

LIBUSB_HINT = "install libusb 1.0: on Debian/Ubuntu `sudo apt install libusb-1.0-0`; PYUSB_DEBUG=debug says more"
UDEV_HINT = (
    "this user may not open the shoe's USB device: install the shoe's udev rule (it gives the device "
    "to the shoe operators' group), add this user to that group, log in again and replug the shoe"
)
BUSY_HINT = (
    "another program holds the shoe's USB interface: stop any other controller or shoectl using it "
    "(a second process cannot claim the same interface)"
)
NOT_FOUND_HINT = (
    "check the shoe is powered and its cable plugged in (lsusb should list it), the serial in the URL, and "
    "that the shoe's udev rules are installed; shoectl devices lists the USB shoes this computer sees, "
    "with their serials; in a container or VM, pass the USB device through"
)

_URL_IDS = re.compile(r"([0-9a-fA-F]{1,4}):([0-9a-fA-F]{1,4})")

_backend_lock = threading.Lock()
_cached_backend: object | None = None


def set_backend(backend: object | None) -> None:
    """Use ``backend`` (any pyusb backend) for every later open; ``None`` looks libusb up again."""
    global _cached_backend  # noqa: PLW0603 - the one process-wide backend is the point
    with _backend_lock:
        _cached_backend = backend


def resolve_backend(backend: object | None) -> object:
    """``backend`` if given, else the process-wide one (libusb 1.0, looked up on first use)."""
    global _cached_backend  # noqa: PLW0603
    if backend is not None:
        return backend
    with _backend_lock:
        if _cached_backend is None:
            _cached_backend = usb.backend.libusb1.get_backend()
            if _cached_backend is None:
                raise ShoeUnavailable("libusb 1.0 was not found, so no USB shoe can be opened", hint=LIBUSB_HINT)
        return _cached_backend


@dataclass(frozen=True, slots=True)
class UsbTarget:
    """What a ``usb://`` URL asks for."""

    vid: int = VENDOR_ID
    pid: int = PRODUCT_ID
    serial: str | None = None

    def __str__(self) -> str:
        ids = f"{self.vid:04x}:{self.pid:04x}"
        return f"{ids} with serial {self.serial!r}" if self.serial else ids


@dataclass(frozen=True, slots=True)
class UsbShoeInfo:
    """One shoe on the bus, for ``shoectl devices``. ``problem`` says why the serial is unknown."""

    vid: int
    pid: int
    serial: str | None
    bus: int | None
    address: int | None
    url: str
    problem: str | None = None


def usb_url(vid: int = VENDOR_ID, pid: int = PRODUCT_ID, serial: str | None = None) -> str:
    base = f"usb://{vid:04x}:{pid:04x}"
    return f"{base}/{quote(serial, safe='')}" if serial else base


def parse_usb_url(url: str) -> UsbTarget:
    """``usb://VID:PID[/SERIAL]`` (hex ids) or ``usb://[/SERIAL]`` (default ids) as a ``UsbTarget``."""
    bad = BadPort(
        f"port {url!r} is not a USB shoe URL",
        hint="write usb://VID:PID/SERIAL with hex ids (usb://1209:0001/EMU0001), or usb:// for the default ids",
    )
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise bad from exc
    raw_serial = parts.path[1:] if parts.path.startswith("/") else parts.path
    if parts.scheme.lower() != "usb" or parts.query or parts.fragment or "/" in raw_serial:
        raise bad
    serial = unquote(raw_serial) or None
    if not parts.netloc:
        return UsbTarget(serial=serial)
    ids = _URL_IDS.fullmatch(parts.netloc)
    if ids is None:
        raise bad
    return UsbTarget(int(ids[1], 16), int(ids[2], 16), serial)


def _read_serial(dev: Any) -> str | None:
    """The serial string; raises ``USBError`` (errno 13 without permission) when it cannot be read."""
    index = int(dev.iSerialNumber)
    if index == 0:
        return None
    langids = usb.util.get_langids(dev)  # Device.langids would hide the errno behind a ValueError
    if not langids:
        return None
    return str(usb.util.get_string(dev, index, langids[0]))


def dispose_quietly(dev: Any) -> None:
    """Release what pyusb holds for ``dev``; a device already gone is fine."""
    with contextlib.suppress(usb.core.USBError):
        usb.util.dispose_resources(dev)


def unavailable(exc: usb.core.USBError, target: UsbTarget, doing: str) -> ShoeUnavailable:
    """``exc`` (raised while ``doing`` something to the target) as a ``ShoeUnavailable`` with a hint."""
    code = exc.errno
    if code == errno.EACCES:
        return ShoeUnavailable(f"permission denied {doing} USB shoe {target}: {exc}", hint=UDEV_HINT)
    if code == errno.EBUSY:
        return ShoeUnavailable(f"USB shoe {target} is busy ({doing}): {exc}", hint=BUSY_HINT)
    if code == errno.ENODEV:
        return ShoeUnavailable(f"USB shoe {target} disappeared while {doing} it: {exc}", hint=NOT_FOUND_HINT)
    return ShoeUnavailable(f"USB shoe {target}: {doing} failed: {exc}")


def find_device(target: UsbTarget, backend: object) -> Any:
    """The one device the target names, with its resources released if anything else was looked at."""
    try:
        found = list(usb.core.find(find_all=True, backend=backend, idVendor=target.vid, idProduct=target.pid))
    except usb.core.USBError as exc:
        raise unavailable(exc, target, "enumerating") from exc
    not_found = ShoeUnavailable(f"no USB shoe {target} found", hint=NOT_FOUND_HINT)
    if target.serial is None and len(found) < 2:
        if found:
            return found[0]
        raise not_found
    if target.serial is None:
        serials = ", ".join(str(info.serial or "?") for info in _describe(found, target.vid, target.pid))
        raise ShoeUnavailable(
            f"{len(found)} USB shoes {target} are plugged in (serials {serials}); which one?",
            hint=f"name one by serial: {usb_url(target.vid, target.pid, 'SERIAL')} (shoectl devices lists them)",
        )
    chosen: Any = None
    error: usb.core.USBError | None = None
    for dev in found:
        try:
            serial = _read_serial(dev)
        except (usb.core.USBError, ValueError) as exc:
            serial = None
            if isinstance(exc, usb.core.USBError) and error is None:
                error = exc
        if chosen is None and serial == target.serial:
            chosen = dev
        else:
            dispose_quietly(dev)
    if chosen is not None:
        return chosen
    if error is not None:  # a shoe we could not ask for its serial may well be the one
        raise unavailable(error, target, "reading the serial of") from error
    raise not_found


def _describe(devices: list[Any], vid: int, pid: int) -> list[UsbShoeInfo]:
    shoes: list[UsbShoeInfo] = []
    for dev in devices:
        serial, problem = None, None
        try:
            serial = _read_serial(dev)
        except usb.core.USBError as exc:
            problem = "no permission to read it: " + UDEV_HINT if exc.errno == errno.EACCES else str(exc)
        except ValueError as exc:
            problem = f"unreadable serial: {exc}"
        finally:
            dispose_quietly(dev)
        shoes.append(UsbShoeInfo(vid, pid, serial, dev.bus, dev.address, usb_url(vid, pid, serial), problem))
    return shoes


def list_usb_shoes(backend: object | None = None, *, vid: int = VENDOR_ID, pid: int = PRODUCT_ID) -> list[UsbShoeInfo]:
    """Every shoe with these ids on the bus (``shoectl devices``). Opens none of them for I/O."""
    try:
        found = list(usb.core.find(find_all=True, backend=resolve_backend(backend), idVendor=vid, idProduct=pid))
    except usb.core.USBError as exc:
        raise ShoeUnavailable(f"cannot enumerate USB devices: {exc}") from exc
    return _describe(found, vid, pid)
