"""Fixtures of the end-to-end tests; the processes and clients they start are in ``tests.e2e.support``.

The ``e2e`` fixture starts the emulated shoe, then the real ``shoed`` (see ``tests.e2e.support``), and
stops every process it started (SIGTERM, then SIGKILL); it fails the test if one
did not stop on SIGTERM, if ``shoed`` did not exit 0 on it, or if any process still names the test's
folder afterwards. Process logs stay in the test's folder and their tails are shown on failure.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from drivers.keyfile import create_key
from tests.e2e.support import (
    FULL_DECK,
    READY_TIMEOUT_S,
    ROOT,
    TOKENS,
    Api,
    EmuHost,
    Proc,
    Shoed,
    child_env,
    emulator_argv,
    free_port,
)


@dataclass
class Table:
    """One test's table: the shoe process, ``shoed``, the journal, the API."""

    root: Path
    link: Path
    journal: Path
    config: Path
    shoe: Proc
    shoed: Shoed
    procs: list[Proc] = field(default_factory=list)

    @property
    def api(self) -> Api:
        return self.shoed.api

    def shoectl(self, *args: str, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "shoe.cli.main", *args],
            cwd=ROOT,
            env={**child_env(), "SHOE_KEY_FILE": str(self.root / "shoe.key")},
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def entries(self, round_id: str | None = None, kinds: tuple[str, ...] | None = None) -> list[Any]:
        from shoe.journal import Journal

        with Journal.open(self.journal) as journal:
            return list(journal.entries(round_id=round_id, kinds=kinds))

    def verify_journal(self) -> None:
        from shoe.journal import Journal

        with Journal.open(self.journal) as journal:
            result = journal.verify()
        assert result.ok, f"journal chain broken: {result}"


def write_config(path: Path, http_port: int, key_file: Path | None = None) -> None:
    tokens = "\n".join(f'{role} = "{token}"' for role, token in TOKENS.items())
    key = "" if key_file is None else f'key_file = "{key_file}"\n'
    path.write_text(
        f"[shoe]\ntake_timeout = 5\n{key}"
        "[shoe.timeouts]\nreconnect_initial = 0.05\nreconnect_max = 0.25\n"
        f'[http]\nhost = "127.0.0.1"\nport = {http_port}\n'
        f"[tokens]\n{tokens}\n"
        '[service]\ntable = "e2e"\nsubmit_timeout = 20\n'
    )


def processes_naming(text: str) -> list[tuple[int, str]]:
    """Processes (other than this one) whose command line contains ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if text.encode() in cmdline:
            found.append((int(entry.name), cmdline.replace(b"\0", b" ").decode(errors="replace")))
    return found


@pytest.fixture
def e2e(tmp_path: Path) -> Iterator[Callable[..., Table]]:
    """``e2e(deck=..., seed=..., host=False)``: start the shoe, then ``shoed``, and return the table."""
    procs: list[Proc] = []

    def start(*, deck: Sequence[str] | None = None, seed: int | None = None, host: bool = False) -> Table:
        link, journal, config = tmp_path / "shoe0", tmp_path / "journal.sqlite", tmp_path / "shoed.toml"
        http_port = free_port()
        key_file = tmp_path / "shoe.key"  # the table and its shoe are paired: every run is on an authenticated link
        if not key_file.exists():
            create_key(key_file)
        write_config(config, http_port, key_file)
        shoe: Proc
        if host:
            shoe = EmuHost(link, deck or FULL_DECK, tmp_path / "emulator.log", key_file)
            procs.append(shoe)
        else:
            argv = emulator_argv(link, deck=deck, seed=seed, key_file=key_file)
            shoe = Proc("emulator", argv, tmp_path / "emulator.log", pipes=True)
            procs.append(shoe)
            info = json.loads(shoe.read_line(READY_TIMEOUT_S))
            assert info["port"] == str(link) and Path(info["pty"]).exists(), info
        shoed = Shoed(tmp_path, str(link), journal, config, http_port=http_port, procs=procs)
        table = Table(tmp_path, link, journal, config, shoe, shoed, procs)
        shoed.start()
        return table

    yield start
    problems = []
    shoeds = [p for p in procs if p.name == "shoed"]
    others = [p for p in procs if p.name != "shoed"]
    for proc in [*shoeds, *others]:  # the service first, then the shoe it holds
        was_alive = proc.alive()
        rc = proc.stop()
        if rc is None:
            problems.append(f"{proc.name} (pid {proc.pid}) did not stop on SIGTERM:\n{proc.tail()}")
        elif was_alive and proc.name == "shoed" and rc != 0:
            problems.append(f"shoed (pid {proc.pid}) exited {rc} on SIGTERM, not 0:\n{proc.tail()}")
    for pid, cmdline in processes_naming(f"{tmp_path}{os.sep}"):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
        problems.append(f"leaked process {pid}: {cmdline}")
    if problems:
        pytest.fail("\n".join(problems))
