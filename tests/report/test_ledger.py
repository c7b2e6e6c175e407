"""The report from the rounds kept as entries are appended equals the report read from the journal file."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from shoe.journal import Entry, Journal
from shoe.report.groupings import GROUPINGS
from shoe.report.ledger import RoundLedger
from shoe.report.read import read_rounds
from shoe.report.summary import build_report
from tests.math.soak_journal import fill_journal


class _Prefix:
    """The first entries of a journal, read as ``read_rounds`` reads a journal (its ``entries()``)."""

    def __init__(self, entries: list[Entry]) -> None:
        self._entries = entries

    def entries(self) -> Iterator[Entry]:
        return iter(self._entries)


@pytest.fixture(scope="module")
def journal_entries(tmp_path_factory: pytest.TempPathFactory) -> list[Entry]:
    path = tmp_path_factory.mktemp("ledger") / "journal.sqlite"
    with Journal.open(path) as journal:
        fill_journal(journal, 6_000, seed=3, void_every=5, fixture_every=12)
        return list(journal.entries())


def _old(entries: list[Entry], by: str) -> dict[str, object]:
    return build_report(read_rounds(_Prefix(entries)), by=by)  # type: ignore[arg-type]


def test_the_journal_has_the_work_the_report_does(journal_entries: list[Entry]) -> None:
    games = {e.data.get("game") for e in journal_entries if e.kind == "round-opened"}
    outcomes = {e.data.get("outcome") for e in journal_entries if e.kind == "round-closed"}
    assert {"mississippi-stud", "seven-card-stud"} <= games and "void" in outcomes
    report = _old(journal_entries, "all")
    assert report["apart"]["void_rounds"] > 0 and report["apart"]["open_rounds"] == 1  # type: ignore[index]
    assert report["apart"]["other_games"] and report["side_wagers"] and report["total"]["rounds"] > 100  # type: ignore[index]


@pytest.mark.parametrize("by", GROUPINGS)
def test_every_grouping_equals_the_file_read_at_every_point(journal_entries: list[Entry], by: str) -> None:
    rng = random.Random(by)
    points = [*sorted(rng.sample(range(1, len(journal_entries)), 3)), len(journal_entries)]
    ledger, taken = RoundLedger(), 0
    for point in points:
        for entry in journal_entries[taken:point]:
            ledger.add(entry)
        taken = point
        assert build_report(ledger.rounds(), by=by) == _old(journal_entries[:point], by), (by, point)


def test_an_entry_given_twice_counts_once(journal_entries: list[Entry]) -> None:
    """The rebuild from the file and the sink's live entries overlap at start: a seq already taken is ignored."""
    ledger = RoundLedger()
    half = len(journal_entries) // 2
    for entry in journal_entries[: half + 50]:
        ledger.add(entry)
    for entry in journal_entries[half:]:
        ledger.add(entry)
    assert build_report(ledger.rounds()) == _old(journal_entries, "all")
    assert ledger.last_seq == journal_entries[-1].seq


def test_a_closed_round_leaves_nothing_but_its_summary(journal_entries: list[Entry]) -> None:
    """An unattended shift closes thousands of rounds: only the open rounds' ids and entries stay held."""
    ledger = RoundLedger()
    for entry in journal_entries:
        ledger.add(entry)
    closed = {e.round_id for e in journal_entries if e.kind == "round-closed"}
    assert ledger.closed_rounds == len(closed) > 100
    assert set(ledger._first_seen) == set(ledger._open) and not set(ledger._open) & closed
