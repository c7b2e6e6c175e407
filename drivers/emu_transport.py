"""``emu://?seed=7`` and ``emu://?deck=AsKd...``: the software shoe emulator, in this process.

The same bytes flow as on a wire (framing, CRC, impairments), only without a device file. Reopening
(after a simulated unplug) reaches the same emulated shoe, as replugging a cable reaches the same
physical shoe.
"""

from __future__ import annotations

import threading
from urllib.parse import urlsplit

from drivers.emulator import EmulatedShoe, EmulatorConfig, EmulatorUnplugged
from drivers.errors import BadPort, ShoeIOError, ShoeUnavailable
from drivers.transport import Transport, redact_port


class EmulatorTransport(Transport):
    """A transport over an in-process ``EmulatedShoe``; closes the shoe only if it owns it."""

    def __init__(self, shoe: EmulatedShoe, *, url: str = "emu://", owns_shoe: bool = False) -> None:
        self.url = redact_port(url)  # for messages only (reopen reuses the shoe): its options are the deck
        self.shoe = shoe
        self._owns_shoe = owns_shoe
        self._closed = threading.Event()
        if not shoe.plugged:
            raise ShoeUnavailable(f"{url}: the emulated shoe is unplugged", hint="replug it, then retry")

    def write(self, data: bytes) -> None:
        if self._closed.is_set():
            raise ShoeIOError(f"{self.url} is closed")
        try:
            self.shoe.host_write(data)
        except EmulatorUnplugged as exc:
            raise ShoeIOError(f"{self.url}: link lost ({exc})") from exc

    def read(self, timeout: float) -> bytes:
        if self._closed.is_set():
            return b""
        try:
            return self.shoe.host_read(timeout)
        except EmulatorUnplugged as exc:
            if self._closed.is_set():
                return b""
            raise ShoeIOError(f"{self.url}: link lost ({exc})") from exc

    def reopen(self) -> Transport:
        """A new transport to the same shoe; ownership passes to it."""
        fresh = EmulatorTransport(self.shoe, url=self.url, owns_shoe=self._owns_shoe)
        self._owns_shoe = False
        return fresh

    def close(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        if self._owns_shoe:
            self.shoe.close()


def emulator_config(url: str) -> EmulatorConfig:
    """The emulator options of an ``emu://`` URL, or ``BadPort`` naming the option at fault."""
    try:
        return EmulatorConfig.from_query(urlsplit(url).query)
    except ValueError as exc:
        raise BadPort(f"port {redact_port(url)!r}: {exc}", hint="see shoectl emulate --help for the options") from exc


def open_emulator(url: str) -> Transport:
    return EmulatorTransport(EmulatedShoe(emulator_config(url)), url=url, owns_shoe=True)
