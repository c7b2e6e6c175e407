"""The floor's server itself failing (docs/floor.md, "Faults"): stopped and restarted, and a primary
killed with its synchronous standby promoted. Each test runs its own clusters (the server binaries
are needed: under SHOE_FLOOR_TESTS=required their absence fails the test)."""

from __future__ import annotations

import os
import shutil
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from shoe.floor.migrate import migrate
from shoe.service.floor.shipper import Shipper
from tests.floor import pg
from tests.floor.conftest import _missing
from tests.floor.support import all_entries, journal_with, query, table_url

OUTAGE_S = float(os.environ.get("SHOE_FLOOR_OUTAGE_S", "4"))
"""How long the server stays down (the issue says minutes; CI keeps it short, a person may set 180)."""


@pytest.fixture
def scratch() -> Iterator[Path]:
    if not pg.available():
        _missing("no PostgreSQL server binaries (initdb, pg_ctl, postgres) for a cluster of the test's own")
    root = Path(f"/tmp/shoe-floor-faults-{os.getpid()}")
    shutil.rmtree(root, ignore_errors=True)
    yield root
    for sub in ("one", "primary", "standby"):
        pg.Cluster(root / sub, 0).remove()
    shutil.rmtree(root, ignore_errors=True)


def until(predicate: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError(f"{what}: not reached in {timeout}s")


def floor_chain(url: str) -> list[tuple[int, str]]:
    return [(int(s), str(h)) for s, h in query(url, "SELECT seq, hash FROM floor.entries ORDER BY seq")]


def _free_port() -> int:
    """A port nobody holds now. Fixed ports (55434-55436 before) sit in Linux's ephemeral range: with four
    workers another test's outgoing socket once held 55436 and the standby could not start."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_database_stopped_and_restarted_the_backlog_drains(scratch: Path, tmp_path: Path) -> None:
    cluster = pg.Cluster(scratch / "one", _free_port()).init().start()
    url = cluster.url()
    migrate(url)
    own = table_url(url, "T1", tmp_path / "j.sqlite")
    journal = journal_with(tmp_path / "j.sqlite", 50)
    s = Shipper(journal.path, own, "T1", batch=40, poll_s=0.05, max_backoff_s=1.0, connect_timeout=1)
    s.start()
    try:
        assert s.wait_caught_up(30), s.status()
        cluster.stop("immediate")  # as a crash: no shutdown checkpoint
        journal_with(journal.path, 200, start=50)  # the table deals on
        until(lambda: s.status()["state"] == "down", 30, "the shipper notices")
        time.sleep(OUTAGE_S)
        status = s.status()
        assert status["lag_entries"] == 200 and status["lag_seconds"] >= OUTAGE_S * 0.8, status
        cluster.start()
        assert s.wait_caught_up(60), s.status()
    finally:
        s.stop()
    assert floor_chain(url) == [(e.seq, e.hash) for e in all_entries(journal)]


@pytest.mark.slow
def test_failover_to_the_synchronous_standby_loses_and_duplicates_nothing(scratch: Path, tmp_path: Path) -> None:
    ports = (_free_port(), _free_port())
    while ports[1] == ports[0]:
        ports = (ports[0], _free_port())
    primary, standby = pg.replicated_pair(scratch, *ports)
    migrate(primary.url())
    both = f"postgresql://postgres@127.0.0.1:{ports[0]},127.0.0.1:{ports[1]}/postgres?target_session_attrs=read-write"
    urls = [table_url(both, f"T{i}", tmp_path / f"t{i}.sqlite") for i in range(4)]
    journals = [journal_with(tmp_path / f"t{i}.sqlite", 30) for i in range(4)]
    shippers = [Shipper(j.path, urls[i], f"T{i}", batch=25, poll_s=0.02, max_backoff_s=0.5, connect_timeout=1)
                for i, j in enumerate(journals)]  # fmt: skip
    for s in shippers:
        s.start()
    try:
        for i, j in enumerate(journals):  # the tables deal on, the primary dies mid-run
            journal_with(j.path, 100, start=30, round_id=f"R-{i}")
        until(lambda: min(s.status()["acked_seq"] for s in shippers) >= 40, 30, "shipping before the kill")
        primary.kill()
        acked_before = [s.status()["acked_seq"] for s in shippers]  # acknowledged by the dead primary
        for i, j in enumerate(journals):
            journal_with(j.path, 50, start=130, round_id=f"R-{i}b")
        until(lambda: all(s.status()["state"] == "down" for s in shippers if s.status()["lag_entries"]), 30,
              "the shippers notice")  # fmt: skip
        standby.promote()
        for s in shippers:
            assert s.wait_caught_up(90), s.status()
    finally:
        for s in shippers:
            s.stop()
    new = standby.url()
    heads = dict(query(new, "SELECT table_name, head_seq FROM floor.journals"))
    for i, (s, j) in enumerate(zip(shippers, journals, strict=True)):
        assert heads[f"T{i}"] >= acked_before[i]  # nothing the old primary acknowledged is lost
        assert "lost acknowledged" not in (s.status()["last_error"] or "")
        stored = [(int(a), str(b)) for a, b in query(new, "SELECT seq, hash FROM floor.entries WHERE table_name = %s"
                                                          " ORDER BY seq", (f"T{i}",))]  # fmt: skip
        assert stored == [(e.seq, e.hash) for e in all_entries(j)]  # exactly once, in order
    assert query(new, "SELECT count(*) FROM floor.alarms") == [(0,)]



def test_a_commit_not_replicated_to_the_synchronous_standby_is_not_acknowledged(scratch: Path, tmp_path: Path) -> None:
    """With its synchronous standby gone, the primary holds every commit (the shipper waits; the table does
    not). A wait cancelled anyway (an operator, a timeout) commits locally with a warning: not an ack."""
    import threading

    from shoe.floor.client import FloorClient
    from shoe.floor.errors import FloorError

    cluster = pg.Cluster(scratch / "one", _free_port()).init().start()
    url = cluster.url()
    migrate(url)
    own = table_url(url, "T1", tmp_path / "j.sqlite")
    entries = all_entries(journal_with(tmp_path / "j.sqlite", 10))
    client = FloorClient(own)
    assert client.ship("T1", entries[0].hash, entries[:5]).status == "ok"
    query(url, "ALTER SYSTEM SET synchronous_standby_names = 'absent'")  # a standby that never confirms
    query(url, "SELECT pg_reload_conf()")
    time.sleep(0.5)
    outcome: list[object] = []

    def ship() -> None:
        try:
            outcome.append(client.ship("T1", entries[0].hash, entries))
        except FloorError as exc:
            outcome.append(exc)

    thread = threading.Thread(target=ship)
    thread.start()
    time.sleep(1.5)
    assert thread.is_alive() and not outcome  # held by the primary: nothing acknowledged
    query(url, "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%%floor.ship(%%'"
               " AND pid <> pg_backend_pid()")  # fmt: skip
    thread.join(30)
    assert isinstance(outcome[0], FloorError) and "did not replicate the batch" in str(outcome[0]), outcome
    assert len(floor_chain(url)) == 10  # committed on the primary alone: there, but never acknowledged
    query(url, "ALTER SYSTEM SET synchronous_standby_names = ''")
    query(url, "SELECT pg_reload_conf()")
    time.sleep(0.5)
    got = client.ship("T1", entries[0].hash, entries)  # the shipper's re-send: a no-op, now acknowledged
    assert (got.status, got.head_seq) == ("ok", 10) and len(floor_chain(url)) == 10
