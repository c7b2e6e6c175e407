"""``shoectl doctor`` end to end on a fake machine: --json, the human report, and the exit codes."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from shoe.cli.doctor import DOCTOR_FAILED
from shoe.cli.exit_codes import Exit
from shoe.cli.main import main
from tests.doctor.conftest import Machine, closed_port_url


def fake_machine_args(machine: Machine, service: str) -> list[str]:
    """Every root in the fake tree; the group file makes the current user's primary group ``cardshoe``."""
    machine.groups(f"cardshoe:x:{os.getgid()}:\n")
    return [
        "--rules-dir",
        str(machine.root / "etc/udev/rules.d"),
        "--sysfs-root",
        str(machine.root / "sys"),
        "--dev-root",
        str(machine.root / "dev"),
        "--proc-root",
        str(machine.root / "proc"),
        "--group-file",
        str(machine.root / "etc/group"),
        "--journal",
        str(machine.root / "state/journal.sqlite"),
        "--service",
        service,
    ]


def run_json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, dict[str, Any]]:
    code = main(argv)
    return code, json.loads(capsys.readouterr().out)


def test_all_ok_exits_0(machine: Machine, shoed: tuple[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    machine.install_rules()
    machine.journal(0o600)
    code, data = run_json(capsys, ["doctor", "--json", *fake_machine_args(machine, shoed[0])])
    assert code == Exit.OK == 0
    assert data["ok"] is True and data["counts"]["failed"] == 0
    statuses = {c["name"]: c["status"] for c in data["checks"]}
    assert statuses["udev rules"] == statuses["group"] == statuses["service"] == "ok"
    assert statuses["device permissions"] == statuses["latency timer"] == "skipped"
    assert all(set(c) == {"name", "status", "detail", "fix"} for c in data["checks"])


def test_a_failed_check_exits_11_and_gives_the_fix(machine: Machine, capsys: pytest.CaptureFixture[str]) -> None:
    machine.journal(0o644)
    code, data = run_json(capsys, ["--json", "doctor", *fake_machine_args(machine, closed_port_url())])
    assert code == DOCTOR_FAILED == 11
    failed = {c["name"]: c["fix"] for c in data["checks"] if c["status"] == "failed"}
    assert set(failed) == {"udev rules", "journal permissions", "service"}
    assert "sudo install -m 644" in failed["udev rules"]
    assert "chmod 600" in failed["journal permissions"]
    assert "systemctl start shoed" in failed["service"]


def test_human_report_prints_each_fix(machine: Machine, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["doctor", *fake_machine_args(machine, closed_port_url())])
    out = capsys.readouterr().out
    assert code == DOCTOR_FAILED
    assert "FAILED   udev rules" in out and "fix: sudo install -m 644" in out
    assert "fix: sudo systemctl start shoed" in out
    assert out.rstrip().splitlines()[-1].endswith("failed, 5 skipped")  # + floor, installed program


def test_a_bad_service_url_is_a_usage_error(machine: Machine, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", *fake_machine_args(machine, "ftp://127.0.0.1/")]) == Exit.USAGE
    assert "not an http:// URL" in capsys.readouterr().err


def test_help_documents_the_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["doctor", "--help"])
    out = capsys.readouterr().out
    assert "--rules-dir" in out and "--service" in out and "11 one or more checks failed" in out
