"""Under ``--json`` every shoectl command prints exactly one JSON document on stdout, an error
included: ``{"error": {"kind", "message", "hint", "exit"}}`` with the exit code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shoe.cli.exit_codes import Exit
from shoe.cli.main import main

CASES = {
    "unavailable": (["--port", "socket://127.0.0.1:9", "status"], Exit.UNAVAILABLE),
    "bad emulator option": (["--port", "emu://?bogus=1", "identify"], Exit.USAGE),
    "no journal": (["journal", "verify", "--journal", "/nonexistent/journal.sqlite"], Exit.UNAVAILABLE),
    "unreadable script": (["play", "/nonexistent/script.json"], Exit.USAGE),
    "zero stacks": (["dispense", "--stacks", "0"], Exit.USAGE),
    "scan without a released stub": (["scan"], Exit.PROTOCOL),
    "unknown command": (["no-such-command"], Exit.USAGE),
    "missing argument": (["play"], Exit.USAGE),
}


@pytest.mark.parametrize("case", CASES)
def test_an_error_under_json_is_one_document(capsys: pytest.CaptureFixture[str], tmp_path: Path, case: str) -> None:
    argv, expected = CASES[case]
    capsys.readouterr()
    try:
        code = main(["--json", *argv])
    except SystemExit as stop:  # argparse's usage errors
        code = int(stop.code or 0)
    out = capsys.readouterr().out
    assert code == expected
    assert out.count("\n") == 1, out
    error = json.loads(out)["error"]
    assert error["exit"] == expected and error["message"] and isinstance(error["hint"], str)
