"""What the USB transport tests share: a loopback shoe for the fake bus, a read helper, the URL.

The ``bus`` fixture is in ``conftest.py``. These modules are the package ``tests.usb`` (there is a
``tests/__init__.py``): a top-level package named ``usb`` would hide pyusb.
"""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace
from typing import Any

URL = "usb://1209:0001"


class LoopbackShoe:
    """A stand-in shoe that echoes every byte the host writes."""

    def __init__(self, serial: str = "LOOP0001") -> None:
        self.config = SimpleNamespace(serial=serial)
        self.plugged = True
        self._buffer = bytearray()
        self._cond = threading.Condition()

    def host_write(self, data: bytes) -> None:
        with self._cond:
            self._buffer += data
            self._cond.notify_all()

    def host_read(self, timeout: float) -> bytes:
        with self._cond:
            self._cond.wait_for(lambda: self._buffer, timeout)
            data = bytes(self._buffer)
            self._buffer.clear()
            return data

    def unplug(self) -> None:
        self.plugged = False
        self._buffer.clear()

    def replug(self) -> None:
        self.plugged = True


def read_all(transport: Any, size: int, timeout: float = 2.0) -> bytes:
    data = b""
    deadline = time.monotonic() + timeout
    while len(data) < size and time.monotonic() < deadline:
        data += transport.read(0.1)
    return data
