"""A round rebuilt from the journal in dealing order (NY 5324.38(e)(8), PA 655a.11(j))."""

from __future__ import annotations

import re
from pathlib import Path

from shoe.journal import Entry, Journal
from shoe.journal.present import present_round
from shoe.journal.present import round_text as _text
from shoe.journal.reconstruct import card_text, reconstruct_round
from tests.journal import COMMUNITY, ROUND, STACKS, build

SEATS = "seats in dealing order (cents; wagered and net: the ante and street bets, stud: the pot):"
COMMUNITY_HEADING = "community cards (1, 2, 3: turned over on 3rd, 4th, 5th street):"


def round_text(r: dict[str, object]) -> str:
    return _text(present_round(r))


def round_entries(tmp_path: Path) -> list[Entry]:
    with Journal.open(build(tmp_path / "j.sqlite", rounds=2)) as journal:
        return list(journal.entries(round_id=ROUND))


def test_seats_in_dealing_order_with_their_cards_in_order(tmp_path: Path) -> None:
    r = reconstruct_round(round_entries(tmp_path))
    assert (r["round_id"], r["game"], r["jurisdiction"]) == (ROUND, "mississippi-stud", "NY")
    assert [s["seat"] for s in r["seats"]] == [1, 3, 5]
    assert {s["seat"]: tuple(c["card"] for c in s["cards"]) for s in r["seats"]} == STACKS
    assert [(c["dispense_id"], c["position"]) for c in r["seats"][1]["cards"]] == [(2, 1), (2, 2)]
    assert r["seats"][2]["wagers"] == {"ante": 500, "three_card_bonus": 100}
    assert [(c["index"], c["card"]) for c in r["community"]] == [(1, "Th"), (2, "2c"), (3, "9s")]
    assert [c["card"] for c in r["dealing_order"]] == ["As", "Kd", "7c", "7d", "Qh", "Jh", *COMMUNITY]
    assert [e["data"]["seat"] for e in r["settlements"]] == [5, 3, 1]
    assert len(r["decisions"]) == 9 and r["irregularities"] == [] and r["burns"] == []
    assert r["closed"]["outcome"] == "settled" and r["links"] == []  # the link entry had no round id


def test_input_order_does_not_matter_seq_does(tmp_path: Path) -> None:
    entries = round_entries(tmp_path)
    assert reconstruct_round(reversed(entries)) == reconstruct_round(entries)


def test_text_view(tmp_path: Path) -> None:
    text = round_text(reconstruct_round(round_entries(tmp_path)))
    lines = text.splitlines()
    seat_lines = [line.split()[:3] for line in lines[lines.index(SEATS) + 2 :][:3]]
    assert seat_lines == [["1", "As", "Kd"], ["3", "7c", "7d"], ["5", "Qh", "Jh"]]
    start = lines.index(COMMUNITY_HEADING) + 2
    assert [line.split()[:4] for line in lines[start : start + 3]] == [
        ["1", "3rd", "street", "Th(up)"],
        ["2", "4th", "street", "2c(up)"],
        ["3", "5th", "street", "9s(up)"],
    ]
    assert "irregularities: none" in lines and lines[2].startswith("  closed  ") and lines[2].endswith(": settled")


def entry(seq: int, kind: str, data: dict[str, object]) -> Entry:
    return Entry(seq, f"2026-11-29T16:30:{seq:02d}.000000Z", kind, "R-9", data, "0" * 64, "0" * 64)


def test_burns_irregularities_unread_cards_and_seats_without_cards() -> None:
    seats = {"2": {"ante": 500}, "4": {"ante": 500}, "6": {"ante": 500}}
    entries = [
        entry(1, "round-opened", {"game": "mississippi-stud", "jurisdiction": "PA", "seats": seats}),
        entry(2, "card", {"target": "burn", "card": "5d", "face": "down", "status": "ok"}),
        entry(3, "card", {"target": "seat", "seat": 4, "card": "Ac", "face": "down", "status": "ok"}),
        entry(4, "card", {"target": "seat", "seat": 4, "card": None, "face": "down", "status": "unreadable"}),
        entry(5, "card", {"target": "seat", "seat": 2, "card": "3s", "face": "down", "status": "ok"}),
        entry(6, "irregularity", {"event": "unreadable card", "outcome": "misdeal"}),
        entry(7, "technician", {"action": "confirm", "by": "T-17"}),
        entry(8, "fault", {"code": "JAM"}),
        entry(9, "operator-note", {"text": "shoe replaced"}),
        entry(10, "round-closed", {"outcome": "void"}),
    ]
    r = reconstruct_round(entries)
    assert [s["seat"] for s in r["seats"]] == [4, 2, 6]  # as dealt; 6 wagered but got no cards
    assert r["seats"][2]["cards"] == [] and r["seats"][2]["wagers"] == {"ante": 500}
    assert [c["card"] for c in r["burns"]] == ["5d"]
    assert [card_text(c) for c in r["seats"][0]["cards"]] == ["Ac", "??(unreadable)"]
    assert r["irregularities"][0]["data"]["outcome"] == "misdeal"
    assert [e["kind"] for e in r["other"]] == ["operator-note"]
    text = round_text(r)
    assert "burns: 5d" in text and re.search(r"\n +6  \(no cards\)", text) and "closed" in text and "void" in text
    local = r"\S+ \S+ \S+ \(UTC[+-]\d\d:\d\d\)"  # the time in local time with the zone
    assert re.search(rf"irregularities:\n  #6 +{local}  event=unreadable card outcome=misdeal", text)
    assert re.search(rf"  #9 +{local}  operator-note text=shoe replaced", text)


def test_seven_card_stud_up_cards_are_marked() -> None:
    entries = [
        entry(1, "round-opened", {"game": "seven-card-stud", "jurisdiction": "NJ", "seats": {"1": {"ante": 100}}}),
        entry(2, "card", {"target": "seat", "seat": 1, "card": "9h", "face": "up", "status": "ok"}),
        entry(3, "card", {"target": "common", "card": "Kc", "face": "up", "status": "ok"}),
    ]
    r = reconstruct_round(entries)
    assert card_text(r["seats"][0]["cards"][0]) == "9h(up)" and [c["card"] for c in r["common"]] == ["Kc"]
    assert "common card: Kc(up)" in round_text(r) and "not closed" in round_text(r)


def test_seats_as_shoed_journals_them_for_each_game() -> None:
    """Mississippi: a mapping of wagers; seven-card stud: a list of seat numbers (or of objects with ``seat``)."""
    stud: dict[str, object] = {"game": "seven-card-stud", "jurisdiction": "NJ", "seats": [1, 2, 4]}
    entries = [
        entry(1, "round-opened", stud),
        entry(2, "card", {"target": "seat", "seat": 2, "index": 1, "card": "Qs", "face": "down", "status": "ok"}),
        entry(3, "round-closed", {"outcome": "complete"}),
    ]
    r = reconstruct_round(entries)
    assert [(s["seat"], s["wagers"]) for s in r["seats"]] == [(2, None), (1, None), (4, None)]
    text = round_text(r)
    assert re.search(r"\n +4  \(no cards\) .* -$", text, re.M)
    listed = {**stud, "seats": [{"seat": 3, "ante": 500}, {"seat": 5}]}
    r = reconstruct_round([entry(1, "round-opened", listed)])
    assert [(s["seat"], s["wagers"]) for s in r["seats"]] == [(3, {"ante": 500}), (5, None)]
    r = reconstruct_round([entry(1, "round-opened", {**stud, "seats": None})])
    assert r["seats"] == []
