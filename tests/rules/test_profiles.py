"""Jurisdiction profiles: frozen data, the registry, and the values the digest fixes."""

from __future__ import annotations

import dataclasses

import pytest

from shoe.rules.errors import UnknownProfile
from shoe.rules.paytables import MISSISSIPPI_MINIMUM
from shoe.rules.profiles import (
    IRREGULARITIES,
    PROFILES,
    STUD_PROFILES,
    CommunitySource,
    Face,
    FoldHandling,
    Irregularity,
    MississippiProfile,
    PaytablePolicy,
    Remedy,
    SeatOrder,
    SideBet,
    StudProfile,
    get_profile,
)


@pytest.mark.parametrize("jurisdiction", ["NY", "PA", "NJ"])
def test_mississippi_profiles_share_the_shoe_procedure(jurisdiction: str) -> None:
    p = PROFILES[jurisdiction]
    assert (p.stack_size, p.max_seats, p.deck_size, p.community_cards) == (2, 6, 52, 3)
    assert p.decision_order is SeatOrder.ASCENDING and p.settlement_order is SeatOrder.DESCENDING
    assert p.community_source is CommunitySource.STUB
    assert p.paytable == MISSISSIPPI_MINIMUM
    assert p.cap.floor_cents == 5_000_000
    assert "stub counted every round" in p.stub_count.rule  # a decision, not a field that changes nothing
    assert p.irregularities == IRREGULARITIES
    assert p.bet_multiples == (1, 2, 3)


def test_ny_and_nj_pay_at_least_the_table_pa_pays_exactly_it() -> None:
    assert PROFILES["NY"].paytable_policy is PaytablePolicy.FLOOR
    assert PROFILES["NJ"].paytable_policy is PaytablePolicy.FLOOR
    assert PROFILES["PA"].paytable_policy is PaytablePolicy.FIXED


def test_only_pa_offers_side_wagers_and_the_lockout() -> None:
    assert PROFILES["PA"].side_bets == frozenset(SideBet)
    assert PROFILES["PA"].progressive_tables == ("A", "B", "C", "D")
    assert PROFILES["PA"].progressive_lockout_before_first_stack
    assert PROFILES["PA"].information_sharing_forfeits
    assert PROFILES["PA"].fold_handling is FoldHandling.KEEP_WITH_SIDE_WAGERS
    for j in ("NY", "NJ"):
        p = PROFILES[j]
        assert not p.side_bets and not p.progressive_lockout_before_first_stack
        assert p.fold_handling is FoldHandling.COLLECT_AT_ONCE


def test_citations() -> None:
    assert PROFILES["NY"].rules.stacks == "NY 5324.38(d)(2)"
    assert PROFILES["PA"].rules.decisions == ("PA 655a.11(b)", "PA 655a.11(d)", "PA 655a.11(f)")
    assert PROFILES["PA"].rules.settlement == "PA 655a.11(i)"
    assert PROFILES["NJ"].rules.stacks == "NJ 13:69F-35.9"
    assert PROFILES["NJ"].rules.decisions[0] == "NJ 13:69F-35.9 (as NY 5324.38(e)(1))"


def test_irregularity_table_matches_the_digest() -> None:
    p = PROFILES["NY"]
    assert p.irregularity(Irregularity.DUPLICATE_CARD).deck_removed
    assert p.irregularity(Irregularity.DUPLICATE_CARD).security_alert
    assert p.irregularity(Irregularity.STUB_COUNT_WRONG).deck_removed
    assert not p.irregularity(Irregularity.STUB_COUNT_WRONG).security_alert
    assert p.irregularity(Irregularity.LINK_LOST).remedy is Remedy.PAUSE
    assert p.irregularity(Irregularity.UNREADABLE_CARD).remedy is Remedy.IDENTIFY_OR_MISDEAL
    assert p.irregularity(Irregularity.PC_RESTART).remedy is Remedy.REBUILD
    assert {row.event for row in IRREGULARITIES} == set(Irregularity)


def test_nj_seven_card_stud_profile() -> None:
    stud = STUD_PROFILES["NJ"]
    assert stud.max_seats == 8
    assert [s.name for s in stud.streets] == ["3rd", "4th", "5th", "6th", "7th"]
    assert stud.streets[0].faces == (Face.DOWN, Face.DOWN, Face.UP) and not stud.streets[0].burn
    assert all(s.burn for s in stud.streets[1:]) and stud.streets[-1].faces == (Face.DOWN,)
    assert stud.bring_in_suits_high_to_low == ("s", "h", "d", "c")
    assert stud.odd_chip_max_cents == 100
    assert stud.deal_order is SeatOrder.ASCENDING


def test_get_profile() -> None:
    assert get_profile("mississippi-stud", "PA") is PROFILES["PA"]
    assert isinstance(get_profile("seven-card-stud", "NJ"), StudProfile)
    assert isinstance(get_profile("mississippi-stud", "NJ"), MississippiProfile)


@pytest.mark.parametrize(
    ("game", "jurisdiction"), [("mississippi-stud", "TX"), ("blackjack", "NY"), ("seven-card-stud", "PA")]
)
def test_get_profile_names_the_valid_choices(game: str, jurisdiction: str) -> None:
    with pytest.raises(UnknownProfile) as err:
        get_profile(game, jurisdiction)
    message = str(err.value)
    assert "mississippi-stud: NJ, NY, PA" in message and "seven-card-stud: NJ" in message
    assert err.value.code == "unknown-profile" and isinstance(err.value, LookupError)


def test_profiles_are_frozen_and_configurable_by_replace() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        PROFILES["NY"].stack_size = 3  # type: ignore[misc]
    shoe_sourced = dataclasses.replace(PROFILES["NY"], community_source=CommunitySource.SHOE)
    assert shoe_sourced.community_source is CommunitySource.SHOE
    assert PROFILES["NY"].community_source is CommunitySource.STUB
