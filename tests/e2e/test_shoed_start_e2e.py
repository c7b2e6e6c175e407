"""``shoed`` starting as a new user starts it, through the real process.

- a malformed shoe port (``emu://?jam=3``, a misspelt scheme or option) is refused at start: exit 2, one
  line naming the key and the fix, nothing journaled, no retrying;
- an HTTP port already taken is found before the shoe is connected or anything journaled: one line
  ``shoed: cannot start: 127.0.0.1:PORT is in use ...`` and exit 1;
- ``SHOED_HTTP=HOST:PORT`` moves the README's run command off 8470 without a configuration file, and a
  malformed one is refused like ``[http]``;
- ``shoed --help`` lists the exit codes, from the one table (``shoe.shoed.EXIT_MEANING``).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.support import ROOT, child_env, free_port

START_TIMEOUT_S = 30.0


def _run(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``shoed ARGS`` on a journal in ``tmp_path``; it must end by itself (a refusal), within the bound."""
    return subprocess.run(
        [sys.executable, "-m", "shoe.shoed", "--journal", str(tmp_path / "journal.sqlite"), *args],
        cwd=ROOT,
        env={**child_env(), **(env or {})},
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT_S,
        check=False,
    )


def _journal_written(tmp_path: Path) -> bool:
    return any(p.name.startswith("journal.sqlite") for p in tmp_path.iterdir())


@pytest.mark.parametrize(
    ("port", "words"),
    [
        ("emu://?jam=3", ["unknown emulator option 'jam'", "shoectl emulate --help"]),
        ("emy://", ["unknown scheme", "emu"]),
        ("serial:///dev/ttyUSB0?baud=fast", ["baud must be a whole number"]),
        ("socket://127.0.0.1", ["names no port number", "socket://HOST:PORT"]),
        ("usb://12:zz", ["is not a USB shoe URL", "usb://VID:PID"]),
    ],
)
def test_a_bad_shoe_port_in_the_config_file_exits_2_in_one_line(tmp_path: Path, port: str, words: list[str]) -> None:
    config = tmp_path / "shoed.toml"
    config.write_text(f'[shoe]\nport = "{port}"\n')
    done = _run(tmp_path, "--config", str(config), "--http", "127.0.0.1:0")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr[-2000:]
    assert len(lines) == 1, lines
    assert lines[0].startswith("shoed: configuration: [shoe] port: "), lines
    for word in words:
        assert word in lines[0], lines
    assert not _journal_written(tmp_path)


def test_a_bad_port_option_never_shows_the_deck_or_the_seed(tmp_path: Path) -> None:
    done = _run(tmp_path, "--port", "emu://?seed=42424x&deck=AsKd", "--http", "127.0.0.1:0")
    assert done.returncode == 2, done.stderr[-2000:]
    assert "42424" not in done.stderr and "AsKd" not in done.stderr and "[shoe] port" in done.stderr


def test_a_taken_http_port_is_refused_before_the_shoe_or_the_journal(tmp_path: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = _run(tmp_path, "--http", f"127.0.0.1:{port}", "--log-level", "debug")
    assert done.returncode == 1, done.stderr[-2000:]
    ours = [line for line in done.stderr.splitlines() if line.startswith("shoed:")]
    assert ours == [ours[0]] and ours[0].startswith(f"shoed: cannot start: 127.0.0.1:{port} is in use"), done.stderr
    assert "--http" in ours[0] and "SHOED_HTTP" in ours[0]
    assert "shoe connected" not in done.stderr and "journal" not in done.stderr.replace(ours[0], "")
    assert not _journal_written(tmp_path)


def test_an_employees_store_that_cannot_be_opened_is_refused_in_one_line_with_its_path(tmp_path: Path) -> None:
    """The store opens just after the first status (docs/perf/start.md): a path it cannot make is exit 1, named,
    before the journal is opened, as a bad journal is refused."""
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory\n")
    config = tmp_path / "shoed.toml"
    config.write_text(f'[people]\npath = "{blocked / "people.sqlite"}"\n')
    done = _run(tmp_path, "--config", str(config), "--http", "127.0.0.1:0")
    assert done.returncode == 1, done.stderr[-2000:]
    ours = [line for line in done.stderr.splitlines() if line.startswith("shoed:")]
    assert len(ours) == 1 and ours[0].startswith("shoed: cannot start: the employees store "), done.stderr
    assert str(blocked / "people.sqlite") in ours[0] and "Traceback" not in done.stderr
    # the journal's lock was taken before the first status (and released): the journal itself never opened
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "journal.sqlite.lock", "shoed.toml"]


def _wait_status(url: str, proc: subprocess.Popen[str]) -> dict[str, object]:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate(timeout=5)
        try:
            with urllib.request.urlopen(url + "/v1/status", timeout=2) as reply:
                status: dict[str, Any] = json.load(reply)
            if status["service"].get("state") != "starting":  # status answers from the start: wait for ready
                return status
        except OSError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"no answer at {url} in {START_TIMEOUT_S} s")


def _run_command(tmp_path: Path, port: int, *args: str) -> subprocess.Popen[str]:
    """The README's run command (``shoed ARGS``), moved to ``port`` and a journal in ``tmp_path`` by the
    environment, as a person would."""
    return subprocess.Popen(
        [sys.executable, "-m", "shoe.shoed", *args],
        cwd=ROOT,
        env={**child_env(), "SHOED_HTTP": f"127.0.0.1:{port}", "SHOED_JOURNAL": str(tmp_path / "journal.sqlite")},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_shoed_http_moves_the_run_command_off_8470(tmp_path: Path) -> None:
    port = free_port()
    proc = _run_command(tmp_path, port)
    try:
        status = _wait_status(f"http://127.0.0.1:{port}", proc)
        assert status["shoe"]["link"] == "up"  # type: ignore[index]
    finally:
        proc.terminate()
        assert proc.wait(timeout=30) == 0


@pytest.mark.parametrize("value", ["127.0.0.1", "127.0.0.1:99999", "localhost:http", "0.0.0.0:8470"])
def test_a_bad_shoed_http_exits_2_naming_the_variable(tmp_path: Path, value: str) -> None:
    done = _run(tmp_path, env={"SHOED_HTTP": value})
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr[-2000:]
    assert lines[0].startswith("shoed: configuration: SHOED_HTTP (environment): "), lines
    assert not _journal_written(tmp_path)


def test_help_lists_every_exit_code_of_the_one_table() -> None:
    from shoe.shoed import EXIT_MEANING, Exit

    done = subprocess.run([sys.executable, "-m", "shoe.shoed", "--help"], cwd=ROOT, env=child_env(),
                          capture_output=True, text=True, timeout=START_TIMEOUT_S, check=True)  # fmt: skip
    assert "exit codes:" in done.stdout
    assert set(EXIT_MEANING) == set(Exit)
    for code, meaning in EXIT_MEANING.items():
        assert f"  {int(code)} {meaning}\n" in done.stdout, done.stdout


def _allowed_cpus(pid: int) -> dict[str, set[int]]:
    """Each live thread of ``pid`` by name (``comm``) and id, and the CPUs the kernel may run it on."""
    out: dict[str, set[int]] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            name = (task / "comm").read_text().strip()
            allowed = os.sched_getaffinity(int(task.name))
        except OSError:  # a thread that ended meanwhile
            continue
        out[f"{name} ({task.name})"] = allowed
    return out


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="one CPU here: nothing to share or to spread")
@pytest.mark.parametrize("one_cpu", [True, False])
def test_every_thread_of_shoed_shares_one_cpu_unless_configured_not_to(tmp_path: Path, one_cpu: bool) -> None:
    port, config = free_port(), tmp_path / "shoed.toml"
    config.write_text("" if one_cpu else "[service]\none_cpu = false\n")  # the default, or turned off
    proc = _run_command(tmp_path, port, "--config", str(config))
    try:
        assert _wait_status(f"http://127.0.0.1:{port}", proc)["shoe"]["link"] == "up"  # type: ignore[index]
        threads = _allowed_cpus(proc.pid)
    finally:
        proc.terminate()
        assert proc.wait(timeout=30) == 0
    mine = os.sched_getaffinity(0)
    assert len(threads) >= 4, threads  # the owner, the HTTP accept loop, the link's reader, the main thread at least
    expected = {max(mine)} if one_cpu else mine  # drivers.affinity.one_cpu: the highest CPU this process may use
    assert all(allowed == expected for allowed in threads.values()), threads
