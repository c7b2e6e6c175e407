"""The default target: ``shoectl emulate --pty`` in a separate process, reached through its pseudo-terminal.

The tests talk to it as to a real shoe: pyserial on ``WORKDIR/shoe0``, a symlink the emulator keeps
pointing at its pty (as the udev rule keeps ``/dev/cardshoe``). Its hardware is worked through the
emulator's control signals (``shoectl emulate --help``): SIGUSR1 pulls the cable and plugs it back in,
SIGUSR2 opens or closes the door. The dealer's deck load goes through the emulator's control socket
(``--control``, ``drivers.emulator.control.load_deck_at``), the same action a dealer's load is. Each
signal is acknowledged by a JSON line on the emulator's stdout, which this module waits for. Faults
chosen by card (a jam at card 3) and line impairments need a restart with other options: ``arrange``.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from drivers.emulator.control import ControlError, load_deck_at
from drivers.emulator.deck import DeckLoad
from drivers.keyfile import create_key, load_key
from drivers.timeouts import LinkTimeouts
from hil_tests.bench import Bench, Connection, Target
from protocols import messages as m

__all__ = ["EmulatorError", "EmulatorProcess", "EmulatorTarget"]

ROOT = Path(__file__).resolve().parents[1]
START_S = 30.0  # a busy CI machine imports slowly
ACK_S = 15.0
REPLUG_AFTER_S = 0.3


class EmulatorError(RuntimeError):
    """The emulator process did not start, died, or did not acknowledge a signal."""


class EmulatorProcess:
    """``python -m shoe.cli.main --json emulate --pty --link LINK --set KEY=VALUE ...``, and its stdout lines."""

    def __init__(
        self,
        link: Path,
        options: Mapping[str, str],
        log: Path,
        replug_after: float = REPLUG_AFTER_S,
        key_file: Path | None = None,
    ) -> None:
        self.link = link
        self.options = dict(options)
        self.control = link.with_name(link.name + ".control")
        self.command = [sys.executable, "-m", "shoe.cli.main", "--json", "emulate", "--pty", "--link", str(link),
                        "--replug-after", str(replug_after), "--control", str(self.control)]  # fmt: skip
        self.loads = 0
        for key, value in sorted(self.options.items()):
            self.command += ["--set", f"{key}={value}"]
        if key_file is not None:  # paired with the bench: the suite runs on an authenticated link (SPEC §13)
            self.command += ["--key-file", str(key_file)]
        self._log_path = log
        self._lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._process: subprocess.Popen[str] | None = None
        self._log: IO[str] | None = None
        self.info: dict[str, Any] = {}

    def start(self) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self._log = self._log_path.open("a", encoding="utf-8")
        self._log.write(f"$ {' '.join(self.command)}\n")
        self._log.flush()
        self._process = subprocess.Popen(self.command, stdout=subprocess.PIPE, stderr=self._log, text=True,
                                         cwd=ROOT, env=env)  # fmt: skip
        threading.Thread(
            target=self._read, args=(self._process.stdout,), name="hil-emulator-stdout", daemon=True
        ).start()
        self.info = self.expect(lambda line: "pty" in line, START_S, "its pty")
        self.wait_link()

    def _read(self, stream: IO[str] | None) -> None:
        assert stream is not None
        for line in stream:
            with contextlib.suppress(ValueError):
                self._lines.put(json.loads(line))
        self._lines.put(None)  # end of stdout: the process is gone

    def expect(self, match: Callable[[dict[str, Any]], bool], timeout: float, what: str) -> dict[str, Any]:
        """The next stdout line ``match`` accepts (earlier ones are dropped)."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            try:
                line = self._lines.get(timeout=max(remaining, 0.0))
            except queue.Empty:
                raise EmulatorError(
                    f"the emulator did not report {what} within {timeout:g} s (log: {self._log_path})"
                ) from None
            if line is None:
                raise EmulatorError(f"the emulator exited (status {self.returncode()}) before {what}; "
                                    f"log: {self._log_path}")  # fmt: skip
            if match(line):
                return line

    def signal(self, number: int, match: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
        if self._process is None or self._process.poll() is not None:
            raise EmulatorError(f"the emulator is not running (status {self.returncode()}; log: {self._log_path})")
        self._process.send_signal(number)
        return self.expect(match, ACK_S, what)

    def wait_link(self, timeout: float = ACK_S) -> None:
        deadline = time.monotonic() + timeout
        while not self.link.exists():
            if time.monotonic() > deadline:
                raise EmulatorError(f"{self.link} did not appear within {timeout:g} s")
            time.sleep(0.01)

    def returncode(self) -> int | None:
        return None if self._process is None else self._process.poll()

    def stop(self) -> int | None:
        process = self._process
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        if self._log is not None:
            self._log.close()
            self._log = None
        return self.returncode()


class EmulatorTarget(Target):
    """The emulator bench: restarted with the bench's options before every test (a fresh shoe)."""

    def __init__(self, bench: Bench, workdir: Path) -> None:
        super().__init__(bench, str(workdir / "shoe0"))
        self.workdir = workdir
        self.key_file = workdir / "shoe.key"
        self.key = load_key(self.key_file) if self.key_file.exists() else create_key(self.key_file)
        self.defaults = dict(bench.emulator)
        self.process: EmulatorProcess | None = None
        self._door_open = False
        self._pristine = False  # running with the bench's options and untouched since

    @contextlib.contextmanager
    def connect(self, timeouts: LinkTimeouts | None = None) -> Iterator[Connection]:
        self._pristine = False
        with super().connect(timeouts) as conn:
            yield conn

    def start(self) -> None:
        self._run(self.defaults)

    def close(self) -> None:
        if self.process is not None:
            self.process.stop()
            self.process = None

    def _run(self, options: Mapping[str, str]) -> None:
        self.close()
        self.process = EmulatorProcess(Path(self.port), options, self.workdir / "emulator.log", key_file=self.key_file)
        self.process.start()
        self._door_open = options.get("door_open", "0").lower() in ("1", "true", "yes", "on")
        self._pristine = dict(options) == self.defaults

    def _live(self) -> EmulatorProcess:
        if self.process is None:
            raise EmulatorError("the emulator is not running")
        return self.process

    # -- Target ------------------------------------------------------------------------------------

    def fresh(self) -> None:
        """Every test starts on a fresh emulator (about half a second): no state leaks between tests."""
        if not self._pristine:
            self._run(self.defaults)

    def arrange(self, options: Mapping[str, str], instructions: str) -> str:
        self._run({**self.defaults, **options})
        self._pristine = False
        return "emulator"

    def attend(self, instructions: str) -> str:
        return "emulator"

    def unplug_replug(self) -> str:
        self._pristine = False
        process = self._live()
        process.signal(signal.SIGUSR1, lambda line: line.get("event") == "unplugged", "the unplug")
        process.expect(lambda line: line.get("event") == "replugged", ACK_S, "the replug")
        process.wait_link()
        return "emulator"

    def set_door(self, is_open: bool) -> str:
        if self._door_open != is_open:
            self._toggle_door(is_open)
        return "emulator"

    def _toggle_door(self, is_open: bool) -> dict[str, Any]:
        self._pristine = False
        line = self._live().signal(
            signal.SIGUSR2,
            lambda line: line.get("event") == "door" and line.get("open") is is_open,
            "the door " + ("opening" if is_open else "closing"),
        )
        self._door_open = is_open
        return line

    def load_deck(self) -> str:
        """The dealer loads a fresh shuffled 52 through the control socket (SPEC §11), door closed after."""
        process = self._live()
        seed = process.options.get("seed")
        process.loads += 1
        deck = DeckLoad(seed=None if seed in (None, "", "none") else int(seed) * 1000 + process.loads)
        try:
            loaded = load_deck_at(process.control, deck, timeout=ACK_S)
        except ControlError as exc:
            raise EmulatorError(f"the emulator did not load a deck: {exc}") from None
        if loaded != 52:
            raise EmulatorError(f"the emulator holds {loaded} cards after the load, not 52")
        if self._door_open:
            self._toggle_door(False)
        return "emulator"

    def await_taken(self, conn: Connection, dispense_id: int) -> None:
        """The emulator's tray empties by itself (auto_take): wait for its STACK_TAKEN."""
        taken = conn.wait_for(
            lambda: any(e.dispense_id == dispense_id for e in conn.events(m.StackTaken)), self.bench.timing.take_s
        )
        if not taken:
            raise AssertionError(f"no STACK_TAKEN for dispense {dispense_id} within {self.bench.timing.take_s:g} s")
