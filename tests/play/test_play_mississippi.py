"""``shoectl play`` on the Mississippi stud examples, checked against hand-computed settlements.

Base paytable (to 1, rules digest): royal 500, straight flush 100, quads 40, full house 10, flush 6,
straight 4, trips 3, two pair 2, pair of jacks or better 1, pair of 6s-10s push.  ``net`` is on the
ante and the street bets only.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from . import example, nets, outcomes, record


def test_ny_example_in_detail(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = record(capsys, tmp_path, "ny-mississippi-stud")
    assert (data["game"], data["jurisdiction"], data["state"]) == ("mississippi-stud", "NY", "complete")
    # NY 5324.38(d)(2): one stack per wagering seat, ascending; seat 4 placed no wager and gets none.
    assert data["dealing_order"] == [1, 2, 3, 5, 6]
    # (e)(7): descending; seat 3 folded on 3rd street and was collected at once (not settled).
    assert data["settlement_order"] == [6, 5, 2, 1]
    # The stub starts right after the last stack: the community cards are the next three in the list.
    assert data["community"] == ["Kh", "9s", "Qc"]
    seats = data["seats"]
    assert {s: row["cards"] for s, row in seats.items()} == {
        "1": ["As", "Ad"], "2": ["2c", "7d"], "3": ["4s", "3d"], "5": ["8c", "8d"], "6": ["Jh", "Tc"],
    }  # fmt: skip
    assert {s: row["hand"] for s, row in seats.items()} == {
        "1": "pair", "2": "high-card", "3": "high-card", "5": "pair", "6": "straight",
    }  # fmt: skip
    assert outcomes(data) == {1: "win", 2: "lose", 3: "fold", 5: "push", 6: "win"}
    assert nets(data) == {
        1: 1000 + 3000 + 2000 + 1000,  # pair of aces, 1 to 1 on ante 1000 and bets 3x, 2x, 1x
        2: -(500 * 4),  # king high loses the ante and three 1x bets
        3: -500,  # folded on 3rd street: the ante only
        5: 0,  # pair of 8s: push
        6: 4 * (500 + 3 * 1500),  # 9-T-J-Q-K straight, 4 to 1 on 5,000
    }
    assert seats["1"]["ante"] == 1000 and seats["1"]["bets"] == [3000, 2000, 1000]
    assert seats["3"]["bets"] == []
    assert all(row["side"] == {} for row in seats.values())
    assert data["misdeal"] is None
    assert data["shoe"] == {"stacks": 5, "cards_dispensed": 10, "stub": 52 - 10, "scanned": 3}


def test_pa_example_with_every_side_wager(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = record(capsys, tmp_path, "pa-mississippi-stud")
    assert data["dealing_order"] == [1, 2, 4, 6]
    # PA 655a.11(h): seat 4 folded but kept its Three Card and Five Card wagers, so it is settled in turn;
    # seat 6 folded with no side wager and was collected at once.
    assert data["settlement_order"] == [4, 2, 1]
    assert data["community"] == ["Th", "Jh", "Qh"]
    assert {s: row["hand"] for s, row in data["seats"].items()} == {
        "1": "royal-flush", "2": "straight-flush", "4": "high-card", "6": "pair",
    }  # fmt: skip
    assert outcomes(data) == {1: "win", 2: "win", 4: "fold", 6: "fold"}
    assert nets(data) == {
        1: 500 * (500 + 3 * 1500),  # royal flush 500 to 1 on 5,000; below the $50,000 cap
        2: 100 * (4 * 500),  # straight flush 100 to 1 on 2,000
        4: -1000,  # folded on 3rd street
        6: -(500 + 1000),  # 2x on 3rd street, folded on 4th
    }
    one, two, four = (data["seats"][s]["side"] for s in ("1", "2", "4"))
    meter = 2_500_000
    # Progressive table A (for 1): royal 100% of the meter, straight flush 10%; paid from documentation.
    assert one["progressive"]["paid"] == meter and one["progressive"]["net"] == meter - 100
    assert one["progressive"]["paid_from"] == "documentation" and one["progressive"]["floorperson"] is True
    assert two["progressive"]["paid"] == meter // 10 and two["progressive"]["net"] == meter // 10 - 100
    # Envy: a fixed sum per OTHER player's royal (100,000) or straight flush (10,000).
    assert one["envy"]["net"] == 10_000 and "seat 2" in one["envy"]["note"]
    assert two["envy"]["net"] == 100_000 and "seat 1" in two["envy"]["note"]
    # Three Card Bonus on Th Jh Qh, a three-card straight flush: 40 to 1.
    assert one["three-card-bonus"]["net"] == 40 * 500 and one["three-card-bonus"]["paid"] == 41 * 500
    assert four["three-card-bonus"]["net"] == 40 * 1000
    # Five Card Hand Bonus: royal 100% of the meter; straight flush 500 for 1 (floorperson); high card loses.
    assert one["five-card-hand-bonus"]["paid"] == meter
    assert two["five-card-hand-bonus"]["net"] == 500 * 1000 - 1000 and two["five-card-hand-bonus"]["floorperson"]
    assert four["five-card-hand-bonus"]["result"] == "lose" and four["five-card-hand-bonus"]["net"] == -500
    # Magic Card 2c is in seat 4's five cards (2,500 fixed); Lucky seat 2 gets 2 to 1 on its 1,000 stake.
    assert four["magic-card-bonus"]["net"] == 2500 and one["magic-card-bonus"]["net"] == 0
    assert two["lucky-bonus"]["net"] == 2 * 1000 and one["lucky-bonus"]["result"] == "lose"
    assert "envy" not in four and data["seats"]["6"]["side"] == {}


def test_nj_example_with_a_better_paytable(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = record(capsys, tmp_path, "nj-mississippi-stud")
    assert data["jurisdiction"] == "NJ"
    assert data["dealing_order"] == [2, 4] and data["settlement_order"] == [4]
    assert data["seats"]["4"]["cards"] == ["3d", "9d"] and data["seats"]["4"]["hand"] == "flush"
    assert outcomes(data) == {2: "fold", 4: "win"}
    assert nets(data) == {2: -(1000 + 1000), 4: 8 * (500 + 3 * 1000)}  # the table pays a flush 8 to 1


def test_everyone_folds_and_the_community_cards_stay_face_down(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    script = example("ny-mississippi-stud")
    for row in script["seats"].values():
        row["decisions"] = [0]
    data = record(capsys, tmp_path, script)
    assert data["state"] == "complete" and data["community"] == [] and data["settlement_order"] == []
    assert set(outcomes(data).values()) == {"fold"}
    assert data["shoe"]["scanned"] == 0 and data["shoe"]["stub"] == 42


def test_the_script_order_is_the_shoe_order(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Seat keys in any order: the stacks still go to the wagering seats ascending, top of the deck first."""
    script = example("nj-mississippi-stud")
    script["seats"] = dict(reversed(list(script["seats"].items())))
    data = record(capsys, tmp_path, script)
    assert data["dealing_order"] == [2, 4] and data["seats"]["2"]["cards"] == ["Tc", "Ts"]
