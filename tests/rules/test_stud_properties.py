"""Seven-card stud properties over random hands (Hypothesis), N.J.A.C. 13:47-20.35(i):

* pot conservation: the shares paid add up to the chips put in (antes, bets), whatever happened;
* a refused action or card changes nothing;
* the audit trail replays to the same hand.
"""

from __future__ import annotations

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from shoe.cards import FULL_DECK, Card
from shoe.rules.stud import (
    ActionKind,
    AntePosted,
    BettingAction,
    BurnsReshuffled,
    Phase,
    PotAwarded,
    StudHand,
    StudRuleViolation,
    StudTableConfig,
    Target,
)

configs = st.builds(
    StudTableConfig,
    ante=st.sampled_from([0, 5, 25, 33]),
    bring_in=st.sampled_from([1, 50, 100]),
    small_bet=st.sampled_from([200, 250]),
    big_bet=st.sampled_from([400, 501]),
    max_raises=st.integers(0, 4),
)
seat_sets = st.lists(st.integers(1, 8), min_size=2, max_size=8, unique=True)


def try_refused(hand: StudHand, stub: list[Card], data: st.DataObject) -> None:
    """Attempt a random action or card; a refusal must change nothing (an accepted one is fine)."""
    before = hand.snapshot()
    seat = data.draw(st.sampled_from(hand.seats))
    kind = data.draw(st.sampled_from(list(ActionKind)))
    amount = data.draw(st.sampled_from([None, 0, 1, 100, 200, 400]))
    card = data.draw(st.sampled_from(FULL_DECK))
    for attempt in (lambda: hand.verify_act(seat, kind, amount), lambda: hand.verify_deal(card, seat)):
        try:
            attempt()
        except StudRuleViolation as err:
            assert err.rule.startswith("N.J.A.C. 13:47-20.35")
    assert hand.snapshot() == before
    try:
        if data.draw(st.booleans()):
            hand.act(seat, kind, amount)
        else:
            hand.deal(card, seat)
            stub.remove(card)  # the shoe happened to read that card for that seat: fine
    except StudRuleViolation:
        assert hand.snapshot() == before


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs, seats=seat_sets, data=st.data())
def test_njac_13_47_20_35_i_pot_is_conserved_over_random_hands(
    config: StudTableConfig, seats: list[int], data: st.DataObject
) -> None:
    """(i) Sum of shares == sum of contributions == antes + every betting amount, for random play."""
    hand = StudHand(config, seats)
    stub: list[Card] = list(data.draw(st.permutations(FULL_DECK)))
    tries = 0
    no_folds = data.draw(st.booleans())  # every hand reaches the showdown (and with 7-8 seats, (h))
    while not hand.finished:
        if tries < 30 and data.draw(st.integers(0, 9)) == 9:
            tries += 1
            try_refused(hand, stub, data)
            continue
        step = hand.next_card
        if step is not None and step.target is Target.RESHUFFLE:
            record = hand.reshuffle_burns()
            stub = list(data.draw(st.permutations(list(record.burns) + stub)))
        elif step is not None:
            hand.deal(stub.pop(0))
        else:
            legal = [a for a in hand.legal_actions() if not (no_folds and a.kind is ActionKind.FOLD)]
            choice = data.draw(st.sampled_from(legal))
            hand.act(choice.seat, choice.kind, choice.amount)
        assert hand.stub_remaining == len(stub)

    event(hand.phase.value)
    event(f"common card: {hand.common_card is not None}")
    event(f"reshuffle: {any(isinstance(r, BurnsReshuffled) for r in hand.records)}")
    contributions = hand.contributions
    assert sum(hand.pot_shares.values()) == sum(contributions.values()) == hand.pot
    antes = sum(r.amount for r in hand.records if isinstance(r, AntePosted))
    bets = sum(r.amount for r in hand.records if isinstance(r, BettingAction))
    assert antes + bets == hand.pot
    awards = [r for r in hand.records if isinstance(r, PotAwarded)]
    assert sum(r.amount for r in awards) == hand.pot and sum(r.odd_chips for r in awards) < len(awards) + 1
    assert set(hand.winners) <= set(hand.live_seats)
    if hand.phase is Phase.UNCONTESTED:
        assert len(hand.live_seats) == 1 and hand.winners == hand.live_seats
    else:
        values = {s: hand.best_hand(s) for s in hand.live_seats}
        best = max(v for v in values.values() if v is not None)
        assert set(hand.winners) == {s for s, v in values.items() if v == best}
        reshuffled = any(isinstance(r, BurnsReshuffled) for r in hand.records)
        assert not reshuffled or hand.common_card is not None
    assert StudHand.replay(config, seats, hand.records).snapshot() == hand.snapshot()
