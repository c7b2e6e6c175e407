"""Typed requests to the rules engine's inputs: a Mississippi table configuration and the seats.

The request types (:mod:`shoe.service.api.requests`) have checked shape and ranges at the edge, one
type per game; these turn them into the rules engine's values. Whether a value is legal at this
point of the round is the rules engine's call (it cites the rule).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import msgspec

from shoe.hands import Category, ThreeCardCategory
from shoe.rules.mississippi import FiveCardBonusConfig, TableConfig
from shoe.rules.mississippi.side_wagers import EnvyAmounts, SideWagerConfig
from shoe.rules.paytables import BasePaytable, Basis, FixedSum, MeterShare, Odds, Payout, Paytable
from shoe.rules.profiles import SideBet
from shoe.service.api.requests import MississippiTable, Name, RequestError, SeatWager, SideParams, StudSeat, convert
from shoe.service.errors import ErrorKind, ServiceError

__all__ = [
    "bad_request",
    "journaled_table",
    "mississippi_seats",
    "payout",
    "stud_seats",
    "table_config",
    "table_params",
]

K = TypeVar("K", Category, ThreeCardCategory)


def bad_request(message: str) -> ServiceError:
    return ServiceError("bad-request", message, kind=ErrorKind.BAD_INPUT)


def table_params(table: Name | MississippiTable | None) -> MississippiTable:
    """The table of an ``open-round`` request: a bare name is ``{"name": ...}``, none is ``{}``."""
    if isinstance(table, str):
        return MississippiTable(name=table)
    return table or MississippiTable()


_ODDS = re.compile(r"(\d+) (to|for) 1")
_METER = re.compile(r"(\d+)% of (meter|mega|major|minor)")


def payout(text: str) -> Payout:
    """``"N to 1"``, ``"N for 1"`` or ``"P% of METER"`` (the request type's pattern has checked the form)."""
    if match := _ODDS.fullmatch(text):
        return Odds(int(match.group(1)), Basis.TO_ONE if match.group(2) == "to" else Basis.FOR_ONE)
    if match := _METER.fullmatch(text):
        return MeterShare(match.group(2), int(match.group(1)))
    raise ValueError(f"{text!r} is not a payout")  # unreachable past the request type's pattern


def _bonus(value: int | str) -> Odds | FixedSum:
    if isinstance(value, int):
        return FixedSum(value)
    paid = payout(value)
    assert isinstance(paid, Odds)  # the pattern of BonusOdds
    return paid


def _paytable(name: str, entries: Mapping[Any, str], parse: Callable[[str], K]) -> Paytable[K]:
    return Paytable(name, tuple((parse(hand), payout(text)) for hand, text in entries.items()))


def _side(raw: SideParams) -> SideWagerConfig:
    envy = None if raw.envy is None else EnvyAmounts(raw.envy.royal_flush, raw.envy.straight_flush)
    base = SideWagerConfig(frozenset(SideBet(b) for b in raw.offered), envy=envy)
    five = None
    if raw.five_card is not None:
        paytable = _paytable("table.side.five_card.paytable", raw.five_card.paytable, Category)
        five = FiveCardBonusConfig(paytable, _bonus(raw.five_card.magic_card), _bonus(raw.five_card.lucky_bonus))
    three = base.three_card
    if raw.three_card is not None:
        three = _paytable("table.side.three_card", raw.three_card, ThreeCardCategory)
    return dataclasses.replace(
        base,
        progressive_table=base.progressive_table if raw.progressive_table is None else raw.progressive_table,
        three_card=three,
        five_card=five,
        progressive_wager=base.progressive_wager if raw.progressive_wager is None else raw.progressive_wager,
        bonus_min=base.bonus_min if raw.bonus_min is None else raw.bonus_min,
        bonus_max=base.bonus_max if raw.bonus_max is None else raw.bonus_max,
    )


def table_config(table: MississippiTable) -> TableConfig:
    """The rules engine's configuration of a Mississippi stud table: the one conversion of the one table
    type, for ``POST /v1/rounds`` and for a play script's ``"table"`` (docs/play-scripts.md) alike.

    ``{"min_ante": 500, "max_ante": 10000, "paytable": {...}, "side": {"offered": [...], "three_card":
    {...}, "five_card": {...}, ...}}`` (cents); what is not given takes the defaults (ante 100 to
    100,000; the profile's paytable; the side wagers' example tables and limits). Whether the result
    is legal for the jurisdiction is ``shoe.rules.mississippi.resolve_table``'s call (it cites the rule).
    """
    paytable = None
    if table.paytable is not None:
        paytable = BasePaytable.from_mapping("table", {str(k): v for k, v in table.paytable.items()})
    side = None if table.side is None else _side(table.side)
    min_ante = 100 if table.min_ante is None else table.min_ante
    max_ante = 100_000 if table.max_ante is None else table.max_ante
    return TableConfig(min_ante=min_ante, max_ante=max_ante, paytable=paytable, side=side)


def journaled_table(raw: object) -> MississippiTable:
    """The table of a ``round-opened`` entry (journaled as ``MississippiTable.given()``), for replay."""
    if not isinstance(raw, Mapping):
        return MississippiTable()
    try:
        table: MississippiTable = convert({k: v for k, v in raw.items() if v is not None}, MississippiTable)
    except RequestError as exc:
        raise ValueError(f"the journaled table: {exc}") from None
    return table


def mississippi_seats(seats: Sequence[SeatWager]) -> dict[int, dict[str, Any]]:
    """``[{"seat": 1, "ante": 1000, "side": {...}}, ...]`` -> ``{1: {"ante": 1000, "side": {...}}}``."""
    out: dict[int, dict[str, Any]] = {}
    for i, item in enumerate(seats):
        if item.seat in out:
            raise ServiceError("bad-seats", f"$.seats[{i}]: seat {item.seat} is given twice", kind=ErrorKind.BAD_INPUT)
        out[item.seat] = {"ante": item.ante, "side": msgspec.to_builtins(item.side)}
    return out


def stud_seats(seats: Sequence[int | StudSeat]) -> list[int]:
    """``[1, 3, 6]`` or ``[{"seat": 1}, ...]`` -> ``[1, 3, 6]`` (the ante is the table's)."""
    return [item if isinstance(item, int) else item.seat for item in seats]
