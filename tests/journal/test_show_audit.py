"""``shoectl journal show --round`` for an audit, on the journal the
first release wrote (tests/journal/fixtures): its stored forms stay as they are (the fixture still
verifies and replays: test_release_fixtures.py), and what is shown is converted at presentation.

- community cards are numbered 1-3 (3rd/4th/5th street) everywhere shown: a reveal's own number and
  its record's stored 0-based index no longer disagree on one line;
- aligned columns, each seat's outcome and amounts, folded seats marked;
- times in local time with the zone;
- boot ids as 8 lower-case hex digits, never the stored decimal.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shoe.cli.main import main

FIXTURE = Path(__file__).parent / "fixtures" / "release-0.1.0-ac0bba9.sqlite"
NY, PA, NJ = "table-1-20261201T091302Z-03fd3b", "table-1-20261201T091302Z-c0eeed", "table-1-20261201T091302Z-b26e15"
STUD, LINK_LOST = "table-1-20261201T091303Z-439711", "table-1-20261201T091303Z-372a6c"
BOOT_ID = 3154970348  # as the fixture stores it


@pytest.fixture
def journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    target = tmp_path / FIXTURE.name
    shutil.copyfile(FIXTURE, target)
    target.chmod(0o600)
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    yield target
    monkeypatch.undo()
    time.tzset()


def show(capsys: pytest.CaptureFixture[str], journal: Path, round_id: str, *extra: str) -> str:
    capsys.readouterr()
    assert main(["journal", "show", "--journal", str(journal), "--round", round_id, *extra]) == 0
    return capsys.readouterr().out


def shown(capsys: pytest.CaptureFixture[str], journal: Path, round_id: str) -> dict[str, Any]:
    data = json.loads(show(capsys, journal, round_id, "--json"))
    assert isinstance(data, dict)
    return data


def seat_table(text: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("seats in dealing order"))
    table = []
    for line in lines[start + 1 :]:
        if not line.startswith("  "):
            break
        table.append(line)
    return table


def test_community_cards_are_numbered_one_to_three_everywhere_shown(
    capsys: pytest.CaptureFixture[str], journal: Path
) -> None:
    data = shown(capsys, journal, NY)
    assert [(r["data"]["index"], r["data"]["record"]["index"]) for r in data["reveals"]] == [(1, 1), (2, 2), (3, 3)]
    assert [(c["number"], c["street"], c["card"]) for c in data["community_cards"]] == [
        (1, "3rd", "3c"), (2, "4th", "3d"), (3, "5th", "Ac")]  # fmt: skip
    text = show(capsys, journal, NY)
    reveal_lines = [line for line in text.splitlines() if "RevealRecord" in line]
    assert len(reveal_lines) == 3
    for line in reveal_lines:  # the entry's index and its record's index: one number on one line
        numbers = re.findall(r'(?:^|[ "])index"?[=:](\d)', line)
        assert len(numbers) == 2 and numbers[0] == numbers[1], line
    assert re.search(r"^ +1  3rd street  3c\(up\)  #\d+$", text, re.M)
    assert re.search(r"^ +3  5th street  Ac\(up\)  #\d+$", text, re.M)


def test_each_seat_has_its_outcome_and_amounts_in_aligned_columns(
    capsys: pytest.CaptureFixture[str], journal: Path
) -> None:
    seats = {s["seat"]: s for s in shown(capsys, journal, NY)["seats"]}
    assert {n: (s["outcome"], s["wagered"], s["net"]) for n, s in seats.items()} == {
        1: ("lose", 3500, -3500), 3: ("win", 4000, 8000), 5: ("lose", 20000, -20000)}  # fmt: skip
    stud = {s["seat"]: s for s in shown(capsys, journal, STUD)["seats"]}
    assert (stud[1]["outcome"], stud[1]["wagered"], stud[1]["net"]) == ("win", 4925, 14775)
    table = seat_table(show(capsys, journal, NY))
    header = table[0]
    for column in ("cards", "outcome"):  # left-aligned: every value starts under its heading
        at = header.index(column)
        assert all(row[at - 2 : at] == "  " and row[at] != " " for row in table[1:]), (column, table)
    for column in ("wagered", "net", "returned"):  # right-aligned: every value ends under its heading
        end = header.index(column) + len(column)
        assert all(row[end - 1] != " " and row[end : end + 2] == "  " for row in table[1:]), (column, table)
    assert [row.split()[:5] for row in table[1:]] == [
        ["1", "4d", "5s", "lose", "3500"],
        ["3", "As", "5h", "win", "4000"],
        ["5", "5c", "4h", "lose", "20000"],
    ]
    assert "+8000" in table[2] and "-20000" in table[3]


def test_folded_seats_are_marked_with_their_street(capsys: pytest.CaptureFixture[str], journal: Path) -> None:
    seats = {s["seat"]: s for s in shown(capsys, journal, NJ)["seats"]}
    assert (seats[6]["outcome"], seats[6]["folded_on"], seats[6]["net"]) == ("fold", "5th street", -2500)
    assert seats[2]["folded_on"] is None
    assert "FOLDED 5th street" in seat_table(show(capsys, journal, NJ))[2]
    pa = seat_table(show(capsys, journal, PA))
    assert "FOLDED 3rd street" in pa[2] and "three-card-bonus win +500" in pa[1]


def test_times_are_local_with_the_zone(capsys: pytest.CaptureFixture[str], journal: Path) -> None:
    text = show(capsys, journal, NY)
    # stored 2026-12-01T09:13:02.695766Z; New York is UTC-5 in December
    assert "  opened  2026-12-01 04:13:02.695 EST (UTC-05:00)" in text.splitlines()
    assert "2026-12-01T09:13" not in text


def test_boot_ids_are_shown_in_hex(capsys: pytest.CaptureFixture[str], journal: Path) -> None:
    data = shown(capsys, journal, LINK_LOST)
    boots = [e["data"]["boot_id"] for e in data["links"] if "boot_id" in e["data"]]
    assert boots == [f"{BOOT_ID:08x}"] * 2 == ["bc0d06ec"] * 2
    text = show(capsys, journal, LINK_LOST)
    assert "boot_id=bc0d06ec" in text and str(BOOT_ID) not in text
