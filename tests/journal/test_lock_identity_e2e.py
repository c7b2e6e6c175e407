"""Two real ``shoed`` on one journal are refused by whatever name the second reaches it: the lock follows the
file's identity (device and inode), and a journal with a second hard link is a configuration error.

Seen failing before the fix: a second shoed on a symbolic link, a hard link or a ``/proc/PID/fd/N`` name of a
running shoed's journal started and served (with the hard link, rounds were lost and the chain broke).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from shoe.journal import Journal
from tests.e2e.conftest import write_config
from tests.e2e.support import ROOT, Proc, Shoed, child_env, free_port

CONFIG_EXIT = 2


@pytest.fixture
def procs() -> Iterator[list[Proc]]:
    running: list[Proc] = []
    yield running
    for proc in running:
        if proc.alive():
            proc.stop()


def second_shoed(tmp_path: Path, journal: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """A second shoed on ``journal`` (as given, relative to ``cwd``), its own port and shoe: it must not start."""
    port = free_port()
    config = tmp_path / f"second-{port}.toml"
    write_config(config, port)
    people = tmp_path / f"people-{port}.sqlite"  # its own: the journal is what is under test
    config.write_text(config.read_text() + f'[people]\npath = "{people}"\n')
    argv = [sys.executable, "-m", "shoe.shoed", "--config", str(config), "--port", "emu://?autoload=1",
            "--journal", journal, "--http", f"127.0.0.1:{port}"]  # fmt: skip
    env = {**child_env(), "PYTHONPATH": str(ROOT)}
    try:
        return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=60)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"a second shoed on {journal} started and served: {exc.stderr!r}") from None


@pytest.fixture
def first(tmp_path: Path, procs: list[Proc]) -> Shoed:
    port = free_port()
    config = tmp_path / "first.toml"
    write_config(config, port)
    folder = tmp_path / "state"
    folder.mkdir()
    service = Shoed(tmp_path, "emu://?autoload=1", folder / "journal.sqlite", config, http_port=port, procs=procs)
    service.start()
    return service


def _symlink(tmp_path: Path, journal: Path) -> tuple[str, Path]:
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "j.sqlite").symlink_to(journal)
    return str(tmp_path / "other" / "j.sqlite"), tmp_path


def _folder_link(tmp_path: Path, journal: Path) -> tuple[str, Path]:
    (tmp_path / "elsewhere").symlink_to(journal.parent)
    return "elsewhere/journal.sqlite", tmp_path  # a relative path through a linked folder


def _dotdot(tmp_path: Path, journal: Path) -> tuple[str, Path]:
    (journal.parent / "deep").mkdir()
    (tmp_path / "side").mkdir()
    (tmp_path / "side" / "in").symlink_to(journal.parent / "deep")
    return "side/in/../journal.sqlite", tmp_path  # the kernel's `..` is the link target's parent


def _proc_fd(tmp_path: Path, journal: Path) -> tuple[str, Path]:
    fd = os.open(journal, os.O_RDONLY)  # closed with the test process
    return f"/proc/{os.getpid()}/fd/{fd}", tmp_path


@pytest.mark.parametrize(
    "name", [_symlink, _folder_link, _dotdot, _proc_fd], ids=["symlink", "linked-folder", "dotdot", "proc-fd"]
)
def test_a_second_shoed_by_another_name_of_the_journal_is_refused(
    tmp_path: Path, first: Shoed, name: Callable[[Path, Path], tuple[str, Path]]
) -> None:
    path, cwd = name(tmp_path, first.journal)
    done = second_shoed(tmp_path, path, cwd)
    assert done.returncode == CONFIG_EXIT, done.stderr
    assert "in use by another shoed" in done.stderr
    assert first.api.call("GET", "/v1/status", role="observer").ok
    assert first.stop() == 0
    with Journal.open(first.journal) as journal:
        assert journal.verify().ok


def test_a_journal_with_a_second_hard_link_is_a_configuration_error(tmp_path: Path, first: Shoed) -> None:
    alias = tmp_path / "alias.sqlite"
    os.link(first.journal, alias)
    for path in (str(alias), str(first.journal)):
        done = second_shoed(tmp_path, path, tmp_path)
        assert done.returncode == CONFIG_EXIT, done.stderr
    assert "has 2 hard links" in second_shoed(tmp_path, str(alias), tmp_path).stderr
    assert first.stop() == 0
    with pytest.raises(AssertionError, match="exited 2"):
        first.start()  # not even the first one starts again while the second name exists
    assert "has 2 hard links" in first.proc.log.read_text()
    alias.unlink()
    first.start()
    assert first.stop() == 0
