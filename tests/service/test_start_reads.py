"""A start reads the same few journal entries whatever the journal holds (start to first 200
independent of the journal's size), counted with a real service on a real journal, never timed.

The feed's history (the last ``FEED_REFILL`` entries) was read and projected at every start (~150 ms of
one on a used journal); it is now read when a stream first asks for a cursor before the start. The
shoe-position check at connect read every ``link`` entry of the journal to find the last position.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from shoe.journal import Entry, Journal
from shoe.service.journal.sink import FEED_REFILL
from shoe.service.rounds.recovery import POSITION_WINDOW
from tests.service.conftest import Table


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many entries ``Journal.entries`` handed out, anywhere in this process."""
    count = [0]
    real = Journal.entries

    def counting(self: Journal, **kwargs: Any) -> Iterator[Entry]:
        for entry in real(self, **kwargs):
            count[0] += 1
            yield entry

    monkeypatch.setattr(Journal, "entries", counting)
    return count


def _grow(table: Table, entries: int, kind: str, data: dict[str, Any]) -> None:
    """Run the service once, append ``entries`` filler entries on its journal, stop it cleanly."""
    service = table.start()
    journal = service._owner.sink.journal
    assert journal is not None
    for _ in range(entries):
        journal.append(kind, data)
    service.stop()


def _start_reads(table: Table, reads: list[int]) -> int:
    before = reads[0]
    service = table.start()
    read = reads[0] - before
    service.stop()
    return read


@pytest.mark.parametrize(
    ("kind", "data"),
    [
        ("people", {"action": "filler"}),  # the feed's history: it was read at every start
        ("link", {"event": "restored", "attempts": 1}),  # the position check read every link entry
    ],
)
def test_a_start_reads_as_much_of_a_long_journal_as_of_a_short_one(
    table_factory: Callable[..., Table], reads: list[int], kind: str, data: dict[str, Any]
) -> None:
    counts = []
    for filler in (3, FEED_REFILL + 500):
        table = table_factory()
        table.journal = table.journal.with_name(f"journal-{kind}-{filler}.sqlite")
        table.config = dataclasses.replace(table.config, journal=table.journal)
        _grow(table, filler, kind, data)
        _start_reads(table, reads)  # one start appends its position entry after the filler
        counts.append(_start_reads(table, reads))
    # The position is looked for in windows of seq near the end: what else lies in the first ones varies.
    assert counts[1] <= counts[0] + 2 * POSITION_WINDOW, counts


def test_a_stream_resumes_from_before_the_start_with_what_the_journal_holds(
    table_factory: Callable[..., Table],
) -> None:
    table = table_factory()
    _grow(table, 10, "link", {"event": "restored", "attempts": 1})
    first = table.entries()
    service = table.start()
    latest, events = service.events_since(0, 0.0)
    assert latest >= first[-1].seq
    assert [e["cursor"] for e in events][: len(first)] == [e.seq for e in first]
    assert all(e["type"] for e in events)
    late = service.events_since(first[-1].seq - 3, 0.0)[1]
    assert [e["cursor"] for e in late][:3] == [e.seq for e in first[-3:]]
