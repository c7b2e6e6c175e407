"""A Mississippi stud script's ``"table"``: ante limits, a better NY/NJ paytable, the PA side wagers.

Payouts are written as in the rules digest: ``"500 to 1"`` (winnings on top of the returned stake),
``"300 for 1"`` (stake included), ``"10% of meter"`` (a share of a progressive meter: ``meter``,
``mega``, ``major`` or ``minor``).  The Magic Card and Lucky bonuses may also be a fixed sum, written
as integer cents.  See docs/play-scripts.md for a whole PA table.  The table and the table system's
inputs are the service's request types (``MississippiTable``, ``progressive-inputs``, in
shoe/service/api/requests.py), decoded and converted by the same code as ``POST /v1/rounds``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from shoe.play.errors import ScriptError, typed
from shoe.rules.mississippi import TableConfig
from shoe.service.api.requests import MississippiTable, ProgressiveInputs
from shoe.service.rounds.params import table_config

__all__ = ["TableSystem", "mississippi_table", "table_system"]


@dataclass(frozen=True)
class TableSystem:
    """Inputs from the PA progressive table game system, recorded just before settlement."""

    meters: Mapping[str, int]
    magic_card: str | None
    lucky_seat: int | None


def mississippi_table(raw: Any) -> TableConfig:
    """The script's ``"table"``: the table service's own request type and conversion
    (``MississippiTable``, ``shoe.service.rounds.params.table_config``), so a table a script deals is one
    ``POST /v1/rounds`` takes, checked the same way; a problem names its script path (``table.side...``)."""
    table: MississippiTable = typed(raw, MississippiTable, "table")
    return table_config(table)


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
