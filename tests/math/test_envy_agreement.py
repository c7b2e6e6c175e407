"""The Envy Bonus priced as it is paid (PA 655a.11(h), (i)(4)(i)(E); docs/rules-engine.md decision 8).

The rules engine counts a folded hand kept for a side wager as an Envy holder; the sheet
(``shoe.math.side.envy_per_player``, ``shoectl math --side envy``) priced Envy as if folded hands
never qualified (a straight flush 29/3248700 per other player where the engine pays 3/216580). Here
the engine settles a round for every five-card hand that can qualify (every one-suit hand: a royal
or straight flush has one suit), dealt to a player who folds on 3rd street keeping a Three Card Bonus,
and the straight and royal flushes it pays Envy for, over C(52, 5), are the sheet's probabilities.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from fractions import Fraction
from itertools import combinations
from pathlib import Path

from shoe.math.par import par_sheet
from shoe.math.side import envy_per_player
from shoe.rules.paytables import MISSISSIPPI_MINIMUM
from tests.rules.test_mississippi_support import ENVY
from tests.rules.test_pa_side_wagers import PROG, pa_round, play, side

RANKS = "23456789TJQKA"


def _engine_envy_counts(kept: bool) -> dict[str, int]:
    """Over every one-suit five-card hand of seat 2 (2 hole + 3 community), what seat 1's Envy pays."""
    counts = {"royal-flush": 0, "straight-flush": 0}
    for suit, other in (("h", "cd"), ("s", "cd"), ("d", "hs"), ("c", "hs")):
        mine = f"2{other[0]}7{other[1]}"  # seat 1, the Progressive bettor: never a flush of the suit dealt
        for hand in combinations(RANKS, 5):
            cards = [r + suit for r in hand]
            wagers = {"three-card-bonus": 500} if kept else {}
            out = play(
                pa_round(), {1: (mine, PROG, [1, 1, 1]), 2: ("".join(cards[:2]), wagers, [0])}, "".join(cards[2:])
            )
            net = side(out[1], "envy").net
            if net == ENVY.royal_flush:
                counts["royal-flush"] += 1
            elif net == ENVY.straight_flush:
                counts["straight-flush"] += 1
            else:
                assert net == 0, (cards, net)
    return counts


def test_the_engine_pays_envy_as_often_as_the_sheet_prices_it() -> None:
    sheet = envy_per_player(par_sheet(MISSISSIPPI_MINIMUM))
    paid = _engine_envy_counts(kept=True)
    hands = math.comb(52, 5)
    assert {k: Fraction(v, hands) for k, v in paid.items()} == {
        "royal-flush": sheet["royal-flush"],
        "straight-flush": sheet["straight-flush"],
    }
    assert sheet["straight-flush"] == Fraction(3, 216_580)


def test_a_folded_hand_without_a_side_wager_is_never_an_envy_holder() -> None:
    assert _engine_envy_counts(kept=False) == {"royal-flush": 0, "straight-flush": 0}
    sheet = envy_per_player(par_sheet(MISSISSIPPI_MINIMUM))
    assert sheet["straight-flush-no-side-wager"] == Fraction(29, 3_248_700)  # only those played to the showdown


def test_shoectl_math_prints_the_engines_figures() -> None:
    done = subprocess.run(
        [str(Path(sys.executable).with_name("shoectl")), "math", "--side", "envy", "--jurisdiction", "PA", "--json"],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    envy = next(t for t in json.loads(done.stdout)["extras"] if t["title"].startswith("envy"))
    assert envy["figures"]["straight-flush"]["exact"] == "3/216580"
    assert envy["figures"]["royal-flush"]["exact"] == "1/649740"


def test_shoectl_report_counts_envy_lines_and_expects_them_as_the_engine_pays(tmp_path: Path) -> None:
    """The PA walk-through of docs/api.md (seats 1 and 2 hold a royal and a straight flush and bet the
    Progressive; seat 4 folds keeping side wagers; seat 6 folds with none) dealt on the service, then
    ``shoectl report``: both Envy lines paid, and the lines expected priced by the engine's reading."""
    from tests.api.test_doc_examples import _run_section

    _run_section("A Pennsylvania round with every side wager, with curl", tmp_path)
    done = subprocess.run(
        [str(Path(sys.executable).with_name("shoectl")), "report", "--journal", str(tmp_path / "journal.sqlite"),
         "--json"],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    [envy] = [row for row in json.loads(done.stdout)["side_wagers"] if row["bet"] == "envy"]
    sheet = envy_per_player(par_sheet(MISSISSIPPI_MINIMUM))
    kept = float(sheet["royal-flush"] + sheet["straight-flush"])
    collected = float(sheet["royal-flush-no-side-wager"] + sheet["straight-flush-no-side-wager"])
    # each Progressive bettor's others: the other bettor and seat 4 (side wagers), seat 6 (none)
    assert envy["wagers"] == 2 and envy["paid_lines"] == 2
    assert envy["house_win"] == -(
        100_000 + 10_000
    )  # seat 2 paid for seat 1's royal, seat 1 for seat 2's straight flush
    assert envy["expected_paid_lines"] == round(2 * (2 * kept + collected), 6)
