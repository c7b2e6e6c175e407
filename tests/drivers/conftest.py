"""Backends for the driver contract suite: the same emulated shoe reached four ways.

- ``emu``: in-process transport;
- ``pty``: a real pseudo-terminal opened by real pyserial;
- ``tcp``: pyserial's ``socket://`` handler to a TCP server;
- ``usb``: pyusb itself, over a fake backend. The fake backend stands in for a physical USB bus, the one
  part that cannot exist on a CI machine.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from drivers.client import ShoeClient
from drivers.emu_transport import EmulatorTransport
from drivers.emulator import EmulatedShoe, EmulatorConfig, serve_pty, serve_tcp
from drivers.notices import Notice
from drivers.serial_transport import SerialTransport
from drivers.timeouts import LinkTimeouts
from drivers.transport import Transport
from protocols import messages as m

BACKENDS = ["emu", "pty", "tcp", "usb"]
FAST = LinkTimeouts(reply=0.3, retries=3, dispense_base=1.0, dispense_per_card=1.0,
                    reconnect_initial=0.02, reconnect_max=0.2, reconnect_give_up=10.0, read_poll=0.05)  # fmt: skip


@dataclass
class Rig:
    """A client connected to an emulated shoe, plus what the test needs to inspect it."""

    shoe: EmulatedShoe
    client: ShoeClient
    received: list[m.Event | Notice] = field(default_factory=list)

    def events(self, kind: type[Any]) -> list[Any]:
        return [e for e in self.received if isinstance(e, kind)]


def _usb_transport(shoe: EmulatedShoe) -> tuple[Transport, Callable[[], None]]:
    from drivers.emulator.fake_usb import FakeUsbBus
    from drivers.usb_transport import open_usb

    bus = FakeUsbBus()
    bus.add(shoe)
    return open_usb(f"usb://1209:0001/{shoe.config.serial}", backend=bus.backend()), lambda: None


def make_transport(kind: str, shoe: EmulatedShoe) -> tuple[Transport, Callable[[], None]]:
    if kind == "emu":
        return EmulatorTransport(shoe), lambda: None
    if kind == "pty":
        # A replugged shoe gets whichever /dev/pts number is free then, so the host opens a stable
        # symlink, as udev gives a real shoe; the bare slave path would name another test's terminal.
        folder = Path(tempfile.mkdtemp(prefix="shoe-pty-"))
        server = serve_pty(shoe, link=str(folder / "shoe"))

        def stop() -> None:
            server.close()
            shutil.rmtree(folder, ignore_errors=True)

        return SerialTransport(str(folder / "shoe")), stop
    if kind == "tcp":
        tcp = serve_tcp(shoe, "127.0.0.1", 0)
        host, port = tcp.address
        return SerialTransport(f"socket://{host}:{port}"), tcp.close
    if kind == "usb":
        return _usb_transport(shoe)
    raise AssertionError(kind)


@pytest.fixture
def rig_factory() -> Iterator[Callable[..., Rig]]:
    """Build rigs; every channel they open is closed at the end (a leaked one fails the next test)."""
    cleanups: list[Callable[[], None]] = []

    def build(kind: str = "emu", timeouts: LinkTimeouts = FAST, **config: Any) -> Rig:
        shoe = EmulatedShoe(EmulatorConfig(**config))
        transport, stop = make_transport(kind, shoe)
        client = ShoeClient(transport, timeouts=timeouts)
        rig = Rig(shoe, client)
        client.subscribe(rig.received.append)
        cleanups.extend([shoe.close, stop, client.close])
        client.connect()
        return rig

    yield build
    for cleanup in reversed(cleanups):
        cleanup()


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)
