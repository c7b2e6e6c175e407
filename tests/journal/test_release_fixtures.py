"""Journals written by earlier releases still verify, replay and reconstruct with today's code.

Each fixture in ``tests/journal/fixtures/`` was written once by the release its name gives (the commit
is in the name), by ``make_release_journal.py`` beside it: a miniature shift with every game, side
wager, irregularity and technician step that release journaled. A change that renames a record tag,
an entry kind or a field breaks one of these tests, never a casino's old journals silently.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from shoe.journal import Journal
from shoe.journal.reconstruct import reconstruct_round
from shoe.service.core import GAMES
from shoe.service.rounds.run import rebuild

FIXTURES = Path(__file__).parent / "fixtures"
RELEASES = sorted(FIXTURES.glob("release-*.sqlite"))


def _copy(fixture: Path, tmp_path: Path) -> Path:
    """A private copy (the journal opens read-write: the committed fixture must never change)."""
    target = tmp_path / fixture.name
    shutil.copyfile(fixture, target)
    target.chmod(0o600)
    return target


def _rounds(journal: Journal) -> dict[str, list[Any]]:
    rounds: dict[str, list[Any]] = {}
    for entry in journal.entries():
        if entry.round_id is not None:
            rounds.setdefault(entry.round_id, []).append(entry)
    return rounds


def test_there_is_a_fixture_of_the_first_release() -> None:
    assert [p.name for p in RELEASES][:1] == ["release-0.1.0-ac0bba9.sqlite"]


@pytest.mark.parametrize("fixture", RELEASES, ids=lambda p: p.stem)
def test_an_old_journal_verifies(fixture: Path, tmp_path: Path) -> None:
    with Journal.open(_copy(fixture, tmp_path)) as journal:
        result = journal.verify()
        assert result.ok, result.problem
        assert result.checked == sum(1 for _ in journal.entries())


@pytest.mark.parametrize("fixture", RELEASES, ids=lambda p: p.stem)
def test_every_round_of_an_old_journal_replays_to_its_recorded_outcome(fixture: Path, tmp_path: Path) -> None:
    with Journal.open(_copy(fixture, tmp_path)) as journal:
        rounds = _rounds(journal)
    assert len(rounds) >= 6
    games = set()
    for round_id, entries in rounds.items():
        opened = next(e for e in entries if e.kind == "round-opened")
        closed = [e for e in entries if e.kind == "round-closed"]
        assert len(closed) == 1, round_id
        run = rebuild(opened, [e for e in entries if e.seq < closed[0].seq], GAMES)
        assert run.terminal, f"{round_id} replays to {run.state}, not to its end"
        assert run.closing() == closed[0].data, round_id
        games.add((opened.data["game"], opened.data["jurisdiction"]))
    assert games == {("mississippi-stud", "NY"), ("mississippi-stud", "PA"), ("mississippi-stud", "NJ"),
                     ("seven-card-stud", "NJ")}  # fmt: skip


@pytest.mark.parametrize("fixture", RELEASES, ids=lambda p: p.stem)
def test_every_round_of_an_old_journal_reconstructs_as_it_did_then(fixture: Path, tmp_path: Path) -> None:
    """``shoectl journal show --round`` of each round equals what the release that wrote it showed."""
    with Journal.open(_copy(fixture, tmp_path)) as journal:
        shown = {rid: reconstruct_round(entries) for rid, entries in _rounds(journal).items()}
    expected = json.loads(fixture.with_suffix(".rounds.json").read_text(encoding="utf-8"))
    assert json.loads(json.dumps(shown)) == expected
