"""The PAR sheet of the real paytables: exact, complete, and equal to the published figures.

Published (Wizard of Odds, "Mississippi Stud", wizardofodds.com/games/mississippi-stud/): house
edge 4.91% of the ante, 3.59 units bet on average, element of risk 4.91%/3.59 = 1.37%; and 3.7591%
for the table that pays 5 to 1 on a straight (Barona).  The average wager is published with ties
between a fold and a bet broken towards the bet (prefer-bet); prefer-fold bets less for the same EV.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

from shoe.math import Ties, par_sheet, paytable_key
from shoe.rules.paytables import MISSISSIPPI_MINIMUM, BasePaytable
from shoe.rules.profiles import MississippiProfile, get_profile

FIVE_TO_ONE = BasePaytable.from_mapping("straights-5", {**MISSISSIPPI_MINIMUM.as_dict(), "straight": 5})


def pct(x: Fraction, digits: int) -> float:
    return round(float(x) * 100, digits)


def test_the_standard_table_reproduces_every_published_digit() -> None:
    par = par_sheet(MISSISSIPPI_MINIMUM, Ties.PREFER_BET)
    assert pct(par.house_edge, 2) == 4.91
    assert round(float(par.average_wager), 2) == 3.59
    assert pct(par.element_of_risk, 2) == 1.37
    assert par.house_edge == Fraction(53223, 1082900)  # 4.914858...%, exact


def test_five_to_one_straights_reproduce_the_published_edge() -> None:
    assert pct(par_sheet(FIVE_TO_ONE).house_edge, 4) == 3.7591


def test_every_probability_sums_to_one_and_every_deal_is_counted() -> None:
    par = par_sheet(MISSISSIPPI_MINIMUM)
    assert par.deals == 1326 * 50 * 49 * 48
    assert sum(par.probability(o) for o in par.outcomes) == 1
    assert sum(par.contribution(o) for o in par.outcomes) == par.ev
    for o in par.outcomes:
        assert all(c > 0 and (1 if o.name == "fold-3rd" else 2) <= w <= 10 for w, c in o.by_wager), o


def test_the_tie_rule_changes_the_wager_and_never_the_value() -> None:
    fold, bet = par_sheet(MISSISSIPPI_MINIMUM, Ties.PREFER_FOLD), par_sheet(MISSISSIPPI_MINIMUM, Ties.PREFER_BET)
    assert fold.ev == bet.ev
    assert fold.average_wager < bet.average_wager
    assert round(float(fold.average_wager), 4) == 3.4836


@pytest.mark.parametrize("jurisdiction", ["NY", "PA", "NJ"])
def test_each_jurisdiction_s_table_is_the_one_analysed(jurisdiction: str) -> None:
    profile = get_profile("mississippi-stud", jurisdiction)
    assert isinstance(profile, MississippiProfile)
    table = profile.paytable
    assert par_sheet(table).house_edge == par_sheet(MISSISSIPPI_MINIMUM).house_edge


def test_the_cache_key_is_what_the_table_pays_not_its_name() -> None:
    renamed = BasePaytable.from_mapping("other-name", MISSISSIPPI_MINIMUM.as_dict())
    assert paytable_key(renamed) == paytable_key(MISSISSIPPI_MINIMUM)
    assert paytable_key(FIVE_TO_ONE) != paytable_key(MISSISSIPPI_MINIMUM)
    assert par_sheet(renamed).name == "other-name"


def test_a_sheet_holding_arrays_compares_by_identity_not_elementwise() -> None:
    par = par_sheet(MISSISSIPPI_MINIMUM)
    copy = dataclasses.replace(par, reach4=par.reach4.copy())
    assert copy != par  # compared elementwise, this raised "truth value of an array is ambiguous"
