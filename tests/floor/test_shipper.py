"""The shipper (docs/floor.md, "The shipper") against the real server, through a proxy the test can cut."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from shoe.floor.errors import FloorError
from shoe.journal import Journal
from shoe.service.floor.shipper import Shipper, ShipperCollector, cursor_path
from tests.floor.proxy import CuttableProxy
from tests.floor.support import alarms, all_entries, copy_journal, journal_with, stored, table_url


@pytest.fixture
def proxy(floor_url: str) -> Iterator[CuttableProxy]:
    p = CuttableProxy(urlsplit(floor_url).port or 5432)
    yield p
    p.close()


@pytest.fixture
def t1(floor_url: str, tmp_path: Path) -> str:
    """Table T1's own credential; its key beside the journals the tests make (a copy claims the same table)."""
    return table_url(floor_url, "T1", tmp_path / "j.sqlite", tmp_path / "a.sqlite", tmp_path / "b.sqlite")


def via(url: str, proxy: CuttableProxy) -> str:
    parts = urlsplit(url)
    return url.replace(f"{parts.hostname}:{parts.port}", f"127.0.0.1:{proxy.port}")


def shipper(journal: Path, url: str, **kw: object) -> Shipper:
    options = {"batch": 50, "poll_s": 0.05, "max_backoff_s": 0.2, "connect_timeout": 1.0, **kw}
    return Shipper(journal, url, "T1", **options)  # type: ignore[arg-type]


def until(predicate: object, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError(f"not reached in {timeout}s")


def test_ships_everything_in_order_then_follows_the_journal(floor_url: str, t1: str, tmp_path: Path) -> None:
    journal = journal_with(tmp_path / "j.sqlite", 120)
    s = shipper(journal.path, t1)
    s.start()
    try:
        assert s.wait_caught_up(30), s.status()
        journal_with(journal.path, 7, start=120)
        until(lambda: s.status()["acked_seq"] == 127 and s.status()["state"] == "caught-up")
        status = s.status()
        assert (status["lag_entries"], status["lag_seconds"], status["alarm"]) == (0, 0.0, None)
    finally:
        s.stop()
    assert stored(floor_url, "T1") == [(e.seq, e.hash) for e in all_entries(journal)]
    saved = json.loads(cursor_path(journal.path).read_text())
    assert (saved["acked_seq"], saved["table"]) == (127, "T1")
    names = {m.name for m in ShipperCollector(s).collect()}
    assert {"shoe_floor_lag_entries", "shoe_floor_lag_seconds", "shoe_floor_alarm"} <= names


def test_network_cut_mid_batch_and_a_database_away_leave_a_backlog_that_drains(
    floor_url: str, t1: str, proxy: CuttableProxy, tmp_path: Path
) -> None:
    journal = journal_with(tmp_path / "j.sqlite", 10)
    s = shipper(journal.path, via(t1, proxy), batch=300)
    s.start()
    try:
        assert s.wait_caught_up(30)
        proxy.cut_mid_request(after_bytes=20_000)  # the server gets part of the next batch, then nothing
        journal_with(journal.path, 600, start=10)
        until(lambda: s.status()["state"] == "down")
        assert proxy.cuts == 1 and s.status()["acked_seq"] < 610
        journal_with(journal.path, 30, start=610)  # the table goes on writing
        time.sleep(1.2)
        status = s.status()
        assert status["lag_entries"] >= 30 and status["lag_seconds"] >= 1.0, status
        assert "cannot connect" in (status["last_error"] or "") or "failed" in (status["last_error"] or "")
        proxy.restore()
        assert s.wait_caught_up(60), s.status()
    finally:
        s.stop()
    assert stored(floor_url, "T1") == [(e.seq, e.hash) for e in all_entries(journal)]
    assert alarms(floor_url) == []


def test_an_answer_lost_after_the_commit_is_resent_and_stored_once(
    floor_url: str, t1: str, proxy: CuttableProxy, tmp_path: Path
) -> None:
    journal = journal_with(tmp_path / "j.sqlite", 5)
    s = shipper(journal.path, via(t1, proxy), batch=100)
    assert s.step()  # connected, 1-5 stored
    journal_with(journal.path, 50, start=5)
    proxy.cut_next_reply()
    with pytest.raises(Exception, match="failed"):
        s.step()  # the floor stored 6-55; its answer never came
    assert len(stored(floor_url, "T1")) == 55 and s.acked_seq == 5
    proxy.restore()
    s._down(FloorError("test", "unreachable"))
    assert not s.step() or s.acked_seq == 55  # resumes from the floor's head: nothing sent twice is stored twice
    s.step()
    assert s.acked_seq == 55
    assert stored(floor_url, "T1") == [(e.seq, e.hash) for e in all_entries(journal)]
    s.stop()


def test_an_entry_edited_locally_after_shipping_is_refused_on_both_sides(
    floor_url: str, t1: str, tmp_path: Path
) -> None:
    journal = journal_with(tmp_path / "a.sqlite", 5)
    forked = copy_journal(journal, tmp_path / "b.sqlite")
    journal_with(journal.path, 3, start=5)
    journal_with(forked.path, 3, start=5, round_id="R-rewritten")
    first = shipper(journal.path, t1)
    assert first.step() and first.acked_seq == 8
    # the table's journal replaced by the rewritten copy (same first entry: same journal id)
    second = shipper(forked.path, t1)
    assert not second.step()
    status = second.status()
    assert status["state"] == "refused" and "the local journal's entry 8 has hash" in status["alarm"]
    assert len(stored(floor_url, "T1")) == 8
    assert [a for a, _ in alarms(floor_url)] == ["diverged"]  # kept on the floor too, once
    second.step()
    assert [a for a, _ in alarms(floor_url)] == ["diverged"]


def test_a_rewritten_tail_that_was_never_acknowledged_is_a_fork_at_the_floor(
    floor_url: str, t1: str, tmp_path: Path
) -> None:
    journal = journal_with(tmp_path / "a.sqlite", 5)
    forked = copy_journal(journal, tmp_path / "b.sqlite")
    assert shipper(journal.path, t1).step()  # 1-5 acknowledged
    journal_with(journal.path, 2, start=5)
    journal_with(forked.path, 2, start=5, round_id="R-x")
    assert shipper(journal.path, t1).step()  # 6-7 of the original
    late = shipper(forked.path, t1)
    late._head_known, late.journal_id = True, all_entries(forked)[0].hash  # as if it resumed from its own cursor 5
    late.acked_seq = 5
    assert not late.step()
    assert late.status()["state"] == "refused" and [a for a, _ in alarms(floor_url)] == ["fork"]


def test_a_replaced_journal_is_refused_and_the_table_keeps_its_alarm(floor_url: str, t1: str, tmp_path: Path) -> None:
    journal_path = tmp_path / "j.sqlite"
    journal_with(journal_path, 4).close()
    assert shipper(journal_path, t1).step()
    for name in ("j.sqlite", "j.sqlite-wal", "j.sqlite-shm"):
        (tmp_path / name).unlink(missing_ok=True)
    journal_with(journal_path, 2).close()  # a new, shorter, valid chain at the same path
    s = shipper(journal_path, t1)
    assert not s.step()
    assert s.status()["state"] == "refused" and "was replaced" in s.status()["alarm"]
    assert [a for a, _ in alarms(floor_url)] == ["journal-replaced"]


def test_a_shipper_with_no_database_reports_down_and_the_lag_from_its_cursor(tmp_path: Path) -> None:
    journal = journal_with(tmp_path / "j.sqlite", 3)
    s = Shipper(journal.path, "postgresql://nobody@127.0.0.1:9/none", "T1", max_backoff_s=0.2, connect_timeout=1)
    s.start()
    try:
        until(lambda: s.status()["state"] == "down")
        assert s.status()["lag_entries"] == 3 and "cannot connect" in s.status()["last_error"]
    finally:
        s.stop()
    Journal.open(journal.path).close()
