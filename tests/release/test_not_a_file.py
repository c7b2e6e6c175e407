"""Verification refuses what is not a regular file without reading it, bounds every read, and ``shoed`` stays
responsive to SIGTERM while it verifies.

Seen failing before the fix: ``shoe/zero.py -> /dev/zero`` made ``shoectl verify`` and ``shoed`` read forever
(100% CPU, SIGTERM ignored, never serving), ``[verify] manifest = "/dev/zero"`` grew without bound, and a
FIFO in the tree blocked the open. Every command here runs in a subprocess with a timeout, so the old
code fails the test instead of hanging the suite.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from shoe.cli.exit_codes import Exit
from shoe.cli.main import main
from shoe.release.signing import generate_key
from tests.e2e.conftest import write_config
from tests.e2e.support import ROOT, Proc, Shoed, child_env, free_port
from tests.release.conftest import SITE

LIMIT_S = 60


@pytest.fixture
def signed(release: Path, tmp_path: Path) -> tuple[Path, Path]:
    key = tmp_path / "keys" / "release.key"
    key.parent.mkdir()
    generate_key(key)
    out = str(release / "release-manifest.json")
    assert main(["release", "manifest", "--root", str(release), "--out", out, "--sign", str(key)]) == 0
    return release, key.with_name("release.key.pub")


def shoectl_verify(*argv: str) -> tuple[int, dict[str, object], str]:
    done = subprocess.run(
        [sys.executable, "-m", "shoe.cli.main", "--json", "verify", *argv],
        capture_output=True,
        text=True,
        check=False,
        timeout=LIMIT_S,
        cwd=ROOT,
        env=child_env(),
    )
    return done.returncode, (json.loads(done.stdout) if done.stdout.strip() else {}), done.stderr


def named(data: dict[str, object]) -> list[str]:
    return [str(d["text"]) for d in data["differences"]]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("make", "refused"),
    [
        (lambda p: p.symlink_to("/dev/zero"), "is a symbolic link (to /dev/zero), not a file"),
        (os.mkfifo, "is a FIFO, not a regular file"),
    ],
    ids=["link-to-dev-zero", "fifo"],
)
def test_a_link_to_dev_zero_or_a_fifo_in_place_of_a_listed_file_is_refused_unread(
    signed: tuple[Path, Path], make: object, refused: str
) -> None:
    root, pub = signed
    module = root / SITE / "shoe/service/core.py"
    module.unlink()
    make(module)  # type: ignore[operator]
    code, data, err = shoectl_verify("--root", str(root), "--pubkey", str(pub))
    assert code == Exit.PROGRAM_MISMATCH, err
    assert named(data) == [f"refused {SITE}/shoe/service/core.py ({refused}: not read)"]
    assert data["bytes_read"] < 1 << 20  # type: ignore[operator]


def test_added_links_and_fifos_are_named_and_never_read(signed: tuple[Path, Path]) -> None:
    root, pub = signed
    (root / SITE / "shoe/zero.py").symlink_to("/dev/zero")
    os.mkfifo(root / SITE / "shoe/pipe.py")
    code, data, err = shoectl_verify("--root", str(root), "--pubkey", str(pub), "--seed", "00112233")
    assert code == Exit.PROGRAM_MISMATCH, err
    assert named(data) == [f"added {SITE}/shoe/pipe.py", f"added {SITE}/shoe/zero.py"]


def test_a_listed_file_whose_folder_leads_out_of_the_tree_is_refused(signed: tuple[Path, Path], tmp_path: Path) -> None:
    root, pub = signed
    outside = tmp_path / "outside-service"
    shutil.copytree(root / SITE / "shoe/service", outside)  # identical bytes, but not the release's
    shutil.rmtree(root / SITE / "shoe/service")
    (root / SITE / "shoe/service").symlink_to(outside)
    code, data, err = shoectl_verify("--root", str(root), "--pubkey", str(pub))
    assert code == Exit.PROGRAM_MISMATCH, err
    assert any(n.startswith(f"refused {SITE}/shoe/service/core.py") and "out of the release tree" in n
               for n in named(data)), named(data)  # fmt: skip


@pytest.mark.parametrize("what", ["manifest", "pubkey"])
def test_a_manifest_or_key_that_is_dev_zero_or_a_fifo_is_refused_unread(
    signed: tuple[Path, Path], tmp_path: Path, what: str
) -> None:
    root, pub = signed
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for bad in ("/dev/zero", str(fifo)):
        args = {"manifest": str(root / "release-manifest.json"), "pubkey": str(pub), what: bad}
        started = time.monotonic()
        code, data, err = shoectl_verify(
            "--root", str(root), "--manifest", args["manifest"], "--pubkey", args["pubkey"]
        )
        assert time.monotonic() - started < LIMIT_S
        assert code in (Exit.USAGE, Exit.SIGNATURE_BAD), (code, err, data)
        assert "not a regular file" in err + json.dumps(data)


def test_a_huge_manifest_is_refused_unread(signed: tuple[Path, Path], tmp_path: Path) -> None:
    root, pub = signed
    huge = tmp_path / "huge.json"
    with huge.open("wb") as f:
        f.truncate(1 << 33)  # 8 GiB, sparse: no disk used, but a read of it would take the machine
    code, _, err = shoectl_verify("--root", str(root), "--manifest", str(huge), "--pubkey", str(pub))
    assert code == Exit.USAGE and "more than the" in err


def test_a_dist_info_record_linked_to_dev_zero_is_refused(signed: tuple[Path, Path]) -> None:
    root, pub = signed
    record = root / SITE / "libdep-1.0.dist-info/RECORD"
    record.unlink()
    record.symlink_to("/dev/zero")
    code, _, err = shoectl_verify("--root", str(root), "--pubkey", str(pub))
    assert code == Exit.USAGE and "not a regular file" in err


# -- the real shoed -----------------------------------------------------------------------------------


@pytest.fixture
def procs() -> Iterator[list[Proc]]:
    running: list[Proc] = []
    yield running
    for proc in running:
        if proc.alive():
            proc.popen.kill()
            proc.popen.wait(timeout=10)


def _shoed(tmp_path: Path, procs: list[Proc], verify: str) -> Shoed:
    http_port = free_port()
    config = tmp_path / "shoed.toml"
    write_config(config, http_port)
    config.write_text(config.read_text() + verify)
    return Shoed(tmp_path, "emu://?autoload=1", tmp_path / "journal.sqlite", config, http_port=http_port, procs=procs)


def test_shoed_with_a_link_to_dev_zero_in_its_release_serves_and_refuses_rounds(
    signed: tuple[Path, Path], tmp_path: Path, procs: list[Proc]
) -> None:
    root, pub = signed
    (root / SITE / "shoe/zero.py").symlink_to("/dev/zero")
    os.mkfifo(root / SITE / "shoe/pipe.py")
    service = _shoed(tmp_path, procs, f'[verify]\nroot = "{root}"\npubkey = "{pub}"\ninterval_s = 0\n')
    service.start()  # it serves (before: never, reading /dev/zero at 100% CPU)
    program = service.api.call("GET", "/v1/status", role="observer").body["integrity"]["program"]
    assert program["result"] == "mismatch"
    assert program["named"] == [f"added {SITE}/shoe/pipe.py", f"added {SITE}/shoe/zero.py"]
    assert service.stop() == 0


@pytest.mark.parametrize("where", ["tree", "manifest"])
def test_shoed_exits_on_sigterm_within_seconds_while_it_verifies(
    signed: tuple[Path, Path], tmp_path: Path, procs: list[Proc], where: str
) -> None:
    root, pub = signed
    verify = f'[verify]\nroot = "{root}"\npubkey = "{pub}"\ninterval_s = 0\n'
    if where == "tree":
        module = root / SITE / "shoe/service/core.py"
        module.unlink()
        module.symlink_to("/dev/zero")
    else:
        verify += 'manifest = "/dev/zero"\n'
    service = _shoed(tmp_path, procs, verify)
    argv = [sys.executable, "-m", "shoe.shoed", "--config", str(service.config), "--port", service.port_url,
            "--journal", str(service.journal), "--http", f"127.0.0.1:{service.api.port}"]  # fmt: skip
    proc = Proc("shoed", argv, tmp_path / "shoed.log")
    procs.append(proc)
    deadline = time.monotonic() + 10  # past its imports and signal handlers: in or after its start check
    while time.monotonic() < deadline and "program checked" not in proc.log.read_text(errors="replace"):
        time.sleep(0.1)  # (before the fix it never got there: reading /dev/zero for ever)
    proc.popen.send_signal(signal.SIGTERM)
    try:
        code = proc.popen.wait(timeout=15)
    except subprocess.TimeoutExpired:
        pytest.fail(f"shoed ignored SIGTERM for 15 s while verifying:\n{proc.tail()}")
    assert code == 0, proc.tail()
