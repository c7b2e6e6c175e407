"""PA side wagers: configuration and settlement (58 Pa. Code 655a.11(h),(i)(4), 655a.12; rules digest).

Per seat, after the base wagers: Progressive Payout, Envy Bonus, Three Card Bonus, Five Card Hand
Bonus (with its Magic Card and Lucky Bonus payouts).  Every function is pure and returns
:class:`~shoe.rules.mississippi.records.SideResult` lines whose ``computed``/``paid`` are what goes
back to the player, stake included when it comes back ("to 1": stake + winnings; "for 1":
stake x odds), and ``net`` is that minus the stake.

Modelling of the Five Card Hand Bonus (the texts give no table; configurable, no default): a
paytable of five-card categories (odds or a meter percentage), judged on the same two player cards +
three community cards; the Magic Card Bonus is paid when the system's Magic Card is one of those
five cards, the Lucky Bonus when the seat is the system's Lucky seat; both are additional payouts
(:class:`~shoe.rules.paytables.FixedSum`, or :class:`~shoe.rules.paytables.Odds` on the Five Card
stake, winnings only) paid whether or not the hand wins the Five Card table.  Everything is credited
to the game account (655a.11(i)(4)(iii)(C)) except meter percentages (documentation).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from shoe.cards import Card
from shoe.hands import Category, HandValue, ThreeCardCategory, evaluate3
from shoe.rules.mississippi.records import Outcome, SideResult
from shoe.rules.paytables import (
    THREE_CARD_BONUS_EXAMPLE,
    FixedSum,
    MeterShare,
    Odds,
    Payout,
    Paytable,
)
from shoe.rules.profiles import Citations, SideBet

__all__ = [
    "ENVY_HANDS",
    "EnvyAmounts",
    "FiveCardBonusConfig",
    "SideWagerConfig",
    "settle_envy",
    "settle_five_card",
    "settle_progressive",
    "settle_three_card",
]

ENVY_HANDS = (Category.ROYAL_FLUSH, Category.STRAIGHT_FLUSH)
"""Envy Bonus Qualifying Hands (PA 655a.1)."""

FLOORPERSON_FOR_ONE = 500
"""PA 655a.11(i)(4)(iii)(B): a Five Card Hand Bonus payout of 500 for 1 (or more) is verified."""


@dataclass(frozen=True)
class EnvyAmounts:
    """Envy Bonus fixed sums in cents per other player's qualifying hand (operator's rules; no default)."""

    royal_flush: int
    straight_flush: int

    def for_category(self, category: Category) -> int:
        return self.royal_flush if category is Category.ROYAL_FLUSH else self.straight_flush


@dataclass(frozen=True)
class FiveCardBonusConfig:
    """Five Card Hand Bonus tables (operator's rules; configurable, no default)."""

    paytable: Paytable[Category]
    magic_card: Odds | FixedSum
    lucky_bonus: Odds | FixedSum


@dataclass(frozen=True)
class SideWagerConfig:
    """The side wagers one table offers, and their tables and wager limits (cents).

    ``progressive_wager`` is the one amount a Progressive Payout wager may be (one chip, counted at
    lock-out); the bonus wagers go from ``bonus_min`` to ``bonus_max``.  Decisions: the texts give no
    limits; both are table configuration.
    """

    offered: frozenset[SideBet]
    progressive_table: str = "A"
    envy: EnvyAmounts | None = None
    three_card: Paytable[ThreeCardCategory] = THREE_CARD_BONUS_EXAMPLE
    five_card: FiveCardBonusConfig | None = None
    progressive_wager: int = 100
    bonus_min: int = 100
    bonus_max: int = 10_000


def _pay(
    bet: SideBet | str,
    stake: int,
    payout: Payout | None,
    hand: str,
    meters: Mapping[str, int],
    *,
    account: str,
    floorperson_for_one: int | None,
    rule: str,
) -> SideResult:
    name = bet.value if isinstance(bet, SideBet) else bet
    if payout is None:
        return SideResult(name, stake, Outcome.LOSE, hand, 0, 0, -stake, account, False, "", rule)
    if isinstance(payout, MeterShare):
        amount = payout.amount(meters)
        note = f"{payout}: not paid from the table tray; floorperson validates"
        if amount is None:
            note += f"; meter {payout.meter!r} reading required"
        net = None if amount is None else amount - stake
        return SideResult(name, stake, Outcome.WIN, hand, amount, amount, net, "documentation", True, note, rule)
    amount = payout.returned(stake)
    floor = floorperson_for_one is not None and payout.for_one >= floorperson_for_one
    return SideResult(name, stake, Outcome.WIN, hand, amount, amount, amount - stake, account, floor, str(payout), rule)


def settle_progressive(
    stake: int,
    hand: HandValue,
    table: Paytable[Category],
    meters: Mapping[str, int],
    *,
    folded: bool,
    rules: Citations,
) -> SideResult:
    """Progressive Payout: only the highest hand is paid (one table line); a fold loses it (655a.11(h))."""
    name = hand.category.value
    if folded:
        note = "forfeited on the fold; Envy eligibility kept"
        return SideResult(
            SideBet.PROGRESSIVE.value,
            stake,
            Outcome.FOLD,
            name,
            0,
            0,
            -stake,
            "tray",
            False,
            note,
            rules.fold_with_side_wagers,
        )
    result = _pay(
        SideBet.PROGRESSIVE,
        stake,
        table.payout(hand.category),
        name,
        meters,
        account="tray",
        floorperson_for_one=None,
        rule=rules.progressive,
    )
    if result.result is Outcome.WIN:
        # PA 655a.11(i)(4)(i)(A)-(C): verify the hand and the system light; a floorperson validates.
        note = f"table {table.name}: {result.note}; verify the progressive light"
        return SideResult(
            result.bet,
            stake,
            Outcome.WIN,
            name,
            result.computed,
            result.paid,
            result.net,
            result.paid_from,
            True,
            note,
            result.rule,
        )
    return result


def settle_envy(seat: int, holders: Mapping[int, HandValue], amounts: EnvyAmounts, rules: Citations) -> SideResult:
    """Envy Bonus for a Progressive bettor: a fixed sum per OTHER qualifying hand (655a.11(i)(4)(i)(E))."""
    wins = [(s, hv.category) for s, hv in sorted(holders.items()) if s != seat and hv.category in ENVY_HANDS]
    total = sum(amounts.for_category(category) for _, category in wins)
    note = ", ".join(f"seat {s} {c.value}" for s, c in wins) or "no other qualifying hand"
    outcome = Outcome.WIN if wins else Outcome.LOSE
    return SideResult(SideBet.ENVY.value, 0, outcome, "", total, total, total, "tray", False, note, rules.envy)


def settle_three_card(
    stake: int, community: tuple[Card, ...], table: Paytable[ThreeCardCategory], rules: Citations
) -> SideResult:
    """Three Card Bonus on the three community cards (655a.11(i)(4)(ii), 655a.12(d))."""
    category = evaluate3(community).category
    return _pay(
        SideBet.THREE_CARD_BONUS,
        stake,
        table.payout(category),
        category.value,
        {},
        account="tray",
        floorperson_for_one=None,
        rule=rules.three_card_bonus,
    )


def settle_five_card(
    seat: int,
    stake: int,
    hand: HandValue,
    five: tuple[Card, ...],
    config: FiveCardBonusConfig,
    *,
    magic_card: Card,
    lucky_seat: int,
    meters: Mapping[str, int],
    rules: Citations,
) -> tuple[SideResult, ...]:
    """Five Card Hand Bonus, then its Magic Card and Lucky Bonus lines (655a.11(i)(4)(iii))."""
    rule = rules.five_card_hand_bonus
    main = _pay(
        SideBet.FIVE_CARD_HAND_BONUS,
        stake,
        config.paytable.payout(hand.category),
        hand.category.value,
        meters,
        account="game-account",
        floorperson_for_one=FLOORPERSON_FOR_ONE,
        rule=rule,
    )
    lines = [main]
    extras = (
        ("magic-card-bonus", magic_card in five, config.magic_card, f"magic card {magic_card.code}"),
        ("lucky-bonus", seat == lucky_seat, config.lucky_bonus, f"lucky seat {lucky_seat}"),
    )
    for name, won, amount, note in extras:
        paid = (amount.cents if isinstance(amount, FixedSum) else amount.winnings(stake)) if won else 0
        outcome = Outcome.WIN if won else Outcome.LOSE
        lines.append(SideResult(name, 0, outcome, "", paid, paid, paid, "game-account", False, note, rule))
    return tuple(lines)
