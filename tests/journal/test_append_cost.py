"""The append path: the chain head is kept in memory and the data serialised once, with the
same chain as before, one chain even if a second writer appends, and never an answer before the commit."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from shoe.journal import Journal
from shoe.journal.chain import canonical, entry_hash, entry_hash_of_text

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(data=st.dictionaries(st.text(), JSON, max_size=5), seq=st.integers(1, 10**9), rid=st.none() | st.text())
def test_the_hash_from_the_serialised_text_is_the_chain_hash(
    data: dict[str, object], seq: int, rid: str | None
) -> None:
    kind, ts = "card", "2026-12-01T14:00:00.000000Z"
    text = canonical(data)
    expected = entry_hash("ab" * 32, seq=seq, ts=ts, kind=kind, round_id=rid, data=data)
    assert entry_hash_of_text("ab" * 32, seq=seq, ts=ts, kind=kind, round_id=rid, data_text=text) == expected


def test_appends_read_the_chain_head_once(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.sqlite") as journal:
        journal.append("service", {"event": "start"})
        statements: list[str] = []
        assert journal._conn is not None
        journal._conn.set_trace_callback(statements.append)
        for i in range(5):
            journal.append("card", {"n": i}, round_id="r1")
        assert not [s for s in statements if s.lstrip().upper().startswith("SELECT")], statements
        assert journal.verify().ok and journal.verify().checked == 6


def test_a_second_writer_on_the_same_file_keeps_one_chain(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal.open(path) as one, Journal.open(path) as two:
        for i in range(4):
            one.append("card", {"n": i, "by": 1})
            two.append("card", {"n": i, "by": 2})
        before = two.last()
        last = one.append("card", {"n": 99})
        assert before is not None and (last.seq, last.prev_hash) == (9, before.hash)
        result = one.verify()
        assert result.ok and result.checked == 9, result
