"""Suite-wide isolation: fresh logging for each test, and no thread, listening socket or child process left
behind by one: a shift runs unattended, so nothing a test starts may outlive it unnoticed.

``_no_leaks`` compares the process before and after each test, once the test's own fixtures are torn
down: threads alive, listening sockets (TCP and Unix) among the process's file descriptors, and child
processes still running. What a test started may take ``LEAK_GRACE_S`` to end; what is left after that
fails the test at teardown, naming it. Module- and session-scoped fixtures are set up before the
snapshot, so what they hold is not a leak of the test. The check costs a directory listing of
``/proc/self/fd`` when nothing leaked.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog

SLOWEST_FIRST: tuple[str, ...] = (
    # Measured (junit times, 2 cores): the files that take longest, slowest first. pytest-xdist hands whole
    # files (``--dist loadfile``) to whichever worker is free, in collection order; a long file handed out
    # last becomes the suite's tail while the other workers idle, so these are collected first. A file
    # missing here only runs in its usual place; tests/test_repository.py keeps every name an existing file.
    "tests/drivers/test_reliability.py",
    "tests/hil/test_absent_target.py",
    "tests/e2e/test_http_flood_e2e.py",
    "tests/ui/test_static.py",
    "tests/api/test_schemathesis_dealer.py",
    "tests/floor/test_cli_roles.py",
    "tests/service/test_config_secrets_e2e.py",
    "tests/service/test_journal_first.py",
    "tests/api/test_schemathesis_technician.py",
    "tests/ui/test_dealer_ny.py",
    "tests/api/test_schemathesis_table_system.py",
    "tests/math/test_induction.py",
    "tests/floor/test_server_faults.py",
    "tests/api/test_event_ids.py",
    "tests/people/test_approvals_bound.py",
    "tests/bench/test_bench_output.py",
    "tests/service/test_recovery_restart.py",
    "tests/ui/test_dealer_stud.py",
    "tests/e2e/test_journal_e2e.py",
    "tests/api/test_report_route.py",
    "tests/people/test_sign_in_flood.py",
    "tests/e2e/test_crash_e2e.py",
    "tests/cli/test_report_cli.py",
    "tests/people/test_duties.py",
    "tests/floor/test_shoed_floor.py",
)


def pytest_configure(config: pytest.Config) -> None:
    """Keep the collection order below for xdist's scheduler (its own reorder sorts files by test count)."""
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slowest files first (:data:`SLOWEST_FIRST`), every file's tests in their own order."""
    rank = {name: i for i, name in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))


LEAK_GRACE_S = 2.0
"""How long what a test started may take to end after its teardown (threads joining, sockets closing)."""

ALLOWED_THREADS: dict[str, str] = {
    # name pattern (re.fullmatch) -> why it may outlive the test that started it
    r"asyncio_\d+": "the default executor of playwright's event loop (tests/ui, the session-scoped browser) starts"
    " its workers on first use, e.g. a screenshot's file write, and keeps them until the loop closes",
}
_ALLOWED = re.compile("|".join(f"(?:{p})" for p in ALLOWED_THREADS))
_SOCKET = re.compile(r"socket:\[(\d+)\]")
_TCP_LISTEN = "0A"
_UNIX_ACCEPTING = 0x10000  # __SO_ACCEPTCON in /proc/net/unix's Flags column


@pytest.fixture(autouse=True)
def _fresh_logging() -> Iterator[None]:
    """A command under test may configure structlog and the root logger; undo it after each test."""
    yield
    structlog.reset_defaults()
    logging.getLogger().handlers.clear()


def _threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.is_alive() and not _ALLOWED.fullmatch(t.name)}


def _socket_inodes() -> set[str]:
    inodes = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # closed meanwhile (the listing's own descriptor among them)
            continue
        if m := _SOCKET.fullmatch(target):
            inodes.add(m[1])
    return inodes


def _listening(inodes: set[str]) -> dict[str, str]:
    """Which of ``inodes`` are listening sockets: inode -> ``tcp 127.0.0.1:PORT`` or ``unix PATH``."""
    found: dict[str, str] = {}
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/self/net/{table}").read_text().splitlines()[1:]:
            cols = line.split()
            if cols[3] == _TCP_LISTEN and cols[9] in inodes:
                found[cols[9]] = f"{table} port {int(cols[1].rsplit(':', 1)[1], 16)}"
    for line in Path("/proc/self/net/unix").read_text().splitlines()[1:]:
        cols = line.split()
        if int(cols[3], 16) & _UNIX_ACCEPTING and cols[6] in inodes:
            found[cols[6]] = f"unix {cols[7] if len(cols) > 7 else '(unnamed)'}"
    return found


def _children() -> set[int]:
    pids: set[int] = set()
    for task in os.listdir("/proc/self/task"):
        try:
            pids.update(int(p) for p in Path(f"/proc/self/task/{task}/children").read_text().split())
        except OSError:  # the thread ended meanwhile
            continue
    return pids


def _running(pid: int) -> str | None:
    """``pid``'s command line while it runs (a zombie, waiting to be reaped, holds nothing)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        if state in ("Z", "X"):
            return None
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return None


def _leaks(threads: set[threading.Thread], inodes: set[str], children: set[int]) -> list[str]:
    found = [f"thread {t.name!r} (daemon={t.daemon}, {t!r})" for t in _threads() - threads]
    new_sockets = _socket_inodes() - inodes
    if new_sockets:
        found += [f"listening socket: {what}" for what in _listening(new_sockets).values()]
    for pid in _children() - children:
        if (command := _running(pid)) is not None:
            found.append(f"child process {pid}: {command[:200]}")
    return found


@pytest.fixture(autouse=True)
def _no_leaks(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a test that leaves a thread, a listening socket or a running child process behind."""
    threads, inodes, children = _threads(), _socket_inodes(), _children()
    yield
    deadline = time.monotonic() + LEAK_GRACE_S
    while found := _leaks(threads, inodes, children):
        if time.monotonic() >= deadline:
            pytest.fail(
                f"{request.node.nodeid} left behind, {LEAK_GRACE_S} s after its teardown:\n  "
                + "\n  ".join(found)
                + "\nstop or join what the test started (a fixture with a finalizer), or close the socket",
                pytrace=False,
            )
        for thread in _threads() - threads:
            thread.join(timeout=max(0.0, min(0.05, deadline - time.monotonic())))
        time.sleep(0.01)
