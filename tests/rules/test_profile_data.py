"""A jurisdiction that differs only in data needs no code: profiles loaded from files play and settle.

``data/mississippi-xx.toml`` is NY with a better paytable, four seats, a lower cap floor and its own
citations; ``data/seven-card-stud-xy.json`` is NJ stud dealt counterclockwise with another bring-in
suit order.  Both go through :func:`shoe.rules.profile_data.profile_from_data` and the unchanged
round machines.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from shoe.cards import FULL_DECK, Card
from shoe.rules.errors import RuleViolation
from shoe.rules.mississippi import MississippiRound, RoundState, TableConfig
from shoe.rules.paytables import BaseHand
from shoe.rules.profile_data import profile_from_data
from shoe.rules.profiles import PROFILES, MississippiProfile, SeatOrder, StudProfile
from shoe.rules.stud import PotAwarded, StudHand, StudTableConfig, Target
from shoe.rules.stud.dealing import bring_in_seat

from .test_mississippi_support import full_round

DATA = Path(__file__).parent / "data"


def _xx() -> MississippiProfile:
    profile = profile_from_data(tomllib.loads((DATA / "mississippi-xx.toml").read_text(encoding="utf-8")))
    assert isinstance(profile, MississippiProfile)
    return profile


def test_a_mississippi_variant_from_toml_plays_and_settles_a_round() -> None:
    xx = _xx()
    assert (xx.jurisdiction, xx.max_seats, xx.paytable.odds(BaseHand.FLUSH)) == ("XX", 4, 8)
    assert xx.rules.decisions == PROFILES["NY"].rules.decisions  # what the file does not say is NY's
    r = MississippiRound(xx, TableConfig(500, 50_000))
    # A flush after 3x on every street: 5,000 at stake at 8 to 1 (NY's minimum table pays 6 to 1).
    settled = full_round(r, {1: 500, 2: 500}, {1: "2s9s", 2: "7c2d"}, {1: [3, 3, 3], 2: [0, 0, 0]}, "4s7sKs")
    assert r.state is RoundState.COMPLETE
    flush = next(s for s in settled if s.seat == 1)
    assert (flush.line, flush.net, flush.rule) == (BaseHand.FLUSH, 40_000, "XX 7.4(e)(7)")
    # The cap: the greater of the file's floor and what one hand can win at the 500 minimum with the
    # file's royal flush (5,000 at stake x 1,000); NY's table would give its $50,000 floor.
    assert (r.cap, xx.cap.floor_cents) == (5_000_000, 2_500_000)


def test_the_variants_data_is_enforced_with_its_own_citations() -> None:
    r = MississippiRound(_xx(), TableConfig(500, 50_000))
    with pytest.raises(RuleViolation) as err:
        r.place_wagers(5, 500)
    assert (err.value.code, err.value.rule) == ("unknown-seat", "XX 7.4(a)")
    assert "seats 1 to 4" in err.value.message


def test_a_stud_variant_from_json_deals_in_its_own_order_and_finishes() -> None:
    xy = profile_from_data(json.loads((DATA / "seven-card-stud-xy.json").read_text(encoding="utf-8")))
    assert isinstance(xy, StudProfile) and xy.deal_order is SeatOrder.DESCENDING
    hand = StudHand(StudTableConfig(ante=0, bring_in=100, small_bet=200, big_bet=400), [1, 3, 5], profile=xy)
    assert [step.seat for step in hand.dealing_order[:3]] == [5, 3, 1]
    deck = list(FULL_DECK)
    for _ in range(200):
        if hand.finished:
            break
        step = hand.next_card
        if step is None:
            chosen = hand.default_action()
            hand.act(chosen.seat, chosen.kind, chosen.amount)
        elif step.target is Target.RESHUFFLE:  # pragma: no cover - three players never run short
            hand.reshuffle_burns()
        else:
            hand.deal(deck.pop(0))
    assert hand.finished and sum(a.amount for a in hand.records if isinstance(a, PotAwarded)) == hand.pot
    # The bring-in ranks clubs highest here: of two deuces up, the spade brings it in.
    up = {1: Card.parse("2c"), 3: Card.parse("2s")}
    assert bring_in_seat(up, xy) == 3 and bring_in_seat(up) == 1


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"max_seat": 4}, "unknown keys ['max_seat']"),
        ({"max_seats": "4"}, "profile key max_seats: expected int"),
        ({"decision_order": "sideways"}, "profile key decision_order: 'sideways' is not one of"),
        ({"rules": {"seets": "x"}}, "profile key rules: unknown keys ['seets']"),
        ({"paytable": {"name": "x", "pays": {"royal": 1}}}, "profile key paytable: 'royal' is not a valid BaseHand"),
        ({"rules": {"decisions": ["a", "b"]}}, "profile key rules.decisions: expected 3 entries"),
    ],
)
def test_bad_profile_data_is_refused_naming_the_key(change: dict[str, object], words: str) -> None:
    with pytest.raises(RuleViolation) as err:
        profile_from_data({"game": "mississippi-stud", "based_on": "NY", **change})
    assert err.value.code == "invalid-configuration" and words in err.value.message


def test_an_unknown_base_is_refused_with_the_choices() -> None:
    with pytest.raises(RuleViolation) as err:
        profile_from_data({"game": "mississippi-stud", "based_on": "TX"})
    assert err.value.code == "unknown-profile" and "NJ, NY, PA" in err.value.message
