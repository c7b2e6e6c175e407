"""Request parameters: integers in range, a Mississippi table configuration, the seats and their wagers.

Shape only; whether a value is legal at this point of the round is the rules engine's call (it cites the
rule). Every problem is a ``bad-request`` (400) that says what was expected.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from shoe.rules.mississippi import TableConfig
from shoe.rules.mississippi.side_wagers import EnvyAmounts, SideWagerConfig
from shoe.rules.profiles import SideBet
from shoe.service.errors import ServiceError

__all__ = ["bad_request", "int_param", "parse_seats", "table_config"]

_SIDE_KEYS = ("offered", "envy", "progressive_table", "progressive_wager", "bonus_min", "bonus_max")


def bad_request(message: str) -> ServiceError:
    return ServiceError("bad-request", message, http_status=400)


def table_config(raw: object) -> TableConfig:
    """``{"min_ante": 500, "max_ante": 10000, "side": {"offered": ["progressive", ...], ...}}`` (cents)."""
    table = raw if isinstance(raw, Mapping) else {}
    unknown = set(table) - {"name", "min_ante", "max_ante", "side"}
    if unknown:
        raise bad_request(f"table keys {', '.join(sorted(unknown))} unknown; use name, min_ante, max_ante, side")
    side_raw = table.get("side")
    side = None
    if side_raw is not None:
        if not isinstance(side_raw, Mapping) or set(side_raw) - set(_SIDE_KEYS):
            raise bad_request(f"table.side takes {', '.join(_SIDE_KEYS)}")
        try:
            offered = frozenset(SideBet(b) for b in side_raw.get("offered", []))
        except ValueError as exc:
            raise bad_request(f"table.side.offered: {exc}; choose from {', '.join(b.value for b in SideBet)}") from None
        envy = side_raw.get("envy")
        extra = {k: side_raw[k] for k in _SIDE_KEYS[2:] if k in side_raw}
        try:
            side = SideWagerConfig(offered, envy=None if envy is None else EnvyAmounts(**envy), **extra)
        except TypeError as exc:
            raise bad_request(f"table.side: {exc}") from None
    return TableConfig(min_ante=table.get("min_ante", 100), max_ante=table.get("max_ante", 100_000), side=side)


def parse_seats(raw: object) -> dict[int, dict[str, Any]]:
    """``{"1": {"ante": 1000, "side": {...}}}`` or ``[{"seat": 1, "ante": 1000, ...}]`` -> ``{1: {...}}``."""
    items: list[tuple[object, Any]]
    if isinstance(raw, Mapping):
        items = list(raw.items())
    elif isinstance(raw, list) and all(isinstance(s, Mapping) for s in raw):
        items = [(s.get("seat"), s) for s in raw]
    else:
        raise bad_request('seats must map each seat to its wagers, e.g. {"1": {"ante": 1000}}')
    seats: dict[int, dict[str, Any]] = {}
    for key, value in items:
        seat = int(key) if isinstance(key, str) and key.isdigit() else key
        if type(seat) is not int or seat in seats or not isinstance(value, Mapping):
            raise bad_request(f"seat {key!r} is not a seat number with its wagers (or is given twice)")
        seats[seat] = {"ante": value.get("ante"), "side": dict(value.get("side") or {})}
    if not seats:
        raise bad_request("a round needs at least one seat with a wager")
    return seats


def int_param(params: Mapping[str, Any], name: str, *, low: int | None = None, high: int | None = None) -> int:
    value = params.get(name)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value)
    if type(value) is not int or (low is not None and value < low) or (high is not None and value > high):
        span = f" ({low}..{high})" if low is not None and high is not None else ""
        raise bad_request(f"{name!r} must be an integer{span}, not {value!r}")
    return value
