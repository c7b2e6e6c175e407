"""The emulator as a device: a pseudo-terminal opened by real pyserial, and TCP through ``socket://``."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import serial

from drivers.emulator import EmulatedShoe, EmulatorConfig, serve_pty, serve_tcp
from protocols import codec
from protocols import messages as m
from protocols.codes import DispensePhase
from protocols.framing import Deframer, Frame
from tests.emulator import DECK


class SerialHost:
    """Requests over a pyserial port; events are collected on the way."""

    def __init__(self, port: Any) -> None:  # a serial.Serial or a socket:// port
        self.port = port
        self.deframer = Deframer()
        self.seq = 0
        self.events: list[m.Event] = []

    def call(self, message: m.Message, timeout: float = 2.0) -> m.Message:
        self.seq += 1
        self.port.write(b"\x00" + codec.encode(message, self.seq))
        deadline = time.monotonic() + timeout
        reply: m.Message | None = None
        while reply is None and time.monotonic() < deadline:
            for item in self.deframer.feed(self.port.read(max(1, self.port.in_waiting))):
                if not isinstance(item, Frame):
                    continue
                decoded = codec.decode(item)
                if isinstance(decoded, m.Event):
                    self.events.append(decoded)
                elif item.seq == self.seq:
                    reply = decoded
        if reply is None:
            raise AssertionError(f"no reply to {message!r}")
        return reply


@pytest.fixture
def shoe() -> Iterator[EmulatedShoe]:
    emulated = EmulatedShoe(EmulatorConfig(deck=DECK))
    yield emulated
    emulated.close()


def wait_for(predicate: object, timeout: float = 2.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_pty_round_trip_with_real_pyserial(shoe: EmulatedShoe) -> None:
    with serve_pty(shoe) as server, serial.Serial(server.path, timeout=0.2) as port:
        host = SerialHost(port)
        identity = host.call(m.Identify())
        assert isinstance(identity, m.Identity) and identity.boot_id == shoe.boot_id
        report = host.call(m.Dispense(1, 2))
        assert isinstance(report, m.DispenseReport) and report.phase is DispensePhase.STARTED and report.positioned
        while len(host.events) < 4:  # CARD_READ x2, STACK_READY, STACK_TAKEN
            assert isinstance(host.call(m.GetStatus()), m.Status)
        assert [e.read.card for e in host.events if isinstance(e, m.CardReadEvent)][:2] == ["As", "Kd"]


def test_pty_client_may_close_and_reopen_without_an_unplug(shoe: EmulatedShoe) -> None:
    with serve_pty(shoe) as server:
        for _ in range(2):
            with serial.Serial(server.path, timeout=0.2) as port:
                assert isinstance(SerialHost(port).call(m.GetStatus()), m.Status)
        assert shoe.link_generation == 0


def test_pty_unplug_is_a_link_error_and_replug_comes_back_at_the_symlink(shoe: EmulatedShoe, tmp_path: Path) -> None:
    link = tmp_path / "shoe0"
    with serve_pty(shoe, link=str(link)) as server:
        assert os.readlink(link) == server.path
        port = serial.Serial(str(link), timeout=0.5)
        host = SerialHost(port)
        assert host.call(m.Dispense(1, 2)).phase is DispensePhase.STARTED  # type: ignore[attr-defined]
        shoe.unplug()
        with pytest.raises(serial.SerialException):
            for _ in range(20):  # the master is closed: the reader sees the pulled-adapter error
                port.read(1)
        port.close()
        # like a udev by-id link, gone while unplugged: wait for the link itself to go, not only its target
        # (a dangling link still names the old path, which the wait after the replug would take for the new one)
        wait_for(lambda: not link.is_symlink())
        shoe.replug()
        wait_for(lambda: link.is_symlink() and os.readlink(link) == server.path)
        with serial.Serial(str(link), timeout=0.5) as again:
            host = SerialHost(again)
            status = host.call(m.GetStatus())
            assert isinstance(status, m.Status)
            assert (status.boot_id, status.last_dispense_id) == (shoe.boot_id, 1)  # the shoe kept its state
            assert host.call(m.Dispense(1, 2)).replayed  # type: ignore[attr-defined]
    assert not link.exists()


def test_tcp_round_trip_and_client_reconnect(shoe: EmulatedShoe) -> None:
    with serve_tcp(shoe) as server:
        host_name, port_number = server.address
        assert host_name == "127.0.0.1" and port_number > 0
        url = f"socket://127.0.0.1:{port_number}"
        with serial.serial_for_url(url, timeout=0.2) as port:
            assert SerialHost(port).call(m.Dispense(1, 1)).phase is DispensePhase.STARTED  # type: ignore[attr-defined]
        with serial.serial_for_url(url, timeout=0.2) as port:  # a disconnect is not an unplug
            host = SerialHost(port)
            host.seq = 1  # the host goes on numbering (seq 1 again would get the stored STARTED, §4)
            report = host.call(m.Dispense(1, 1))
            assert isinstance(report, m.DispenseReport) and report.replayed
        assert shoe.plugged and shoe.link_generation == 0


def test_tcp_serves_one_client_at_a_time(shoe: EmulatedShoe) -> None:
    with serve_tcp(shoe) as server:
        url = f"socket://127.0.0.1:{server.address[1]}"
        with serial.serial_for_url(url, timeout=0.2) as first:
            host = SerialHost(first)
            assert isinstance(host.call(m.GetStatus()), m.Status)
            second = serial.serial_for_url(url, timeout=0.5)
            with pytest.raises(serial.SerialException):
                for _ in range(10):
                    second.read(1)
            second.close()
            assert isinstance(host.call(m.GetStatus()), m.Status)


def test_tcp_unplug_drops_the_client_and_replug_accepts_again(shoe: EmulatedShoe) -> None:
    with serve_tcp(shoe) as server:
        url = f"socket://127.0.0.1:{server.address[1]}"
        port = serial.serial_for_url(url, timeout=0.5)
        assert isinstance(SerialHost(port).call(m.Identify()), m.Identity)
        shoe.unplug()
        with pytest.raises(serial.SerialException):
            for _ in range(10):
                port.read(1)
        port.close()
        shoe.replug()
        with serial.serial_for_url(url, timeout=0.2) as again:
            identity = SerialHost(again).call(m.Identify())
            assert isinstance(identity, m.Identity) and identity.boot_id == shoe.boot_id
