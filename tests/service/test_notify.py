"""sd_notify over $NOTIFY_SOCKET with the standard library, and the watchdog thread."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from shoe.service.notify import Notifier, Watchdog


@pytest.fixture
def listener(tmp_path: Path) -> Iterator[tuple[socket.socket, str]]:
    path = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(5)
    yield sock, path
    sock.close()


def test_messages_reach_the_socket(listener: tuple[socket.socket, str]) -> None:
    sock, path = listener
    notifier = Notifier({"NOTIFY_SOCKET": path})
    assert notifier.enabled and notifier.ready("serving")
    assert sock.recv(4096) == b"READY=1\nSTATUS=serving"
    notifier.watchdog()
    notifier.stopping()
    assert [sock.recv(4096), sock.recv(4096)] == [b"WATCHDOG=1", b"STOPPING=1"]


def test_abstract_socket() -> None:
    name = f"shoed-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        sock.settimeout(5)
        assert Notifier({"NOTIFY_SOCKET": "@" + name}).status("x")
        assert sock.recv(64) == b"STATUS=x"


def test_outside_systemd_everything_is_a_no_op() -> None:
    notifier = Notifier({})
    assert not notifier.enabled and not notifier.ready() and notifier.watchdog_interval is None
    assert not Notifier({"NOTIFY_SOCKET": "/nonexistent/sock"}).ready()


def test_watchdog_interval_is_half_the_timeout() -> None:
    assert Notifier({"WATCHDOG_USEC": "30000000"}).watchdog_interval == 15.0
    assert Notifier({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": str(os.getpid())}).watchdog_interval == 15.0
    assert Notifier({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}).watchdog_interval is None
    assert Notifier({"WATCHDOG_USEC": "soon"}).watchdog_interval is None


def test_watchdog_pings_only_while_healthy(listener: tuple[socket.socket, str]) -> None:
    sock, path = listener
    healthy = [True]
    dog = Watchdog(Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "100000"}), lambda: healthy[0])
    dog.start()
    assert sock.recv(64) == b"WATCHDOG=1"
    healthy[0] = False
    time.sleep(0.2)
    sock.setblocking(False)
    while True:
        try:
            sock.recv(64)
        except BlockingIOError:
            break
    time.sleep(0.25)
    with pytest.raises(BlockingIOError):
        sock.recv(64)
    dog.stop()
