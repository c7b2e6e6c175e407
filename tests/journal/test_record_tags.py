"""Every rules record the journal holds carries an explicit, stable tag.

``fixtures/record-tags.json`` pins the table tag -> class name -> field names: renaming a record class
or one of its fields fails here first (then decide: keep the tag, and teach the codec the old field
name if a field changed). A class renamed with its tag kept still replays every old journal.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest

from shoe.cards import Card
from shoe.journal import Journal
from shoe.rules.mississippi import StackRecord
from shoe.service.core import GAMES
from shoe.service.journal import codec
from shoe.service.journal.codec import CodecError, decode_record, encode_record, tag_of, tagged_types
from shoe.service.journal.visibility import RECORDS
from shoe.service.rounds.run import rebuild

FIXTURES = Path(__file__).parent / "fixtures"
GOLDEN = FIXTURES / "record-tags.json"
RELEASE = FIXTURES / "release-0.1.0-ac0bba9.sqlite"


def table() -> dict[str, dict[str, Any]]:
    """Today's table: each tag, the class that declares it, and the fields the codec writes."""
    return {
        tag: {"class": cls.__name__, "fields": [f.name for f in dataclasses.fields(cls)]}
        for tag, cls in sorted(tagged_types().items())
    }


def test_the_tag_table_is_pinned() -> None:
    expected = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert table() == expected, (
        "a record class, tag or field changed: old journals hold the pinned names. Keep the TAG when "
        "renaming a class; a changed field needs the codec to read the old name. Only a new record type "
        f"may be added to {GOLDEN.name}"
    )


def test_every_tag_is_declared_by_its_own_class() -> None:
    for tag, cls in tagged_types().items():
        assert vars(cls)["TAG"] == tag


def test_visibility_is_keyed_by_the_tags() -> None:
    assert set(RECORDS) == set(tagged_types())


@dataclass(frozen=True)
class _Untagged:
    seat: int


@dataclass(frozen=True)
class _Inherits(StackRecord):
    """A subclass does not inherit its parent's tag: two classes under one name would be ambiguous."""


def test_a_record_class_without_a_tag_is_refused() -> None:
    with pytest.raises(CodecError, match="declares no journal tag"):
        encode_record(_Untagged(1))
    with pytest.raises(CodecError, match="declares no journal tag"):
        tag_of(_Inherits)
    with pytest.raises(CodecError, match="declared by both"):

        @dataclass(frozen=True)
        class Twin:
            TAG: ClassVar[str] = "StackRecord"

        codec._by_tag([StackRecord, Twin])


def _release_copy(tmp_path: Path) -> Path:
    """A private copy of the first release's journal (the committed fixture must never change)."""
    copy = tmp_path / RELEASE.name
    shutil.copyfile(RELEASE, copy)
    copy.chmod(0o600)
    return copy


def test_a_nested_record_of_the_wrong_tag_is_refused(tmp_path: Path) -> None:
    with Journal.open(_release_copy(tmp_path)) as journal:
        settled = [e.data["record"] for e in journal.entries(kinds=("settlement",)) if "record" in e.data]
    record = json.loads(json.dumps(next(r for r in settled if r["wagers"])))
    assert encode_record(decode_record(record)) == record
    record["wagers"][0]["type"] = "SideResult"
    with pytest.raises(CodecError, match="where a 'WagerLine' belongs"):
        decode_record(record)


@pytest.fixture
def renamed() -> Iterator[None]:
    """Every record class renamed (the kind of refactoring the tags exist for); the tags kept."""
    names = {cls: (cls.__name__, cls.__qualname__) for cls in tagged_types().values()}
    try:
        for cls, (name, qualname) in names.items():
            cls.__name__, cls.__qualname__ = f"Renamed{name}", f"Renamed{qualname}"
        codec._registry.cache_clear()
        codec._all_tagged.cache_clear()
        yield
    finally:
        for cls, (name, qualname) in names.items():
            cls.__name__, cls.__qualname__ = name, qualname
        codec._registry.cache_clear()
        codec._all_tagged.cache_clear()


def test_a_renamed_class_keeps_writing_its_tag(renamed: None) -> None:
    record = StackRecord(1, 1, (Card.parse("As"), Card.parse("Kd")), "NY 5324.38(d)")
    assert type(record).__name__ == "RenamedStackRecord"
    assert encode_record(record)["type"] == "StackRecord"
    assert decode_record(encode_record(record)) == record


def test_a_renamed_class_still_replays_the_first_release(renamed: None, tmp_path: Path) -> None:
    with Journal.open(_release_copy(tmp_path)) as journal:
        rounds: dict[str, list[Any]] = {}
        for entry in journal.entries():
            if entry.round_id is not None:
                rounds.setdefault(entry.round_id, []).append(entry)
    assert len(rounds) >= 6
    for round_id, entries in rounds.items():
        opened = next(e for e in entries if e.kind == "round-opened")
        closed = next(e for e in entries if e.kind == "round-closed")
        run = rebuild(opened, [e for e in entries if e.seq < closed.seq], GAMES)
        assert run.closing() == closed.data, round_id
