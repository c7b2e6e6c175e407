"""The real ``shoed``: a tampered install and a shoe with unapproved firmware each refuse rounds.

A fake installed release in tmp_path (``[verify] root``), signed with a key made in the test; the shoe is
the emulator inside ``shoed`` (``emu://``) carrying its shipped image or a copy with one byte changed.
Each refusal is a 409 naming its cause, journaled as an alarm, lifted by a technician's clear-fault.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.emulator.firmware import DEFAULT_IMAGE
from shoe.cli.main import main
from shoe.release.signing import generate_key
from tests.e2e.conftest import write_config
from tests.e2e.support import Proc, Shoed, free_port
from tests.release.conftest import SITE, make_release

OPEN = {
    "game": "mississippi-stud",
    "jurisdiction": "NY",
    "table": {"min_ante": 100, "max_ante": 10_000},
    "seats": [{"seat": 1, "ante": 500}],
}


@pytest.fixture
def procs() -> Iterator[list[Proc]]:
    running: list[Proc] = []
    yield running
    for proc in running:
        if proc.alive():
            proc.stop()


def signed_release(tmp_path: Path) -> tuple[Path, Path]:
    root = make_release(tmp_path / "releases" / "0.1.0")
    key = tmp_path / "release.key"
    generate_key(key)
    out = str(root / "release-manifest.json")
    assert main(["release", "manifest", "--root", str(root), "--out", out, "--sign", str(key)]) == 0
    return root, key.with_name("release.key.pub")


def shoed(tmp_path: Path, procs: list[Proc], verify: str, port: str = "emu://?autoload=1") -> Shoed:
    http_port = free_port()
    config = tmp_path / "shoed.toml"
    write_config(config, http_port)
    config.write_text(config.read_text() + verify)
    return Shoed(tmp_path, port, tmp_path / "journal.sqlite", config, http_port=http_port, procs=procs)


def entries(service: Shoed, kind: str) -> list[dict[str, Any]]:
    from shoe.journal import Journal

    with Journal.open(service.journal) as journal:
        return [dict(e.data) for e in journal.entries(kinds=(kind,))]


def test_a_tampered_install_refuses_rounds_until_a_technician_acknowledges(tmp_path: Path, procs: list[Proc]) -> None:
    root, pub = signed_release(tmp_path)
    module = root / SITE / "shoe/service/core.py"
    module.write_bytes(module.read_bytes().replace(b"pass", b"exec", 1))
    service = shoed(tmp_path, procs, f'[verify]\nroot = "{root}"\npubkey = "{pub}"\ninterval_s = 0\n')
    service.start()
    status = service.api.call("GET", "/v1/status", role="observer").body
    assert status["integrity"]["program"]["result"] == "mismatch"
    assert status["integrity"]["alarm"]["cause"] == "program-mismatch"
    refused = service.api.call("POST", "/v1/rounds", OPEN)
    assert (refused.status, refused.code) == (409, "program-mismatch"), refused.body
    assert f"changed {SITE}/shoe/service/core.py" in refused.body["error"]["message"]
    start = next(e for e in entries(service, "service") if e["event"] == "start")
    assert start["program"]["release"] == "0.1.0" and start["program"]["manifest_sha256"]
    assert [n.split(" (")[0] for n in start["program"]["named"]] == [f"changed {SITE}/shoe/service/core.py"]
    alarms = [e for e in entries(service, "fault") if e.get("event") == "alarm"]
    assert [(a["cause"], a["blocking"]) for a in alarms] == [("program-mismatch", True)]
    cleared = service.api.post("/v1/maintenance/clear-fault", {}, role="technician")
    assert cleared["acknowledged"] == "program-mismatch"
    assert service.api.post("/v1/rounds", OPEN)["round_id"]
    assert service.stop() == 0


def test_a_clean_install_is_ok_and_a_missing_manifest_unverified_both_deal(tmp_path: Path, procs: list[Proc]) -> None:
    root, pub = signed_release(tmp_path)
    service = shoed(tmp_path, procs, f'[verify]\nroot = "{root}"\npubkey = "{pub}"\ninterval_s = 0\n')
    service.start()
    program = service.api.call("GET", "/v1/status", role="observer").body["integrity"]["program"]
    assert program["result"] == "ok" and program["key_id"]
    assert service.api.post("/v1/rounds", OPEN)["round_id"]
    assert service.stop() == 0
    (root / "release-manifest.json").unlink()
    service.start()
    integrity = service.api.call("GET", "/v1/status", role="observer").body["integrity"]
    assert integrity["program"]["result"] == "unverified" and integrity["alarm"] is None
    assert service.stop() == 0


def test_refuse_start_exits_1_naming_the_file(tmp_path: Path, procs: list[Proc]) -> None:
    root, pub = signed_release(tmp_path)
    (root / SITE / "shoe/dropped.py").write_text("import os\n")
    verify = f'[verify]\nroot = "{root}"\npubkey = "{pub}"\non_mismatch = "refuse-start"\n'
    service = shoed(tmp_path, procs, verify)
    with pytest.raises(AssertionError, match="shoed exited 1"):
        service.start()
    assert f"added {SITE}/shoe/dropped.py" in service.proc.log.read_text()


def test_a_shoe_with_unapproved_firmware_refuses_rounds(tmp_path: Path, procs: list[Proc]) -> None:
    image = tmp_path / "reflashed.bin"
    shutil.copy(DEFAULT_IMAGE, image)
    data = bytearray(image.read_bytes())
    data[4000] ^= 0xFF
    image.write_bytes(bytes(data))
    verify = f'[verify]\ninterval_s = 0\n[verify.firmware]\n"emu-1.0" = "{DEFAULT_IMAGE}"\n'
    service = shoed(tmp_path, procs, verify, port=f"emu://?autoload=1&firmware_image={image}")
    service.start()
    refused = service.api.call("POST", "/v1/rounds", OPEN)
    assert (refused.status, refused.code) == (409, "firmware-unapproved"), refused.body
    assert "differs from the approved image" in refused.body["error"]["message"]
    checks = [e for e in entries(service, "link") if e.get("event") == "firmware"]
    assert [(c["verdict"], c["cause"], c["firmware"]) for c in checks] == [("unapproved", "digest-differs", "emu-1.0")]
    assert service.stop() == 0


def test_approved_firmware_deals_and_a_shoe_without_the_request_is_unverified(
    tmp_path: Path, procs: list[Proc]
) -> None:
    verify = f'[verify]\ninterval_s = 0\n[verify.firmware]\n"emu-1.0" = "{DEFAULT_IMAGE}"\n'
    service = shoed(tmp_path, procs, verify)
    service.start()
    assert service.api.call("GET", "/v1/status", role="observer").body["integrity"]["firmware"]["verdict"] == "approved"
    assert service.api.post("/v1/rounds", OPEN)["round_id"]
    assert service.stop() == 0
    (tmp_path / "old").mkdir()
    old = shoed(tmp_path / "old", procs, verify, port="emu://?autoload=1&firmware_image=none")
    old.start()
    firmware = old.api.call("GET", "/v1/status", role="observer").body["integrity"]["firmware"]
    assert (firmware["verdict"], firmware["cause"]) == ("unverified", "not-supported")
    assert old.api.post("/v1/rounds", OPEN)["round_id"]
    assert old.stop() == 0


def test_a_periodic_check_finds_a_change_made_while_running(tmp_path: Path, procs: list[Proc]) -> None:
    root, pub = signed_release(tmp_path)
    service = shoed(tmp_path, procs, f'[verify]\nroot = "{root}"\npubkey = "{pub}"\ninterval_s = 1\n')
    service.start()
    (root / SITE / "libdep/__init__.py").write_text("VERSION = 'patched'\n")
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if service.api.call("GET", "/v1/status", role="observer").body["integrity"]["alarm"]:
            break
        time.sleep(0.2)
    refused = service.api.call("POST", "/v1/rounds", OPEN)
    assert (refused.status, refused.code) == (409, "program-mismatch"), refused.body
    checks = [e for e in entries(service, "service") if e["event"] == "program-check"]
    assert checks and checks[-1]["named"][0].startswith(f"changed {SITE}/libdep/__init__.py")
    assert service.stop() == 0


def test_a_manifest_removed_after_a_verified_start_is_a_mismatch(tmp_path: Path, procs: list[Proc]) -> None:
    root, pub = signed_release(tmp_path)
    service = shoed(tmp_path, procs, f'[verify]\nroot = "{root}"\npubkey = "{pub}"\ninterval_s = 1\n')
    service.start()
    (root / "release-manifest.json").unlink()
    deadline = time.monotonic() + 20
    while (
        time.monotonic() < deadline
        and not service.api.call("GET", "/v1/status", role="observer").body["integrity"]["alarm"]
    ):
        time.sleep(0.2)
    program = service.api.call("GET", "/v1/status", role="observer").body["integrity"]["program"]
    assert program["result"] == "mismatch" and "verified before, now: no release manifest" in program["detail"]
    assert service.api.call("POST", "/v1/rounds", OPEN).code == "program-mismatch"
    assert service.stop() == 0
