"""Tamper detection: each attack on the file is found and the FIRST bad entry is named."""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from shoe.journal import GENESIS, Journal, VerifyResult, entry_hash, verify_entries
from shoe.journal.chain import COLUMNS, verify_records
from tests.journal import attacker, build


def verify(path: Path) -> VerifyResult:
    with Journal.open(path) as journal:
        return journal.verify()


@pytest.fixture
def journal_file(tmp_path: Path) -> Path:
    return build(tmp_path / "j.sqlite")  # 28 entries: a service entry and one round


def forge(conn: sqlite3.Connection, seq: int, prev_hash: str, kind: str, data: str) -> str:
    ts = "2026-11-29T16:30:00.000000Z"
    digest = entry_hash(prev_hash, seq=seq, ts=ts, kind=kind, round_id="R-0001", data=json.loads(data))
    conn.execute("INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?)", (seq, ts, kind, "R-0001", data, prev_hash, digest))
    return digest


def row_hash(conn: sqlite3.Connection, seq: int) -> str:
    return str(conn.execute("SELECT hash FROM entries WHERE seq = ?", (seq,)).fetchone()[0])


def test_untouched_journal_verifies(journal_file: Path) -> None:
    assert verify(journal_file) == VerifyResult(ok=True, checked=28, first_bad_seq=None, problem=None)


def test_edited_data_is_named(journal_file: Path) -> None:
    with attacker(journal_file) as conn:  # seat 1's first card becomes an ace of hearts
        conn.execute("UPDATE entries SET data = replace(data, '\"As\"', '\"Ah\"') WHERE seq = 4")
    assert verify(journal_file) == VerifyResult(False, 3, 4, "entry 4: hash does not match its contents (edited?)")


def test_edited_and_rehashed_entry_is_caught_at_the_next_link(journal_file: Path) -> None:
    with attacker(journal_file) as conn:
        row = conn.execute("SELECT ts, kind, round_id, data, prev_hash FROM entries WHERE seq = 4").fetchone()
        data = row[3].replace('"As"', '"Ah"')
        digest = entry_hash(row[4], seq=4, ts=row[0], kind=row[1], round_id=row[2], data=json.loads(data))
        conn.execute("UPDATE entries SET data = ?, hash = ? WHERE seq = 4", (data, digest))
    result = verify(journal_file)
    assert (result.first_bad_seq, result.checked) == (5, 4)
    assert result.problem == (
        "entry 5: prev_hash does not match the hash of entry 4 (an entry before it was replaced, inserted or reordered)"
    )


def test_edited_hash_is_named(journal_file: Path) -> None:
    with attacker(journal_file) as conn:
        conn.execute("UPDATE entries SET hash = ? WHERE seq = 9", ("f" * 64,))
    assert verify(journal_file).problem == "entry 9: hash does not match its contents (edited?)"


def test_deleted_entry_is_named(journal_file: Path) -> None:
    with attacker(journal_file) as conn:
        conn.execute("DELETE FROM entries WHERE seq = 12")
    result = verify(journal_file)
    assert (result.ok, result.first_bad_seq, result.checked) == (False, 12, 11)
    assert result.problem == "entry 12 is missing (deleted?): entry 13 follows entry 11"


def test_deleted_first_entry_is_named(journal_file: Path) -> None:
    with attacker(journal_file) as conn:
        conn.execute("DELETE FROM entries WHERE seq = 1")
    assert verify(journal_file).problem == "entry 1 is missing (deleted?): entry 2 follows entry 0"


def test_forged_entry_inserted_in_the_middle(journal_file: Path) -> None:
    with attacker(journal_file) as conn:  # make room at 6, then a well-chained forgery there
        for seq in range(28, 5, -1):
            conn.execute("UPDATE entries SET seq = seq + 1 WHERE seq = ?", (seq,))
        forge(conn, 6, row_hash(conn, 5), "card", '{"card":"Ah","seat":3,"target":"seat"}')
    result = verify(journal_file)
    assert (result.first_bad_seq, result.checked) == (7, 6)
    assert result.problem is not None and result.problem.startswith("entry 7: prev_hash does not match")


def test_forged_entry_with_a_careless_hash(journal_file: Path) -> None:
    with attacker(journal_file) as conn:
        conn.execute("DELETE FROM entries WHERE seq = 6")
        conn.execute("INSERT INTO entries VALUES (6, 'x', 'card', NULL, '{}', ?, ?)", (row_hash(conn, 5), "0" * 64))
    assert verify(journal_file).problem == "entry 6: hash does not match its contents (edited?)"


def test_swapped_entries_are_named(journal_file: Path) -> None:
    with attacker(journal_file) as conn:  # seat 1's two cards change places, hashes and all
        conn.execute("UPDATE entries SET seq = -1 WHERE seq = 4")
        conn.execute("UPDATE entries SET seq = 4 WHERE seq = 5")
        conn.execute("UPDATE entries SET seq = 5 WHERE seq = -1")
    result = verify(journal_file)
    assert (result.first_bad_seq, result.checked) == (4, 3)
    assert result.problem is not None and result.problem.startswith("entry 4: prev_hash does not match")


@pytest.mark.parametrize(("old", "new"), [("1e+16", "1e016"), (",", ", ")])
def test_data_rewritten_to_equivalent_json_is_caught(tmp_path: Path, old: str, new: str) -> None:
    """Same values, other bytes: the stored text must be the canonical form the hash was made from."""
    with Journal.open(tmp_path / "j.sqlite") as journal:
        journal.append("settlement", {"computed": 1e16, "paid": 500})
    with attacker(tmp_path / "j.sqlite") as conn:
        conn.execute("UPDATE entries SET data = replace(data, ?, ?)", (old, new))
    assert verify(tmp_path / "j.sqlite").problem == "entry 1: data is not in canonical form (edited?)"


def test_truncated_tail_is_not_detectable_by_the_chain_alone(journal_file: Path) -> None:
    """Documented limit: cutting entries off the end leaves a valid, shorter chain. Anchor the last hash."""
    with Journal.open(journal_file) as journal:
        anchor = journal.last()
    with attacker(journal_file) as conn:
        conn.execute("DELETE FROM entries WHERE seq > 20")
    with Journal.open(journal_file) as journal:
        assert journal.verify() == VerifyResult(True, 20, None, None)
        last = journal.last()
        assert anchor is not None and last is not None and last.hash != anchor.hash  # what an anchor catches


def test_out_of_order_and_duplicated_records_in_an_export() -> None:
    """The pure verifier also checks records as an export lists them, where order is the file's."""
    records: list[list[Any]] = []
    prev = GENESIS
    for seq in range(1, 6):
        digest = entry_hash(prev, seq=seq, ts="t", kind="card", round_id=None, data={"n": seq})
        records.append([seq, "t", "card", None, {"n": seq}, prev, digest])
        prev = digest
    assert verify_records(records).ok
    swapped = [records[0], records[2], records[1], *records[3:]]
    assert verify_records(swapped).first_bad_seq == 2  # 3 arrives where 2 belongs: 2 is missing there
    duplicated = [*records[:3], records[1], *records[3:]]
    result = verify_records(duplicated)
    assert (result.first_bad_seq, result.problem) == (
        2,
        "entry 2 is out of order: it comes after entry 3 (reordered or inserted?)",
    )
    assert verify_records(records[2:], start_seq=3, start_prev=records[1][6]).ok


# --- properties -----------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=8,
)
appends = st.lists(
    st.tuples(
        st.sampled_from(["card", "decision", "round-opened", "settlement"]) | st.text(min_size=1, max_size=6),
        st.dictionaries(st.text(max_size=5), json_values, max_size=4),
        st.none() | st.text(max_size=6),
    ),
    max_size=8,
)


@settings(max_examples=40, deadline=None)
@given(appends)
def test_any_sequence_of_appends_verifies(batch: list[tuple[str, dict[str, Any], str | None]]) -> None:
    with tempfile.TemporaryDirectory() as folder, Journal.open(Path(folder) / "j.sqlite") as journal:
        written = [journal.append(kind, data, round_id=round_id) for kind, data, round_id in batch]
        assert list(journal.entries()) == written
        assert journal.verify() == VerifyResult(True, len(batch), None, None)
        assert verify_entries(written).ok


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = build(tmp_path_factory.mktemp("pristine") / "j.sqlite")
    with attacker(path):
        pass  # triggers gone once, so every copy can be edited
    return path


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(column=st.sampled_from(COLUMNS), seq=st.integers(1, 28), where=st.integers(0, 10_000), byte=st.integers(0, 255))
def test_any_single_byte_change_is_detected(pristine: Path, column: str, seq: int, where: int, byte: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "j.sqlite"
        shutil.copy2(pristine, path)
        conn = sqlite3.connect(path, isolation_level=None)
        try:
            if column == "seq":  # an integer: give it another value no entry holds
                new_seq = seq + (where % 60) - 30
                assume(new_seq != seq and not 1 <= new_seq <= 28)
                conn.execute("UPDATE entries SET seq = ? WHERE seq = ?", (new_seq, seq))
                first_bad = min(seq, new_seq)
            else:
                old = conn.execute(f"SELECT CAST({column} AS BLOB) FROM entries WHERE seq = ?", (seq,)).fetchone()[0]
                value = bytearray(old or b"")
                if value:
                    assume(value[where % len(value)] != byte)
                    value[where % len(value)] = byte
                else:  # a NULL round_id gets one byte
                    value.append(byte)
                conn.execute(f"UPDATE entries SET {column} = CAST(? AS TEXT) WHERE seq = ?", (bytes(value), seq))
                first_bad = seq
        finally:
            conn.close()
        result = verify(path)
    assert not result.ok and result.first_bad_seq == first_bad, result
    assert result.problem and result.problem.startswith(f"entry {first_bad}")
