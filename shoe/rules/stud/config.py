"""Table configuration for fixed-limit seven-card stud (N.J.A.C. 13:47-20.35(b) and the rules digest).

The regulation leaves the ante, bring-in and limits to the posted table rules; they are configuration.
All money is integer cents.

Decisions (docs/seven-card-stud.md):

* Fixed limit: the small bet on 3rd and 4th street, the big bet on 5th, 6th and 7th.
* No optional big bet on 4th street with an open pair: 4th street is always the small bet (the text and
  digest are silent; the simpler posted rule, and the one a shoe-driven table can show unambiguously).
* Raise cap: one bet (or completion) and ``max_raises`` raises per street, default 3 ("a bet and three
  raises"); the cap applies heads-up too.  The bring-in is not a bet for the cap.
* ``0 < bring_in < small_bet <= big_bet``; ``ante >= 0``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from shoe.rules.errors import RuleViolation
from shoe.rules.profiles import NJ_SEVEN_CARD_STUD
from shoe.rules.stud.errors import cite
from shoe.rules.stud.states import Street

__all__ = ["MAX_SEATS", "StudTableConfig"]

MAX_SEATS = NJ_SEVEN_CARD_STUD.max_seats
"""N.J.A.C. 13:47-20.35(b): a poker table is restricted to a maximum of eight players (the profile)."""


def _cents(name: str, value: object) -> int:
    if type(value) is not int:
        raise RuleViolation(f"{name} must be an int number of cents, not {value!r}", rule=cite("b"), code="bad-config")
    return value


@dataclass(frozen=True, slots=True)
class StudTableConfig:
    """The posted table rules: ante, bring-in and fixed limits in cents, and the raise cap."""

    ante: int
    bring_in: int
    small_bet: int
    big_bet: int
    max_raises: int = 3
    max_seats: int = MAX_SEATS

    def __post_init__(self) -> None:
        ante = _cents("ante", self.ante)
        bring_in = _cents("bring_in", self.bring_in)
        small = _cents("small_bet", self.small_bet)
        big = _cents("big_bet", self.big_bet)
        problems = []
        if ante < 0:
            problems.append(f"ante {ante} is negative")
        if not 0 < bring_in < small:
            problems.append(f"bring_in {bring_in} must be above 0 and below the small bet {small}")
        if big < small:
            problems.append(f"big_bet {big} is below the small bet {small}")
        if type(self.max_raises) is not int or self.max_raises < 0:
            problems.append(f"max_raises {self.max_raises!r} must be an int >= 0")
        if type(self.max_seats) is not int or not 2 <= self.max_seats <= MAX_SEATS:
            problems.append(f"max_seats {self.max_seats!r} must be 2..{MAX_SEATS}")
        if problems:
            raise RuleViolation("bad table configuration: " + "; ".join(problems), rule=cite("b"), code="bad-config")

    def bet_size(self, street: Street) -> int:
        """The fixed bet and raise size: small bet on 3rd and 4th street, big bet on 5th to 7th."""
        return self.small_bet if street <= Street.FOURTH else self.big_bet

    @property
    def max_bets(self) -> int:
        """Bets per street including the opening bet or completion: ``1 + max_raises``."""
        return 1 + self.max_raises

    @classmethod
    def from_mapping(cls, table: dict[str, Any]) -> StudTableConfig:
        """Build from a script's ``"table"`` object: ``{"ante": 0, "bring_in": 100, ...}``.

        Unknown keys are refused so that a misspelt limit is never silently ignored.
        """
        known = {"ante", "bring_in", "small_bet", "big_bet", "max_raises", "max_seats"}
        unknown = sorted(set(table) - known)
        if unknown:
            raise RuleViolation(
                f"unknown table keys {unknown}; known: {sorted(known)}", rule=cite("b"), code="bad-config"
            )
        missing = sorted({"bring_in", "small_bet", "big_bet"} - set(table))
        if missing:
            raise RuleViolation(f"missing table keys {missing}", rule=cite("b"), code="bad-config")
        return cls(**{"ante": 0, **table})
