"""Helpers shared by the Mississippi stud tests (and a smoke test of the helpers themselves)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from shoe.cards import parse_cards
from shoe.hands import Category
from shoe.rules.mississippi import (
    EnvyAmounts,
    FiveCardBonusConfig,
    MississippiRound,
    RoundState,
    SeatSettlement,
    SideWagerConfig,
    TableConfig,
    new_round,
)
from shoe.rules.paytables import Basis, FixedSum, MeterShare, Odds, Paytable
from shoe.rules.profiles import SideBet

FIVE_CARD = FiveCardBonusConfig(
    Paytable(
        "five-card-test",
        (
            (Category.ROYAL_FLUSH, MeterShare("meter", 100)),
            (Category.STRAIGHT_FLUSH, Odds(500, Basis.FOR_ONE)),
            (Category.FOUR_OF_A_KIND, Odds(100)),
            (Category.FULL_HOUSE, Odds(20)),
            (Category.FLUSH, Odds(10)),
        ),
    ),
    magic_card=FixedSum(2_500),
    lucky_bonus=Odds(2),
)
ENVY = EnvyAmounts(royal_flush=100_000, straight_flush=10_000)
PA_SIDE = SideWagerConfig(frozenset(SideBet), "A", ENVY, five_card=FIVE_CARD)


def ny_round(min_ante: int = 500, max_ante: int = 50_000) -> MississippiRound:
    return new_round("NY", TableConfig(min_ante, max_ante))


def pa_round(side: SideWagerConfig | None = PA_SIDE, min_ante: int = 500) -> MississippiRound:
    return new_round("PA", TableConfig(min_ante, 50_000, side=side))


def deal(r: MississippiRound, stacks: Mapping[int, str]) -> None:
    """From open wagers to 3rd street: no more bets, (PA) lock-out and count, stacks, stub, community."""
    r.no_more_bets()
    if r.table.progressive_lockout:
        r.lock_progressive()
        r.count_progressive_chips(r.progressive_wagers_accepted)
    for seat in sorted(stacks):
        r.deal_stack(seat, parse_cards(stacks[seat]))
    if r.profile.community_source.value == "stub":
        r.release_stub(r.expected_stub_count)
        r.deal_community()
    assert r.state is RoundState.THIRD_STREET, r.state


def play_streets(r: MississippiRound, decisions: Mapping[int, Sequence[int]], community: str) -> None:
    """From the current street on: each seat due decides (its decision for that street), then the next
    community card (``community`` holds all three) is revealed."""
    cards = parse_cards(community)
    for street in range(r.street or 0, 3):
        if r.state.value == "complete":
            return
        while (seat := r.next_to_decide) is not None:
            r.decide(seat, decisions[seat][street])
        if r.state.value == "complete":
            return
        r.reveal(street, cards[street])


def settle_all(r: MississippiRound) -> list[SeatSettlement]:
    out = []
    while r.state is RoundState.SETTLEMENT:
        out.append(r.settle_next())
    return out


def full_round(
    r: MississippiRound,
    wagers: Mapping[int, int],
    stacks: Mapping[int, str],
    decisions: Mapping[int, Sequence[int]],
    community: str,
    *,
    side: Mapping[int, Mapping[str, int]] | None = None,
) -> list[SeatSettlement]:
    for seat, ante in wagers.items():
        r.place_wagers(seat, ante, (side or {}).get(seat))
    deal(r, stacks)
    play_streets(r, decisions, community)
    return settle_all(r)


def test_helpers_play_a_whole_round() -> None:
    r = ny_round()
    settled = full_round(r, {1: 500}, {1: "AsAd"}, {1: [1, 1, 1]}, "2c7d9h")
    assert [s.seat for s in settled] == [1]
    assert settled[0].hand == "pair" and settled[0].net == 4 * 500
    assert r.state is RoundState.COMPLETE
