"""A Mississippi stud script's ``"table"``: ante limits, a better NY/NJ paytable, the PA side wagers.

Payouts are written as in the rules digest: ``"500 to 1"`` (winnings on top of the returned stake),
``"300 for 1"`` (stake included), ``"10% of meter"`` (a share of a progressive meter: ``meter``,
``mega``, ``major`` or ``minor``).  The Magic Card and Lucky bonuses may also be a fixed sum, written
as integer cents.  See docs/play-scripts.md for a whole PA table.  The table system's inputs are the
service's ``progressive-inputs`` request type (shoe/service/requests.py), checked the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from shoe.hands import Category, ThreeCardCategory
from shoe.play.errors import ScriptError, at, expect_int, expect_object, typed
from shoe.rules.mississippi import EnvyAmounts, FiveCardBonusConfig, SideWagerConfig, TableConfig
from shoe.rules.paytables import (
    THREE_CARD_BONUS_EXAMPLE,
    BaseHand,
    BasePaytable,
    Basis,
    FixedSum,
    MeterShare,
    Odds,
    Payout,
    Paytable,
)
from shoe.rules.profiles import SideBet
from shoe.service.requests import ProgressiveInputs

__all__ = ["TableSystem", "mississippi_table", "payout", "table_system"]

K = TypeVar("K", Category, ThreeCardCategory)
_ODDS = re.compile(r"(\d+) (to|for) 1")
_METER = re.compile(r"(\d+)% of (meter|mega|major|minor)")
_SIDE_KEYS = {"progressive_table", "envy", "three_card", "five_card", "progressive_wager", "bonus_min", "bonus_max"}


@dataclass(frozen=True)
class TableSystem:
    """Inputs from the PA progressive table game system, recorded just before settlement."""

    meters: Mapping[str, int]
    magic_card: str | None
    lucky_seat: int | None


def mississippi_table(raw: Any) -> TableConfig:
    table = expect_object(raw, "table", {"min_ante", "max_ante"}, {"paytable", "side"})
    paytable = None
    if "paytable" in table:
        odds = expect_object(table["paytable"], "table.paytable", set(), {line.value for line in BaseHand})
        for line, value in odds.items():
            expect_int(value, f"table.paytable[{line!r}]")
        paytable = BasePaytable.from_mapping("script", odds)
    side = _side(table["side"]) if "side" in table else None
    return TableConfig(table["min_ante"], table["max_ante"], paytable, side)


def payout(raw: Any, path: str) -> Payout:
    """``"N to 1"``, ``"N for 1"`` or ``"P% of METER"``."""
    text = raw.strip() if isinstance(raw, str) else ""
    if match := _ODDS.fullmatch(text):
        basis = Basis.TO_ONE if match.group(2) == "to" else Basis.FOR_ONE
        with at(path):
            return Odds(int(match.group(1)), basis)
    if match := _METER.fullmatch(text):
        return MeterShare(match.group(2), int(match.group(1)))
    raise ScriptError(f'{path}: {raw!r} is not a payout: write "40 to 1", "300 for 1" or "10% of meter"')


def _bonus(raw: Any, path: str) -> Odds | FixedSum:
    if type(raw) is int:
        return FixedSum(expect_int(raw, path))
    paid = payout(raw, path)
    if not isinstance(paid, Odds):
        raise ScriptError(f'{path}: a bonus is fixed cents (e.g. 2500) or odds on the stake (e.g. "2 to 1")')
    return paid


def _paytable(raw: Any, path: str, parse: Callable[[str], K]) -> Paytable[K]:
    entries = expect_object(raw, path, set(), None)
    rows: list[tuple[K, Payout]] = []
    for name, value in entries.items():
        try:
            category = parse(name)
        except ValueError:
            raise ScriptError(f'{path}: unknown hand {name!r}: use a category name such as "flush"') from None
        rows.append((category, payout(value, f"{path}[{name!r}]")))
    return Paytable(path, tuple(rows))


def _side(raw: Any) -> SideWagerConfig:
    side = expect_object(raw, "table.side", {"offered"}, _SIDE_KEYS)
    offered_raw = side["offered"]
    if not isinstance(offered_raw, list):
        raise ScriptError('table.side.offered: a list such as ["progressive", "envy", "three-card-bonus"]')
    offered = set()
    for i, name in enumerate(offered_raw):
        try:
            offered.add(SideBet(name))
        except ValueError:
            names = ", ".join(b.value for b in SideBet)
            raise ScriptError(f"table.side.offered[{i}]: unknown side wager {name!r}: use {names}") from None
    envy = None
    if "envy" in side:
        amounts = expect_object(side["envy"], "table.side.envy", {"royal_flush", "straight_flush"}, set())
        envy = EnvyAmounts(
            expect_int(amounts["royal_flush"], "table.side.envy.royal_flush"),
            expect_int(amounts["straight_flush"], "table.side.envy.straight_flush"),
        )
    three = THREE_CARD_BONUS_EXAMPLE
    if "three_card" in side:
        three = _paytable(side["three_card"], "table.side.three_card", ThreeCardCategory)
    five = None
    if "five_card" in side:
        path = "table.side.five_card"
        raw_five = expect_object(side["five_card"], path, {"paytable", "magic_card", "lucky_bonus"}, set())
        five = FiveCardBonusConfig(
            _paytable(raw_five["paytable"], f"{path}.paytable", Category),
            _bonus(raw_five["magic_card"], f"{path}.magic_card"),
            _bonus(raw_five["lucky_bonus"], f"{path}.lucky_bonus"),
        )
    limits = {
        key: expect_int(side[key], f"table.side.{key}", low=1)
        for key in ("progressive_wager", "bonus_min", "bonus_max")
        if key in side
    }
    table = side.get("progressive_table", "A")
    return SideWagerConfig(frozenset(offered), table, envy, three, five, **limits)


def table_system(raw: Any, five: list[int]) -> TableSystem | None:
    """The ``"table_system"`` inputs; ``five`` lists the seats with a Five Card Hand Bonus wager."""
    if raw is None:
        if five:
            raise ScriptError(
                f"table_system: seat {five[0]} has a Five Card Hand Bonus wager: give the system's draw, "
                'e.g. "table_system": {"magic_card": "7h", "lucky_seat": 3, "meters": {"meter": 2500000}}'
            )
        return None
    system: ProgressiveInputs = typed(raw, ProgressiveInputs, "table_system")
    magic, lucky = system.magic_card, system.lucky_seat
    if five and (magic is None or lucky is None):
        raise ScriptError(
            f'table_system: seat {five[0]} has a Five Card Hand Bonus wager: give both "magic_card" and '
            '"lucky_seat" (the system\'s draw)'
        )
    return TableSystem(dict(system.meters), magic, lucky)
