"""Hypothesis: settlement and misdeal invariants over random rounds."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from shoe.cards import FULL_DECK
from shoe.rules.mississippi import (
    DecisionRecord,
    MisdealRecord,
    MississippiRound,
    Outcome,
    RoundState,
    SeatSettlement,
    TableConfig,
    WagerRecord,
    new_round,
    replay,
)
from shoe.rules.mississippi.cap import apportion
from shoe.rules.profiles import Irregularity

from .test_mississippi_support import PA_SIDE

SIDE_CHOICES: tuple[dict[str, int], ...] = (
    {},
    {"progressive": 100},
    {"three-card-bonus": 500},
    {"progressive": 100, "five-card-hand-bonus": 300},
)


@given(st.lists(st.integers(0, 10**9), min_size=1, max_size=4), st.integers(0, 10**9))
def test_apportion_never_exceeds_the_cap_nor_any_computed_amount(computed: list[int], cap: int) -> None:
    paid = apportion(computed, cap)
    assert sum(paid) == min(sum(computed), cap)
    assert all(0 <= p <= c for p, c in zip(paid, computed, strict=True))


@st.composite
def rounds(draw: st.DrawFn) -> tuple[str, dict[int, int], dict[int, list[int]], dict[int, dict[str, int]], int, int]:
    jurisdiction = draw(st.sampled_from(["NY", "PA", "NJ"]))
    seats = draw(st.lists(st.integers(1, 6), min_size=1, max_size=6, unique=True))
    antes = {s: draw(st.integers(500, 50_000)) for s in seats}
    decisions = {s: draw(st.lists(st.integers(0, 3), min_size=3, max_size=3)) for s in seats}
    side = {s: draw(st.sampled_from(SIDE_CHOICES)) for s in seats} if jurisdiction == "PA" else {}
    seed = draw(st.integers(0, 2**32))
    stop = draw(st.integers(0, 40))  # where a misdeal is declared (past the end: never)
    return jurisdiction, antes, decisions, side, seed, stop


def _start(jurisdiction: str, antes: dict[int, int], side: dict[int, dict[str, int]]) -> MississippiRound:
    config = TableConfig(500, 50_000, side=PA_SIDE if jurisdiction == "PA" else None)
    r = new_round(jurisdiction, config)
    for seat, ante in antes.items():
        r.place_wagers(seat, ante, side.get(seat))
    return r


def _steps(r: MississippiRound, decisions: dict[int, list[int]], seed: int) -> list[object]:
    """Drive the round one action at a time (a generator would do; a list of thunks is simpler)."""
    deck = list(FULL_DECK)
    random.Random(seed).shuffle(deck)
    steps: list[object] = [r.no_more_bets]
    if r.table.progressive_lockout:
        steps += [r.lock_progressive, lambda: r.count_progressive_chips(r.progressive_wagers_accepted)]
    for view in sorted(r.public_state().seats, key=lambda s: s.seat):
        steps.append(lambda s=view.seat: r.deal_stack(s, (deck.pop(), deck.pop())))
    steps += [lambda: r.release_stub(len(deck)), r.deal_community]
    for street in range(3):
        for seat in sorted(decisions):
            steps.append(lambda s=seat, i=street: r.decide(s, decisions[s][i]) if r.next_to_decide == s else None)
        steps.append(lambda i=street: r.reveal(i, deck.pop()) if r.state is not RoundState.COMPLETE else None)
    steps.append(
        lambda: (
            r.record_table_system(magic_card=deck[0], lucky_seat=1)
            if r.state is RoundState.SETTLEMENT and r.table.offered
            else None
        )
    )
    steps += [lambda: r.settle_next() if r.state is RoundState.SETTLEMENT else None] * 6
    return steps


def _wagered(r: MississippiRound) -> int:
    last: dict[int, WagerRecord] = {}
    bets = 0
    for record in r.records:
        if isinstance(record, WagerRecord):
            last[record.seat] = record
        if isinstance(record, DecisionRecord):
            bets += record.amount
    return sum(w.ante + sum(a for _, a in w.side) for w in last.values()) + bets


@settings(max_examples=150, deadline=None)
@given(rounds())
def test_random_rounds_respect_the_cap_and_misdeals_return_every_wager(
    case: tuple[str, dict[int, int], dict[int, list[int]], dict[int, dict[str, int]], int, int],
) -> None:
    jurisdiction, antes, decisions, side, seed, stop = case
    r = _start(jurisdiction, antes, side)
    for i, step in enumerate(_steps(r, decisions, seed)):
        if i == stop and r.can_declare_misdeal(Irregularity.COMMUNITY_EXPOSED):
            placed = _wagered(r)
            record = r.declare_misdeal(Irregularity.COMMUNITY_EXPOSED)
            assert record.total_returned == placed == sum(c for _, c in record.returned)
            assert all(s.outcome == Outcome.VOID.value and s.net == 0 for s in r.result().seats)
            assert replay(r.profile, r.table, r.records).snapshot() == r.snapshot()
            return
        step()  # type: ignore[operator]
    assert r.state is RoundState.COMPLETE
    assert replay(r.profile, r.table, r.records).snapshot() == r.snapshot()  # the journal rebuilds the round
    assert not any(isinstance(x, MisdealRecord) for x in r.records)
    settled = [x for x in r.records if isinstance(x, SeatSettlement)]
    assert [s.seat for s in settled] == sorted((s.seat for s in settled), reverse=True)
    for s in settled:
        assert s.paid <= s.cap and s.paid <= s.computed
        assert all(w.paid <= w.computed for w in s.wagers)
        assert s.capped == (s.computed > s.cap)
    for seat in r.result().seats:
        stakes = antes[seat.seat] * (1 + sum(m for m in _played(decisions[seat.seat])))
        if seat.outcome in ("fold", "lose"):
            assert seat.net == -stakes
        elif seat.outcome == "push":
            assert seat.net == 0
        else:
            assert seat.outcome == "win" and 0 < seat.net <= r.cap


def _played(decisions: list[int]) -> list[int]:
    """The multiples actually bet: up to and excluding the first fold."""
    out = []
    for m in decisions:
        if m == 0:
            break
        out.append(m)
    return out
