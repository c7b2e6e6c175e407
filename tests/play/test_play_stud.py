"""``shoectl play`` on the seven-card stud examples (N.J.A.C. 13:47-20.35), checked by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from . import example, nets, outcomes, record


def test_nj_stud_example_in_detail(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = record(capsys, tmp_path, "nj-seven-card-stud")
    assert (data["game"], data["jurisdiction"], data["state"]) == ("seven-card-stud", "NJ", "showdown")
    assert data["dealing_order"] == [1, 2, 4, 6]  # (c) clockwise from the dealer's left
    # (d) up cards Kd, 3c, Ah, 3h: the lowest rank is a 3, and clubs are below hearts: seat 2.
    assert data["bring_in"] == 2
    # (f) 4th: seat 1 shows Kd Kc. 5th on: seat 4 shows a pair of aces (Ah Ad) over the kings.
    assert data["first_to_act"] == {"4": 1, "5": 4, "6": 4, "7": 4}
    assert data["common_card"] is None
    seats = data["seats"]
    assert seats["1"]["cards"] == ["Qs", "Qh", "Kd", "Kc", "4h", "2s", "Jc"]
    assert seats["4"]["cards"] == ["8s", "8c", "Ah", "9d", "Ad", "6c", "Tc"]
    assert seats["2"]["cards"] == ["5d", "5s", "3c", "7s"] and seats["6"]["cards"] == ["Jd", "4d", "3h"]
    # Kings and queens lose to aces and eights; the folded seats have no five-card hand.
    assert {s: row["hand"] for s, row in seats.items()} == {"1": "two-pair", "2": None, "4": "two-pair", "6": None}
    assert outcomes(data) == {1: "lose", 2: "fold", 4: "win", 6: "fold"}
    # Chips in: ante 25 each; 3rd: bring-in 100 completed to 200; 4th: bet 200, raise to 400; 5th: bet 400.
    contributed = {1: 25 + 200 + 400 + 400, 2: 25 + 200, 4: 25 + 200 + 400 + 400, 6: 25}
    assert {int(s): row["contributed"] for s, row in seats.items()} == contributed
    pot = sum(contributed.values())
    assert data["pot"] == pot == 2300
    assert data["winners"] == [4] and data["pot_shares"] == {"4": pot} and data["settlement_order"] == [4]
    assert nets(data) == {1: -1025, 2: -225, 4: pot - 1025, 6: -25}
    assert sum(nets(data).values()) == 0
    assert all(row["side"] == {} for row in seats.values()) and data["misdeal"] is None
    assert data["shoe"] == {"stacks": 25, "cards_dispensed": 25, "stub": None, "scanned": 0}


def test_short_deck_common_card_with_eight_players(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = record(capsys, tmp_path, "nj-seven-card-stud-short-deck")
    assert data["dealing_order"] == list(range(1, 9))
    assert data["bring_in"] == 4  # 2h is the only deuce up on 3rd street
    # (f) 4th street: no pair showing, seat 3's ace is the high card; from 5th, seat 6 shows 8c 8h.
    assert data["first_to_act"] == {"4": 3, "5": 6, "6": 6, "7": 6}
    # (h) 8 x 6 cards + 3 burns = 51: one card left, so the burns are reshuffled with it; the shoe
    # list goes on with the reshuffled burn and the common card As.
    assert data["common_card"] == "As"
    assert data["seats"]["3"]["cards"] == ["Ac", "Ad", "Ah", "2d", "6c", "9c"]
    assert data["seats"]["3"]["hand"] == "four-of-a-kind"  # three aces + the common ace
    assert data["winners"] == [3] and data["pot_shares"] == {"3": 800} and data["pot"] == 800
    # No actions: everyone calls the 100 bring-in and checks after it.
    assert nets(data) == {seat: (700 if seat == 3 else -100) for seat in range(1, 9)}
    assert data["shoe"] == {"stacks": 51, "cards_dispensed": 51, "stub": 2, "scanned": 2}


def test_uncontested_hand(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    script = example("nj-seven-card-stud")
    script["actions"] = [[2, "bring-in", 100], [4, "fold"], [6, "fold"], [1, "fold"]]
    data = record(capsys, tmp_path, script)
    assert data["state"] == "uncontested" and data["winners"] == [2] and data["pot_shares"] == {"2": 200}
    assert data["first_to_act"] == {"4": None, "5": None, "6": None, "7": None}
    assert nets(data) == {1: -25, 2: 200 - 125, 4: -25, 6: -25}
    assert outcomes(data) == {1: "fold", 2: "win", 4: "fold", 6: "fold"}
    assert data["shoe"]["cards_dispensed"] == 12


def test_without_actions_everyone_checks_or_calls(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    script = example("nj-seven-card-stud")
    del script["actions"]
    data = record(capsys, tmp_path, script)
    # Nobody folds, so 4 cards (not 3) follow each burn and the cards after 3rd street land elsewhere.
    assert data["shoe"]["cards_dispensed"] == 12 + 4 * (1 + 4)
    assert data["seats"]["6"]["cards"] == ["Jd", "4d", "3h", "9c", "6c", "2d", "5c"]
    assert data["seats"]["6"]["hand"] == "straight"  # 2d 3h 4d 5c 6c beats three two-pair hands
    assert {s: row["hand"] for s, row in data["seats"].items() if s != "6"} == dict.fromkeys("124", "two-pair")
    # 25 ante + the 100 bring-in called by everyone, then checks: 125 each.
    assert data["pot"] == 500 and data["winners"] == [6] and data["pot_shares"] == {"6": 500}
    assert nets(data) == {1: -125, 2: -125, 4: -125, 6: 375}
    assert data["first_to_act"] == {"4": 1, "5": 1, "6": 1, "7": 1}  # seat 1: Kd Kc showing from 4th street
