"""Data the journal cannot record is refused whole, before the database is touched.

A lone surrogate (``"\\ud800"``) is a Python string that has no UTF-8 form: the hash step raised
``UnicodeEncodeError``, neither a journal error nor a rollback. Every such value is now a typed
``JournalDataError`` (a ``JournalError``) raised before ``BEGIN``, and nothing is written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from shoe.journal import Journal, JournalDataError, JournalError, canonical


def _deep(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


UNRECORDABLE: list[tuple[str, dict[str, Any], str | None]] = [
    ("surrogate value", {"cause": "\ud800"}, None),
    ("surrogate key", {"meters": {"meter": 99_999_999, "\ud800": 1}}, None),
    ("surrogate round id", {"x": 1}, "R-\udfff"),
    ("nan", {"x": float("nan")}, None),
    ("set", {"x": {1, 2}}, None),
    ("30,000-deep array", {"x": _deep(30_000)}, None),
    ("5,000-digit integer", {"x": 10**5000}, None),
]


@pytest.mark.parametrize(
    ("data", "round_id"), [(d, r) for _, d, r in UNRECORDABLE], ids=[n for n, _, _ in UNRECORDABLE]
)
def test_unrecordable_data_is_a_journal_data_error_and_nothing_is_written(
    tmp_path: Path, data: dict[str, Any], round_id: str | None
) -> None:
    with Journal.open(tmp_path / "j.sqlite") as journal:
        before = journal.append("service", {"event": "start"})
        with pytest.raises(JournalDataError) as caught:
            journal.append("decision", data, round_id=round_id)
        assert isinstance(caught.value, JournalError)
        assert "nothing was written" in str(caught.value)
        assert journal.last() == before
        after = journal.append("service", {"event": "still usable"})  # the connection is not left in a transaction
        assert after.seq == 2 and journal.verify().ok


def test_surrogate_kind_is_refused(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.sqlite") as journal, pytest.raises(JournalDataError):
        journal.append("card\ud800", {})


def test_canonical_is_always_encodable() -> None:
    with pytest.raises(JournalDataError, match="UTF-8"):
        canonical({"a": "\ud800"})
    assert canonical({"b": "é", "a": 1}).encode("utf-8") == b'{"a":1,"b":"\xc3\xa9"}'
