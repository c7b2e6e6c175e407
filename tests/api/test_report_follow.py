"""The report's summary follows the owner's commits in batches, and a report still includes every entry
committed before it was asked (shoe.api.report.ReportSummary, over a real journal file)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from shoe.api import report as report_module
from shoe.api.report import ReportSummary
from shoe.journal import Entry, Journal


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    with Journal.open(tmp_path / "journal.sqlite") as opened:
        yield opened


def _started(journal: Journal, monkeypatch: pytest.MonkeyPatch) -> ReportSummary:
    monkeypatch.setattr(report_module, "REBUILD_AFTER_S", 0.0)
    summary = ReportSummary(journal.path)
    summary.start()
    deadline = time.monotonic() + 30
    while not summary.status()["rebuilt"]:
        assert time.monotonic() < deadline, "the summary was not rebuilt"
        time.sleep(0.01)
    return summary


def _commit(journal: Journal, note: str) -> list[Entry]:
    return [journal.append("service", {"event": "note", "note": note})]


def test_commits_in_a_burst_are_taken_together(journal: Journal, monkeypatch: pytest.MonkeyPatch) -> None:
    """One wake-up of the follower for many commits: 40 commits 5 ms apart are taken in a few batches, not
    40 (each wake-up took the GIL from the owner thread), and every entry is in the ledger afterwards."""
    summary = _started(journal, monkeypatch)
    takes: list[int] = []
    take = summary._take

    def counted(ledger: object, entries: list[Entry]) -> None:
        takes.append(len(entries))
        take(ledger, entries)  # type: ignore[arg-type]

    monkeypatch.setattr(summary, "_take", counted)
    try:
        for i in range(40):
            summary.follow(_commit(journal, f"burst {i}"))
            time.sleep(0.005)
        deadline = time.monotonic() + 10
        while summary.status()["last_seq"] < journal.head_seq():
            assert time.monotonic() < deadline, "the summary did not catch up"
            time.sleep(0.01)
    finally:
        summary.stop()
    assert sum(takes) == 40
    assert len(takes) <= 10, takes


def test_a_report_takes_what_is_queued_at_once(journal: Journal, monkeypatch: pytest.MonkeyPatch) -> None:
    """A report asked for while the follower waits to batch does not wait for it: it includes the entry
    committed just before, even when the follower would otherwise wait a minute."""
    monkeypatch.setattr(report_module, "FOLLOW_EVERY_S", 60.0)
    monkeypatch.setattr(report_module, "WAIT_S", 5.0)  # a report that had to wait for the batch: a 503 in 5 s
    monkeypatch.setattr(report_module, "PACE_S", 0.0)
    summary = _started(journal, monkeypatch)
    try:
        for by in ("day", "seat", "table"):  # a grouping each: a report computed a moment ago is answered again
            entries = _commit(journal, f"before the report by {by}")
            summary.follow(entries)
            _, seq = summary.report(by, 0.05)
            assert seq == entries[-1].seq
    finally:
        summary.stop()


def test_a_stop_does_not_wait_for_the_batch(journal: Journal, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(report_module, "FOLLOW_EVERY_S", 60.0)
    summary = _started(journal, monkeypatch)
    summary.follow(_commit(journal, "last"))
    started = time.monotonic()
    summary.stop()
    assert summary._thread is not None and not summary._thread.is_alive()
    assert time.monotonic() - started < 30  # well under the minute the batch would have waited
