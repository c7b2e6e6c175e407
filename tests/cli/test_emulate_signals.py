"""``shoectl emulate``'s control signals: SIGUSR1 unplugs and replugs, SIGUSR2 opens and closes the door.

The emulator runs as a separate process on a pseudo-terminal and is reached through real pyserial, as the
HIL bench (hil_tests/) reaches it; each signal is acknowledged by a JSON line on its stdout.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.client import ShoeClient
from drivers.notices import LinkLost, LinkRestored, Notice
from drivers.serial_transport import SerialTransport
from drivers.timeouts import LinkTimeouts
from protocols import messages as m
from protocols.codes import FaultCode

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGUSR1"), reason="POSIX signals only")

ROOT = Path(__file__).resolve().parents[2]
FAST = LinkTimeouts(reply=0.3, retries=3, dispense_base=1.0, dispense_per_card=1.0, scan=2.0,
                    reconnect_initial=0.02, reconnect_max=0.1, reconnect_give_up=10.0, read_poll=0.05)  # fmt: skip


class Emulator:
    """``python -m shoe.cli.main --json emulate --pty --link PATH ...`` and the JSON lines it prints."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        self.link = tmp_path / "shoe0"
        command = [sys.executable, "-m", "shoe.cli.main", "--json", "emulate", "--pty", "--link", str(self.link)]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen([*command, *args], stdout=subprocess.PIPE, text=True, cwd=ROOT, env=env)
        self.lines: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.info = self.next_line()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(json.loads(line))

    def next_line(self, timeout: float = 20.0) -> dict[str, Any]:
        return self.lines.get(timeout=timeout)

    def signal(self, number: int) -> dict[str, Any]:
        self.process.send_signal(number)
        return self.next_line()

    def stop(self) -> int:
        self.process.terminate()
        return self.process.wait(timeout=10)


@pytest.fixture
def emulator(tmp_path: Path) -> Iterator[Any]:
    started: list[Emulator] = []

    def start(*args: str) -> Emulator:
        started.append(Emulator(tmp_path, *args))
        return started[-1]

    yield start
    for emu in started:
        if emu.process.poll() is None:
            emu.process.kill()
            emu.process.wait(timeout=10)


def wait_for(predicate: Any, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return bool(predicate())


def test_sigusr2_opens_and_closes_the_door_and_closing_an_empty_shoe_loads_a_deck(emulator: Any) -> None:
    emu = emulator("--seed", "4")
    received: list[m.Event | Notice] = []
    client = ShoeClient(SerialTransport(str(emu.link)), timeouts=FAST)
    client.subscribe(received.append)
    try:
        client.connect()
        assert emu.signal(signal.SIGUSR2) == {"event": "door", "open": True}
        assert client.status().faults & FaultCode.DOOR_OPEN.flag
        assert emu.signal(signal.SIGUSR2) == {"event": "door", "open": False, "loaded": 0}, "a full shoe: no reload"
        assert client.status().faults == 0
        raised = [e.code for e in received if isinstance(e, m.FaultRaised)]
        assert wait_for(lambda: [e.code for e in received if isinstance(e, m.FaultCleared)] == [FaultCode.DOOR_OPEN])
        assert raised == [FaultCode.DOOR_OPEN]
        client.dispense(2)
        assert wait_for(lambda: any(isinstance(e, m.StackTaken) for e in received))
        assert client.release_stub() == 50
        emu.signal(signal.SIGUSR2)
        assert emu.signal(signal.SIGUSR2) == {"event": "door", "open": False, "loaded": 52}
        status = client.status()
        assert (status.cards_remaining, status.faults) == (52, 0)
        assert len(client.dispense(2).codes) == 2
    finally:
        client.close()
    assert emu.stop() == 0, "SIGTERM still stops the emulator cleanly"


def test_sigusr1_unplugs_then_replugs_and_the_client_reconnects(emulator: Any) -> None:
    emu = emulator("--seed", "5", "--replug-after", "0.2")
    received: list[m.Event | Notice] = []
    client = ShoeClient(SerialTransport(str(emu.link)), timeouts=FAST)
    client.subscribe(received.append)
    try:
        client.connect()
        first = client.dispense(2)
        assert emu.signal(signal.SIGUSR1) == {"event": "unplugged"}
        assert emu.next_line() == {"event": "replugged", "port": str(emu.link)}
        second = client.dispense(2)  # waits for the link to come back, then carries on
        assert second.dispense_id == first.dispense_id + 1
        assert any(isinstance(n, LinkLost) for n in received) and any(isinstance(n, LinkRestored) for n in received)
        assert client.link.stats.reconnects >= 1
        assert client.counters().cards == 4, "no card dispensed twice across the unplug"
    finally:
        client.close()
    assert emu.stop() == 0


def test_replug_after_must_not_be_negative() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "shoe.cli.main", "emulate", "--pty", "--replug-after", "-1"],
        check=False, capture_output=True, text=True, cwd=ROOT, timeout=30,
    )  # fmt: skip
    assert done.returncode == 2 and "--replug-after" in done.stderr


def test_help_documents_the_signals() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "shoe.cli.main", "emulate", "--help"],
        check=True, capture_output=True, text=True, cwd=ROOT, timeout=30,
    )  # fmt: skip
    text = " ".join(done.stdout.split())
    assert "SIGUSR1" in text and "SIGUSR2" in text and "--replug-after" in text
