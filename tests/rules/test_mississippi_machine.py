"""The round machine itself: refusals change nothing, pause/resume, irregularities, secrecy, variants."""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Callable

import pytest

from shoe.cards import parse_cards
from shoe.rules.errors import IllegalAction, OutOfOrder, RoundPaused, RuleViolation, UnknownSeat
from shoe.rules.mississippi import (
    MisdealRecord,
    MississippiRound,
    ReplayMismatch,
    RoundState,
    StackRecord,
    TableConfig,
    replay,
    transition_table,
)
from shoe.rules.mississippi.flow import Flow
from shoe.rules.profiles import PROFILES, CommunitySource, Irregularity, Remedy

from .test_mississippi_support import deal, full_round, ny_round, pa_round, play_streets, settle_all


def two_seats_at_third_street() -> MississippiRound:
    r = ny_round()
    r.place_wagers(1, 500)
    r.place_wagers(3, 1000)
    deal(r, {1: "AsKd", 3: "QhQd"})
    return r


REFUSALS: list[tuple[str, Callable[[MississippiRound], object]]] = [
    ("decide out of turn", lambda r: r.decide(3, 1)),
    ("decide unknown seat", lambda r: r.decide(2, 1)),
    ("decide bad multiple", lambda r: r.decide(1, 4)),
    ("reveal before decisions", lambda r: r.reveal(0, "2c")),
    ("reveal wrong index", lambda r: r.reveal(2, "2c")),
    ("wager after deal", lambda r: r.place_wagers(4, 500)),
    ("stack after deal", lambda r: r.deal_stack(3, parse_cards("2c3c"))),
    ("stub twice", lambda r: r.release_stub(48)),
    ("settle before reveals", lambda r: r.settle_next()),
    ("resume when not paused", lambda r: r.resume()),
    ("no more bets twice", lambda r: r.no_more_bets()),
    ("forfeit in NY", lambda r: r.forfeit_information_sharing(1)),
    ("system input without side wagers", lambda r: r.record_table_system(lucky_seat=1)),
]


@pytest.mark.parametrize(("name", "action"), REFUSALS, ids=[n for n, _ in REFUSALS])
def test_a_refused_action_changes_nothing(name: str, action: Callable[[MississippiRound], object]) -> None:
    r = two_seats_at_third_street()
    before = r.snapshot()
    view = r.public_state()
    with pytest.raises(RuleViolation) as err:
        action(r)
    assert err.value.rule and err.value.code
    assert r.snapshot() == before and r.public_state() == view


def test_can_mirrors_verify() -> None:
    r = two_seats_at_third_street()
    assert r.can_decide(1, 2) and not r.can_decide(3, 2)
    assert not r.can_reveal(0, "2c") and not r.can_settle_next()
    with pytest.raises(OutOfOrder):
        r.verify_decide(3, 2)


def test_pause_refuses_everything_but_resume_and_misdeal_then_resumes_where_it_was() -> None:
    r = two_seats_at_third_street()
    r.decide(1, 2)
    record = r.pause("shoe link lost")
    assert record.prior is RoundState.THIRD_STREET and r.state is RoundState.PAUSED
    before = r.snapshot()
    with pytest.raises(RoundPaused) as err:
        r.decide(3, 1)
    assert err.value.code == "paused" and r.snapshot() == before
    with pytest.raises(IllegalAction):
        r.pause()
    assert r.resume().to is RoundState.THIRD_STREET
    assert r.state.value == "third-street" and r.next_to_decide == 3


@pytest.mark.parametrize("where", ["open", "dealing", "street", "settlement"])
def test_pause_and_resume_in_every_phase(where: str) -> None:
    r = ny_round()
    r.place_wagers(1, 500)
    r.place_wagers(2, 500)
    if where != "open":
        r.no_more_bets()
        r.deal_stack(1, parse_cards("AsKd"))
    if where in ("street", "settlement"):
        r.deal_stack(2, parse_cards("2c2d"))
        r.release_stub(48)
        r.deal_community()
    if where == "settlement":
        play_streets(r, {1: [1, 1, 1], 2: [1, 1, 1]}, "3h4h9s")
    state = r.state
    r.pause()
    r.resume()
    assert r.state is state


def test_link_not_reconciled_after_pause_is_a_misdeal() -> None:
    r = two_seats_at_third_street()
    r.decide(1, 3)
    r.pause()
    record = r.declare_misdeal(Irregularity.LINK_UNRECONCILED)
    assert record.prior is RoundState.THIRD_STREET and record.total_returned == 500 + 1500 + 1000
    assert r.state is RoundState.MISDEAL
    assert all(s.outcome == "void" for s in r.result().seats)


def test_no_misdeal_once_settlement_has_begun() -> None:
    r = two_seats_at_third_street()
    play_streets(r, {1: [1, 1, 1], 3: [1, 1, 1]}, "3h4h9s")
    assert r.can_declare_misdeal(Irregularity.OTHER)
    r.settle_next()
    with pytest.raises(IllegalAction, match="settlement has begun"):
        r.declare_misdeal(Irregularity.OTHER)


def test_community_card_exposed_is_a_misdeal() -> None:
    r = two_seats_at_third_street()
    record = r.declare_misdeal(Irregularity.COMMUNITY_EXPOSED)
    assert record.remedy is Remedy.MISDEAL and record.returned == ((1, 500), (3, 1000))
    assert "exposed before its street" in record.detail


@pytest.mark.parametrize(
    ("cards", "cause", "removed"),
    [
        (["As", "As"], Irregularity.DUPLICATE_CARD, True),
        (["As", None], Irregularity.UNREADABLE_CARD, False),
        (["As", "Zz"], Irregularity.FOREIGN_CARD, True),
        (["As"], Irregularity.BAD_STACK, False),
    ],
)
def test_irregular_stacks_void_the_round(cards: list[str | None], cause: Irregularity, removed: bool) -> None:
    r = ny_round()
    r.place_wagers(1, 500)
    r.no_more_bets()
    record = r.deal_stack(1, cards)
    assert isinstance(record, MisdealRecord)
    assert record.cause is cause and record.deck_removed is removed
    assert record.security_alert is (cause in (Irregularity.DUPLICATE_CARD, Irregularity.FOREIGN_CARD))


def test_card_already_dealt_to_another_seat_is_a_duplicate() -> None:
    r = ny_round()
    r.place_wagers(1, 500)
    r.place_wagers(2, 500)
    r.no_more_bets()
    r.deal_stack(1, parse_cards("AsKd"))
    record = r.deal_stack(2, parse_cards("Kd2c"))
    assert isinstance(record, MisdealRecord) and record.cause is Irregularity.DUPLICATE_CARD
    assert "Kd was already dealt" in record.detail


@pytest.mark.parametrize(("card", "cause"), [("As", Irregularity.DUPLICATE_CARD), ("1x", Irregularity.FOREIGN_CARD)])
def test_community_card_must_still_be_in_the_stub(card: str, cause: Irregularity) -> None:
    r = two_seats_at_third_street()
    r.decide(1, 1)
    r.decide(3, 1)
    record = r.reveal(0, card)
    assert isinstance(record, MisdealRecord) and record.cause is cause


def test_community_revealed_twice_is_a_duplicate() -> None:
    r = two_seats_at_third_street()
    play_streets(r, {1: [1, 1, 1], 3: [1, 1, 1]}, "2c3c4c")
    assert r.state is RoundState.SETTLEMENT
    r2 = two_seats_at_third_street()
    r2.decide(1, 1)
    r2.decide(3, 1)
    r2.reveal(0, "2c")
    r2.decide(1, 1)
    r2.decide(3, 1)
    assert isinstance(r2.reveal(1, "2c"), MisdealRecord)


def test_everyone_folds_completes_the_round_at_once() -> None:
    r = two_seats_at_third_street()
    r.decide(1, 0)
    r.decide(3, 0)
    assert r.state is RoundState.COMPLETE
    assert [(s.seat, s.outcome, s.net) for s in r.result().seats] == [(1, "fold", -500), (3, "fold", -1000)]


def test_public_state_never_shows_unsettled_holes_nor_unrevealed_community() -> None:
    r = two_seats_at_third_street()
    play_streets(r, {1: [1, 1, 1], 3: [0, 0, 0]}, "2c3c4c")
    assert r.public_state().community == ("2c", "3c", "4c")
    assert all(s.cards is None for s in r.public_state().seats)
    assert r.result().seats[0].cards == ()  # not yet settled, round not over
    settle_all(r)
    seats = {s.seat: s for s in r.public_state().seats}
    assert seats[1].cards == ("As", "Kd") and seats[1].status == "settled"
    assert seats[3].cards is None and seats[3].status == "folded"  # collected face down, never shown
    assert r.result().seats[1].cards == ("Qh", "Qd")  # the journal summary, after the round


def test_shoe_community_source_variant() -> None:
    profile = dataclasses.replace(PROFILES["NY"], community_source=CommunitySource.SHOE)
    r = MississippiRound(profile, TableConfig(500, 5000))
    r.place_wagers(1, 500)
    r.no_more_bets()
    r.deal_stack(1, parse_cards("AsKd"))
    with pytest.raises(IllegalAction, match="must come with its cards"):
        r.deal_community()
    r.deal_community(parse_cards("QsJsTs"))
    assert r.view(can_see_holes=True).community == (None, None, None)
    assert r.expected_stub_count == 47
    r.release_stub(47)
    r.decide(1, 1)
    assert r.reveal(0).card.code == "Qs"  # type: ignore[union-attr]
    r.decide(1, 1)
    record = r.reveal(1, "2c")
    assert isinstance(record, MisdealRecord) and "the shoe dispensed Js" in record.detail


def test_stub_source_refuses_community_identities_at_the_deal() -> None:
    r = ny_round()
    r.place_wagers(1, 500)
    r.no_more_bets()
    r.deal_stack(1, parse_cards("AsKd"))
    r.release_stub(50)
    with pytest.raises(IllegalAction, match="identified at their reveal"):
        r.deal_community(parse_cards("QsJsTs"))


def test_unknown_seat_and_seat_without_wager() -> None:
    r = two_seats_at_third_street()
    with pytest.raises(UnknownSeat, match="no seat 9"):
        r.decide(9, 1)
    with pytest.raises(UnknownSeat, match="seat 2 placed no wager"):
        r.decide(2, 1)


def test_records_are_frozen_and_form_the_audit_trail() -> None:
    r = ny_round()
    full_round(r, {1: 500}, {1: "AsKd"}, {1: [1, 1, 1]}, "2c3c4c")
    kinds = [x.kind for x in r.records]
    assert kinds == [
        "wager", "no-more-bets", "stack", "stub-counted", "community-dealt",
        "decision", "reveal", "decision", "reveal", "decision", "reveal", "settlement",
    ]  # fmt: skip
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.records[2].seat = 4  # type: ignore[misc, union-attr]
    assert isinstance(r.records[2], StackRecord)


def test_errors_pickle_with_rule_and_code() -> None:
    # One refusal type: the kind is the code (OutOfOrder is a deprecated alias of RuleViolation).
    err = RuleViolation("stack for seat 4 refused: seat 2 is next", rule="NY 5324.38(d)(2)", code="out-of-order")
    back = pickle.loads(pickle.dumps(err))
    assert (type(back), back.rule, back.code, str(back)) == (RuleViolation, err.rule, "out-of-order", str(err))
    assert OutOfOrder is RuleViolation


def test_invalid_trigger_becomes_a_domain_error() -> None:
    flow = Flow(transition_table())
    with pytest.raises(IllegalAction, match="reveal refused in state open-for-wagers") as err:
        flow.fire("reveal", rule="NY 5324.38(e)(2)")
    assert err.value.code == "invalid-in-state"


@pytest.mark.parametrize("source", list(CommunitySource))
@pytest.mark.parametrize("lockout", [False, True])
def test_every_state_in_a_table_is_reachable_and_can_end(source: CommunitySource, lockout: bool) -> None:
    table = transition_table(source, lockout)
    states = {e.source for e in table} | {e.dest for e in table}
    reach = {RoundState.OPEN}
    while True:
        more = {e.dest for e in table if e.source in reach} - reach
        if not more:
            break
        reach |= more
    assert reach == states
    assert RoundState.COMPLETE in states and RoundState.MISDEAL in states
    assert (RoundState.PROGRESSIVE_LOCKED in states) is lockout
    assert (RoundState.STUB_COUNTED in states) is (source is CommunitySource.STUB)


def test_pa_round_uses_the_lockout_table() -> None:
    assert pa_round().table.progressive_lockout
    assert not pa_round(side=None).table.progressive_lockout


def test_replay_rebuilds_a_paused_round_and_rejects_a_tampered_journal() -> None:
    r = two_seats_at_third_street()
    r.decide(1, 2)
    r.pause()
    rebuilt = replay(r.profile, r.table, r.records)
    assert rebuilt.snapshot() == r.snapshot()
    rebuilt.resume()
    assert rebuilt.next_to_decide == 3
    records = list(r.records)
    stack = records[3]
    assert isinstance(stack, StackRecord)
    records[3] = dataclasses.replace(stack, number=7)
    with pytest.raises(ReplayMismatch, match="record 4 differs"):
        replay(r.profile, r.table, records)
