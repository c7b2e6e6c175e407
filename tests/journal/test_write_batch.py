"""``Journal.write``: a batch of entries in one transaction (group commit), each still its own row
with its own seq and hash, chained exactly as appends one by one; all of it committed, or none."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from shoe.journal import Journal, JournalDataError, JournalError, prepare
from shoe.journal.chain import entry_hash


def test_a_batch_is_one_transaction_of_chained_rows(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.sqlite") as journal:
        journal.append("service", {"event": "start"})
        statements: list[str] = []
        assert journal._conn is not None
        journal._conn.set_trace_callback(statements.append)
        written = journal.write([prepare("card", {"n": i}, "r1") for i in range(5)])
        journal._conn.set_trace_callback(None)
        assert [s.strip().upper() for s in statements].count("COMMIT") == 1
        assert [e.seq for e in written] == [2, 3, 4, 5, 6]
        stored = list(journal.entries())
        assert stored[1:] == written  # as readers read them back
        for before, entry in itertools.pairwise(stored):
            assert entry.prev_hash == before.hash
            assert entry.hash == entry_hash(
                before.hash, seq=entry.seq, ts=entry.ts, kind=entry.kind, round_id=entry.round_id, data=entry.data
            )
        assert journal.verify().ok and journal.verify().checked == 6
        assert journal.append("card", {"n": 99}).seq == 7 and journal.head_seq() == 7


def test_a_batch_that_fails_part_way_writes_none_of_it(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.sqlite") as journal:
        journal.append("service", {"event": "start"})
        assert journal._conn is not None
        journal._conn.execute(
            "CREATE TRIGGER boom BEFORE INSERT ON entries WHEN NEW.kind = 'boom'"
            " BEGIN SELECT RAISE(ABORT, 'injected'); END"
        )
        batch = [prepare("card", {"n": 1}), prepare("card", {"n": 2}), prepare("boom", {}), prepare("card", {"n": 4})]
        with pytest.raises(JournalError, match="could not write"):
            journal.write(batch)
        assert [e.seq for e in journal.entries()] == [1]
        assert journal.append("card", {"n": 5}).seq == 2  # the chain goes on from the last committed entry
        assert journal.verify().ok


def test_data_the_journal_cannot_record_is_refused_before_a_batch_is_built(tmp_path: Path) -> None:
    with pytest.raises(JournalDataError, match="nothing was written"):
        prepare("card", {"n": float("nan")})
    with pytest.raises(JournalDataError, match="nothing was written"):
        prepare("card", {"text": "\ud800"})
    with Journal.open(tmp_path / "j.sqlite") as journal:
        assert journal.write([]) == [] and journal.head_seq() == 0  # a batch of nothing writes nothing
