"""ISSUE12 section 2 items of shoectl (4, 6, 12, 13, 14) and the deck cycle commands (load-deck, deck-check,
release-stub), in process and across a real ``shoectl emulate`` process with its control socket."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from drivers.client import ShoeClient
from drivers.deck import check_deck
from drivers.emulator.control import ControlError, load_deck_at
from drivers.emulator.deck import DeckLoad
from shoe.cli import doctor, journal
from shoe.cli.exit_codes import EPILOG, MEANING, Exit
from shoe.cli.main import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
SHOECTL = str(Path(sys.executable).with_name("shoectl"))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- item 4: dispense --stacks N --------------------------------------------------------------------


def test_dispense_prints_every_stack_dealt_before_the_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--port", "emu://?deck=AsKd7c", "dispense", "--stacks", "3")
    assert code == Exit.PROTOCOL
    assert out.splitlines() == ["stack 1: As Kd"] and "DISPENSE refused" in err


def test_dispense_json_is_one_document_with_the_stacks_and_the_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--port", "emu://?deck=AsKd7c", "--json", "dispense", "--stacks", "3")
    data = json.loads(out)
    assert code == Exit.PROTOCOL and [s["cards"] for s in data["stacks"]] == [["As", "Kd"]]
    assert data["error"]["exit"] == Exit.PROTOCOL


def test_dispense_zero_stacks_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "dispense", "--stacks", "0")
    assert code == Exit.USAGE and out == "" and "--stacks 0" in err


# --- item 6: release-stub, scan --help ---------------------------------------------------------------


def test_release_stub_then_scan_help_names_it(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--port", "emu://?deck=AsKd", "release-stub")
    assert code == 0 and "stub released: 2 cards" in out
    with pytest.raises(SystemExit):
        main(["scan", "--help"])
    assert "release-stub" in capsys.readouterr().out


# --- items 12, 13: malformed ports, exit codes ---------------------------------------------------------


@pytest.mark.parametrize(
    "port",
    ["socket://nohost", "socket://:7000", "socket://h:99999", "socket://h:x", "socket://h:7000/path",
     "bogus://x", "usb://zz", "serial://", "serial:///dev/x?speed=1", "emu://?jam=3"],
)  # fmt: skip
def test_every_malformed_port_is_a_one_line_usage_error(capsys: pytest.CaptureFixture[str], port: str) -> None:
    code, out, err = run(capsys, "--port", port, "status")
    assert code == Exit.USAGE, err
    assert out == "" and "Traceback" not in err
    assert len([line for line in err.splitlines() if not line.lstrip().startswith("hint:")]) == 1


def test_one_exit_code_table_in_help_docs_and_code() -> None:
    assert set(MEANING) == set(Exit)
    assert (journal.JOURNAL_BAD, doctor.DOCTOR_FAILED) == (Exit.JOURNAL_BAD, Exit.DOCTOR_FAILED)
    help_text = build_parser().format_help()
    docs = (ROOT / "docs" / "shoectl.md").read_text()
    for code in Exit:
        assert re.search(rf"^\s+{int(code)} ", EPILOG, re.M), code
        assert f"  {int(code):>2} {MEANING[code]}" in help_text, code
        assert re.search(rf"^\| {int(code)} \|", docs, re.M), code


# --- item 14: devices headers, empty events ----------------------------------------------------------


def test_events_with_an_empty_log_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "events", "--first", "999")
    assert code == 0 and "no events" in out


def test_devices_has_column_headers(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "devices")
    assert code == 0
    if "no serial ports" not in out:
        assert out.splitlines()[0].split() == ["PORT", "USB", "ID", "DESCRIPTION"]


# --- load-deck and deck-check -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "named"),
    [("--short", "missing"), ("--extra", "extra"), ("--duplicate", "duplicate"), ("--foreign", "foreign")],
)
def test_load_deck_on_emu_names_each_fault(capsys: pytest.CaptureFixture[str], option: str, named: str) -> None:
    code, out, _ = run(capsys, "--json", "load-deck", "--seed", "4", option, "1")
    data = json.loads(out)
    assert code == 0 and not data["check"]["ok"]
    assert any(p.startswith(named) or p.endswith(named) for p in data["check"]["problems"]), data


def test_deck_check_of_a_bare_shoe(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "--port", "emu://?seed=2", "deck-check")[0] == 0
    code, out, _ = run(capsys, "--port", "emu://?seed=2&back=blue", "deck-check", "--back", "red")
    assert code == Exit.DEVICE_FAULT and "back 'blue', expected 'red'" in out
    code, out, _ = run(capsys, "--port", "emu://?deck=AsAsKd", "deck-check")
    assert code == Exit.DEVICE_FAULT and "duplicate As" in out and "missing" in out


def test_load_deck_with_bad_options_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "load-deck", "--short", "60")[0] == Exit.USAGE
    assert run(capsys, "load-deck", "--control", "/nonexistent/ctl")[0] == Exit.USAGE


@pytest.mark.parametrize("serve", [["--pty"], ["--tcp", "127.0.0.1:0"]], ids=["pty", "tcp"])
def test_load_deck_through_the_control_socket_of_a_real_emulate_process(tmp_path: Path, serve: list[str]) -> None:
    control = tmp_path / "ctl"
    proc = subprocess.Popen(
        [SHOECTL, "--json", "emulate", *serve, "--control", str(control), "--seed", "1"],
        stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        info = json.loads(proc.stdout.readline())
        assert info["control"] == str(control) and oct(control.stat().st_mode & 0o777) == "0o600"
        with pytest.raises(ControlError, match="release the stub first"):
            load_deck_at(control, DeckLoad(seed=3))
        with ShoeClient.open(info["port"]) as client:
            client.release_stub()
            done = subprocess.run(
                [SHOECTL, "--json", "load-deck", "--control", str(control), "--seed", "3", "--back", "blue"],
                check=False, capture_output=True, text=True, timeout=30,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
            assert json.loads(done.stdout) == {"loaded": 52, "back": "blue"}
            deadline = time.monotonic() + 5
            while client.status().cards_remaining != 52 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert check_deck(client, back="blue").ok
    finally:
        proc.terminate()
        proc.wait(timeout=10)
