"""Streets, phases and the phase transition table, as data (N.J.A.C. 13:47-20.35(c)-(i)).

The table below is the single source for the state machine (``machine.py``, over the shared
``transitions`` wrapper :mod:`shoe.rules.machine`) and for the diagram in
docs/seven-card-stud.md (``machine.mermaid()``), so the picture cannot drift from the code.
"""

from __future__ import annotations

from enum import Enum, IntEnum
from itertools import pairwise

from shoe.rules.machine import Edge

__all__ = [
    "BETTING_PHASES",
    "DEALING_PHASES",
    "PHASE_RULE",
    "TERMINAL_PHASES",
    "TRANSITIONS",
    "Phase",
    "Street",
    "Transition",
]


class Street(IntEnum):
    """The streets, named by the number of cards a player holds after it is dealt."""

    THIRD = 3
    FOURTH = 4
    FIFTH = 5
    SIXTH = 6
    SEVENTH = 7

    @property
    def label(self) -> str:
        """``"3"`` .. ``"7"``: the name used by the query API and scripts."""
        return str(self.value)

    @classmethod
    def parse(cls, name: str | int) -> Street:
        """``Street.parse("4")``, ``Street.parse(4)`` or ``Street.parse("FOURTH")``."""
        if isinstance(name, str) and name.upper() in cls.__members__:
            return cls[name.upper()]
        try:
            return cls(int(name))
        except ValueError:
            raise ValueError(f"unknown street {name!r}: a street is '3'..'7'") from None


class Phase(Enum):
    """Where the hand is.  Dealing phases take cards from the shoe; betting phases take actions."""

    DEAL_THIRD = "deal-3rd"
    BRING_IN = "bring-in"
    BET_THIRD = "bet-3rd"
    DEAL_FOURTH = "deal-4th"
    BET_FOURTH = "bet-4th"
    DEAL_FIFTH = "deal-5th"
    BET_FIFTH = "bet-5th"
    DEAL_SIXTH = "deal-6th"
    BET_SIXTH = "bet-6th"
    DEAL_SEVENTH = "deal-7th"
    BET_SEVENTH = "bet-7th"
    SHOWDOWN = "showdown"
    UNCONTESTED = "uncontested"

    @property
    def street(self) -> Street | None:
        """The street a dealing or betting phase belongs to (None for the end phases)."""
        return _PHASE_STREET.get(self)


DEALING_PHASES: dict[Street, Phase] = {
    Street.THIRD: Phase.DEAL_THIRD,
    Street.FOURTH: Phase.DEAL_FOURTH,
    Street.FIFTH: Phase.DEAL_FIFTH,
    Street.SIXTH: Phase.DEAL_SIXTH,
    Street.SEVENTH: Phase.DEAL_SEVENTH,
}
BETTING_PHASES: dict[Street, Phase] = {
    Street.THIRD: Phase.BET_THIRD,
    Street.FOURTH: Phase.BET_FOURTH,
    Street.FIFTH: Phase.BET_FIFTH,
    Street.SIXTH: Phase.BET_SIXTH,
    Street.SEVENTH: Phase.BET_SEVENTH,
}
TERMINAL_PHASES = frozenset({Phase.SHOWDOWN, Phase.UNCONTESTED})

_PHASE_STREET: dict[Phase, Street] = {
    **{p: s for s, p in DEALING_PHASES.items()},
    **{p: s for s, p in BETTING_PHASES.items()},
    Phase.BRING_IN: Street.THIRD,
}

PHASE_RULE: dict[Phase, str] = {
    Phase.DEAL_THIRD: "c",
    Phase.BRING_IN: "d",
    Phase.BET_THIRD: "e",
    Phase.DEAL_FOURTH: "f",
    Phase.BET_FOURTH: "g",
    Phase.DEAL_FIFTH: "h",
    Phase.BET_FIFTH: "h",
    Phase.DEAL_SIXTH: "h",
    Phase.BET_SIXTH: "h",
    Phase.DEAL_SEVENTH: "h",
    Phase.BET_SEVENTH: "h",
    Phase.SHOWDOWN: "i",
    Phase.UNCONTESTED: "i",
}
"""The paragraph of N.J.A.C. 13:47-20.35 that governs each phase (cited when an action is refused)."""


Transition = Edge[Phase]
"""One row of the table (:class:`shoe.rules.machine.Edge`): ``trigger`` moves the hand from ``source``
to ``dest``; ``rule`` is the paragraph of N.J.A.C. 13:47-20.35 that says why."""


def _rows() -> tuple[Transition, ...]:
    rows = [
        Transition("cards_dealt", Phase.DEAL_THIRD, Phase.BRING_IN, rule="d"),
        Transition("forced_bet", Phase.BRING_IN, Phase.BET_THIRD, rule="e"),
    ]
    for street, nxt in pairwise(Street):
        rule = "f" if nxt is Street.FOURTH else "h"
        rows.append(Transition("betting_closed", BETTING_PHASES[street], DEALING_PHASES[nxt], rule=rule))
        rows.append(Transition("cards_dealt", DEALING_PHASES[nxt], BETTING_PHASES[nxt], rule=rule))
    rows.append(Transition("betting_closed", Phase.BET_SEVENTH, Phase.SHOWDOWN, rule="i"))
    rows.extend(Transition("all_but_one_folded", p, Phase.UNCONTESTED, rule="i") for p in BETTING_PHASES.values())
    return tuple(rows)


TRANSITIONS: tuple[Transition, ...] = _rows()
"""Every legal phase change.  Anything not listed is refused by the machine."""
