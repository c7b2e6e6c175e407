"""A start reads what it needs of the journal, not all of it (start to first 200 independent of
the journal's size).

``scan_journal`` finds the last ``service`` entry and the last round through the journal's indexes; it
read every ``service``, ``round-opened`` and ``round-closed`` entry before (91 ms of a 59,000-entry
journal's start, measured in this change's commit).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from shoe.journal import Entry, Journal
from shoe.service.rounds.recovery import scan_journal


class CountingJournal(Journal):
    """A real journal that counts the entries its readers are handed."""

    read = 0

    def entries(self, **kwargs: Any) -> Iterator[Entry]:
        for entry in super().entries(**kwargs):
            self.read += 1
            yield entry


def _journal(path: Path, rounds: int, *, open_last: bool = False) -> CountingJournal:
    journal = CountingJournal.open(path)
    assert isinstance(journal, CountingJournal)
    journal.append("service", {"event": "start", "pid": 1, "open_round": None, "known_dispense_id": 0})
    for n in range(1, rounds + 1):
        rid = f"t-{n}"
        journal.append("round-opened", {"game": "mississippi-stud"}, round_id=rid)
        journal.append("decision", {"action": "no-more-bets"}, round_id=rid)
        if n < rounds or not open_last:
            journal.append("round-closed", {"outcome": "complete"}, round_id=rid)
    journal.append("service", {"event": "stop", "open_round": None, "known_dispense_id": 7, "boot_id": 3,
                               "event_no": 9})  # fmt: skip
    return journal


def test_a_start_reads_the_same_few_entries_of_a_short_and_a_long_journal(tmp_path: Path) -> None:
    counts = []
    for rounds in (3, 300):
        journal = _journal(tmp_path / f"j{rounds}.sqlite", rounds)
        try:
            facts = scan_journal(journal)
        finally:
            journal.close()
        assert facts.open_round is None and facts.known_dispense_id == 7 and facts.resume == (3, 9)
        counts.append(journal.read)
    assert counts[0] == counts[1] <= 5, counts


def test_the_last_round_still_open_is_found_with_its_entries(tmp_path: Path) -> None:
    journal = _journal(tmp_path / "j.sqlite", 50, open_last=True)
    try:
        facts = scan_journal(journal)
    finally:
        journal.close()
    assert facts.open_round is not None and facts.open_round.round_id == "t-50"
    assert [e.kind for e in facts.round_entries] == ["round-opened", "decision"]
    assert journal.read <= 5
