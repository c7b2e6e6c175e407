"""shoectl end to end: in-process for output and exit codes, and across real processes over a pty."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from shoe.cli.exit_codes import Exit
from shoe.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_dispense_json_prints_three_stacks_with_cards(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--port", "emu://?seed=7", "--json", "dispense", "--stacks", "3")
    data = json.loads(out)
    assert code == 0
    assert [s["dispense_id"] for s in data["stacks"]] == [1, 2, 3]
    cards = [c for s in data["stacks"] for c in s["cards"]]
    assert len(cards) == 6 and len(set(cards)) == 6
    assert all(re.fullmatch(r"[2-9TJQKA][cdhs]", c) for c in cards)
    # Same seed, same deck: the emulator is deterministic.
    assert run(capsys, "--port", "emu://?seed=7", "--json", "dispense", "--stacks", "3")[1] == out


def test_explicit_deck_order(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--port", "emu://?deck=AsKd7c2h", "dispense", "--stacks", "2")
    assert code == 0 and out.splitlines() == ["stack 1: As Kd", "stack 2: 7c 2h"]


def test_device_fault_is_short_with_hint_and_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = run(capsys, "--port", "emu://?door_open=1", "dispense")
    assert code == Exit.DEVICE_FAULT
    assert "DOOR_OPEN" in err and "hint: close the door" in err and "Traceback" not in err


def test_device_fault_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--port", "emu://?door_open=1", "--json", "dispense")
    error = json.loads(out)["error"]
    assert code == error["exit"] == Exit.DEVICE_FAULT and "door" in error["hint"]


def test_unavailable_port(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "--port", str(tmp_path / "no-such-tty"), "status")
    assert code == Exit.UNAVAILABLE and "hint:" in err


def test_bad_emulator_option_names_the_key(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "--port", "emu://?jam=3", "status")
    assert code == Exit.USAGE and "'jam'" in err and "jam_at" in err  # a bad option, not an absent shoe (ISSUE12 2.13)


@pytest.mark.parametrize("command", ["identify", "status", "counters", "selftest", "deck-check", "events"])
def test_every_read_only_command_has_json(capsys: pytest.CaptureFixture[str], command: str) -> None:
    code, out, _ = run(capsys, "--port", "emu://?seed=1", "--json", command)
    assert code == 0
    for line in out.splitlines():
        json.loads(line)


def test_status_shows_fault_with_its_fix(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--port", "emu://?door_open=1", "status")
    assert code == 0 and "door_open" in out and "close the door" in out


def test_help_teaches_ports_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "emu://" in out and "usb://" in out and "exit codes" in out and "device fault" in out


def test_emulate_pty_serves_another_process(tmp_path: Path) -> None:
    """Acceptance check: `shoectl emulate --pty` in one process serves `shoectl --port PTY identify` in another."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    link = tmp_path / "shoe0"
    server = subprocess.Popen(
        [sys.executable, "-m", "shoe.cli.main", "--json", "emulate", "--pty", "--link", str(link), "--seed", "5"],
        stdout=subprocess.PIPE, text=True, cwd=ROOT, env=env,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        info = json.loads(server.stdout.readline())
        assert info["pty"].startswith("/dev/pts/")
        for port in (info["pty"], str(link)):
            client = subprocess.run(
                [sys.executable, "-m", "shoe.cli.main", "--port", port, "--json", "identify"],
                check=False, capture_output=True, text=True, cwd=ROOT, env=env, timeout=30,
            )  # fmt: skip
            assert client.returncode == 0, client.stderr
            assert json.loads(client.stdout)["protocol_version"] == 1
            time.sleep(0.1)
    finally:
        server.terminate()
        assert server.wait(timeout=10) == 0


def test_events_follow_prints_live_events_as_json_lines(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """events --follow on a shoe this test holds: a door opened and closed appears as two JSON lines."""
    import threading

    from drivers.client import ShoeClient
    from drivers.emu_transport import EmulatorTransport
    from drivers.emulator import EmulatedShoe, EmulatorConfig
    from shoe import logsetup
    from shoe.cli import shoe_commands

    logsetup.configure("warning")  # as main() would, before this test's emulator starts logging
    shoe = EmulatedShoe(EmulatorConfig(seed=1))
    monkeypatch.setattr(shoe_commands, "_open", lambda args: ShoeClient.open_transport(EmulatorTransport(shoe)))

    def door() -> None:
        time.sleep(0.5)
        shoe.open_door()
        time.sleep(0.2)
        shoe.close_door()

    threading.Thread(target=door, daemon=True).start()
    try:
        code, out, _ = run(capsys, "--json", "events", "--follow", "--duration", "1.5")
    finally:
        shoe.close()
    events = [json.loads(line) for line in out.splitlines()]
    assert code == 0
    assert [(e["type"], e.get("fault")) for e in events if e["type"].startswith("fault")] == [
        ("fault-raised", "door_open"),
        ("fault-cleared", "door_open"),
    ]
