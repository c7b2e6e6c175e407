"""Typed requests to the rules engine's inputs: a Mississippi table configuration and the seats.

The request types (:mod:`shoe.service.requests`) have checked shape and ranges at the edge, one
type per game; these turn them into the rules engine's values. Whether a value is legal at this
point of the round is the rules engine's call (it cites the rule).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from shoe.rules.mississippi import TableConfig
from shoe.rules.mississippi.side_wagers import EnvyAmounts, SideWagerConfig
from shoe.rules.profiles import SideBet
from shoe.service.errors import ErrorKind, ServiceError
from shoe.service.requests import MississippiTable, Name, RequestError, SeatWager, StudSeat, convert

__all__ = ["bad_request", "journaled_table", "mississippi_seats", "stud_seats", "table_config", "table_params"]


def bad_request(message: str) -> ServiceError:
    return ServiceError("bad-request", message, kind=ErrorKind.BAD_INPUT)


def table_params(table: Name | MississippiTable | None) -> MississippiTable:
    """The table of an ``open-round`` request: a bare name is ``{"name": ...}``, none is ``{}``."""
    if isinstance(table, str):
        return MississippiTable(name=table)
    return table or MississippiTable()


def table_config(table: MississippiTable) -> TableConfig:
    """``{"min_ante": 500, "max_ante": 10000, "side": {"offered": ["progressive", ...], ...}}`` (cents)."""
    side = None
    if table.side is not None:
        raw = table.side
        envy = None if raw.envy is None else EnvyAmounts(raw.envy.royal_flush, raw.envy.straight_flush)
        base = SideWagerConfig(frozenset(SideBet(b) for b in raw.offered), envy=envy)
        side = dataclasses.replace(
            base,
            progressive_table=base.progressive_table if raw.progressive_table is None else raw.progressive_table,
            progressive_wager=base.progressive_wager if raw.progressive_wager is None else raw.progressive_wager,
            bonus_min=base.bonus_min if raw.bonus_min is None else raw.bonus_min,
            bonus_max=base.bonus_max if raw.bonus_max is None else raw.bonus_max,
        )
    min_ante = 100 if table.min_ante is None else table.min_ante
    max_ante = 100_000 if table.max_ante is None else table.max_ante
    return TableConfig(min_ante=min_ante, max_ante=max_ante, side=side)


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
