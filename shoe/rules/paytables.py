"""Paytables and payout kinds, as data (NY 5324.38(f)(1); 58 Pa. Code 655a.12; rules digest).

Every entry carries its convention (rules digest, "Conventions"): :class:`Odds` are ``"to 1"``
(winnings on top of the returned stake, the base game) or ``"for 1"`` (stake included, the PA
progressive tables).  :class:`MeterShare` is a percentage of a progressive meter (an input from the
progressive table game system; never computed here).  :class:`FixedSum` is a fixed amount (Envy).
Money is integer cents everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Generic, TypeVar

from shoe.hands import Category, HandValue, ThreeCardCategory
from shoe.rules.errors import RuleViolation

__all__ = [
    "MISSISSIPPI_MINIMUM",
    "PROGRESSIVE_TABLES",
    "THREE_CARD_BONUS_EXAMPLE",
    "BaseHand",
    "BasePaytable",
    "Basis",
    "FixedSum",
    "MeterShare",
    "Odds",
    "Payout",
    "Paytable",
    "check_floor",
    "classify_base",
]


class Basis(Enum):
    """``to 1``: winnings on top of the returned stake.  ``for 1``: the stake is included."""

    TO_ONE = "to 1"
    FOR_ONE = "for 1"


@dataclass(frozen=True)
class Odds:
    """Fixed odds on the stake, e.g. ``Odds(500)`` is 500 to 1, ``Odds(300, Basis.FOR_ONE)`` 300 for 1."""

    multiple: int
    basis: Basis = Basis.TO_ONE

    def __post_init__(self) -> None:
        low = 1 if self.basis is Basis.FOR_ONE else 0
        if type(self.multiple) is not int or self.multiple < low:
            raise RuleViolation(
                f"bad odds {self.multiple!r} {self.basis.value}: a whole number >= {low}",
                rule="paytable",
                code="invalid-configuration",
            )

    @property
    def for_one(self) -> int:
        """The same odds written "for 1" (stake included)."""
        return self.multiple if self.basis is Basis.FOR_ONE else self.multiple + 1

    def returned(self, stake: int) -> int:
        """What a winning stake brings back, stake included."""
        return stake * self.for_one

    def winnings(self, stake: int) -> int:
        """What a winning stake wins on top of itself."""
        return stake * (self.for_one - 1)

    def __str__(self) -> str:
        return f"{self.multiple} {self.basis.value}"


@dataclass(frozen=True)
class MeterShare:
    """A percentage of a progressive meter (``meter``: ``"meter"``, ``"mega"``, ``"major"``, ``"minor"``).

    Never paid from the table tray; a floorperson validates it (PA 655a.11(i)(4)(i)(C)-(D)).
    """

    meter: str
    percent: int

    def amount(self, meters: Mapping[str, int]) -> int | None:
        """The payout in cents, or ``None`` when the meter reading is not known."""
        reading = meters.get(self.meter)
        return None if reading is None else reading * self.percent // 100

    def __str__(self) -> str:
        return f"{self.percent}% of {self.meter}"


@dataclass(frozen=True)
class FixedSum:
    """A fixed amount in cents (Envy Bonus, PA 655a.1 "Envy Bonus": "additional fixed sum payout")."""

    cents: int

    def __post_init__(self) -> None:
        if type(self.cents) is not int or self.cents < 0:
            raise RuleViolation(
                f"bad fixed sum {self.cents!r}: whole cents >= 0", rule="paytable", code="invalid-configuration"
            )

    def __str__(self) -> str:
        return f"{self.cents} cents"


Payout = Odds | MeterShare
"""A side-wager paytable entry."""

K = TypeVar("K", Category, ThreeCardCategory)


@dataclass(frozen=True)
class Paytable(Generic[K]):
    """A side-wager paytable: hand category -> payout; categories not listed lose."""

    name: str
    entries: tuple[tuple[K, Payout], ...]

    def payout(self, category: K) -> Payout | None:
        for key, value in self.entries:
            if key is category:
                return value
        return None

    def as_dict(self) -> dict[str, str]:
        return {key.value: str(value) for key, value in self.entries}


class BaseHand(Enum):
    """The lines of the base paytable (NY 5324.38(f)(1)): a pair splits into J+ and 6s-10s."""

    ROYAL_FLUSH = "royal-flush"
    STRAIGHT_FLUSH = "straight-flush"
    FOUR_OF_A_KIND = "four-of-a-kind"
    FULL_HOUSE = "full-house"
    FLUSH = "flush"
    STRAIGHT = "straight"
    THREE_OF_A_KIND = "three-of-a-kind"
    TWO_PAIR = "two-pair"
    JACKS_OR_BETTER = "pair-jacks-or-better"
    SIXES_TO_TENS = "pair-6s-to-10s"


_BY_CATEGORY = {
    Category.ROYAL_FLUSH: BaseHand.ROYAL_FLUSH,
    Category.STRAIGHT_FLUSH: BaseHand.STRAIGHT_FLUSH,
    Category.FOUR_OF_A_KIND: BaseHand.FOUR_OF_A_KIND,
    Category.FULL_HOUSE: BaseHand.FULL_HOUSE,
    Category.FLUSH: BaseHand.FLUSH,
    Category.STRAIGHT: BaseHand.STRAIGHT,
    Category.THREE_OF_A_KIND: BaseHand.THREE_OF_A_KIND,
    Category.TWO_PAIR: BaseHand.TWO_PAIR,
}


def classify_base(hand: HandValue) -> BaseHand | None:
    """The base paytable line of a five-card hand; ``None`` for a losing hand (below a pair of 6s)."""
    line = _BY_CATEGORY.get(hand.category)
    if line is not None:
        return line
    if hand.category is Category.PAIR:
        pair_rank = hand.tiebreak[0]
        if pair_rank >= 11:
            return BaseHand.JACKS_OR_BETTER
        if pair_rank >= 6:
            return BaseHand.SIXES_TO_TENS
    return None


@dataclass(frozen=True)
class BasePaytable:
    """The base game's odds, all "to 1" (NY 5324.38(f)(1)); 0 is a push; hands not listed lose."""

    name: str
    entries: tuple[tuple[BaseHand, int], ...]

    def __post_init__(self) -> None:
        for line, odds in self.entries:
            if type(odds) is not int or odds < 0:
                raise RuleViolation(
                    f"paytable {self.name!r}: {line.value} pays {odds!r}; odds are whole numbers >= 0 to 1",
                    rule="NY 5324.38(f)(1)",
                    code="invalid-configuration",
                )

    @classmethod
    def from_mapping(cls, name: str, odds: Mapping[str, int] | Mapping[BaseHand, int]) -> BasePaytable:
        """Build from ``{"royal-flush": 500, ...}`` or ``{BaseHand.ROYAL_FLUSH: 500, ...}``."""
        return cls(name, tuple((BaseHand(k) if isinstance(k, str) else k, v) for k, v in odds.items()))

    def odds(self, line: BaseHand) -> int | None:
        """Odds to 1 for that line (0 = push), ``None`` when the line is not on the table (loses)."""
        for key, value in self.entries:
            if key is line:
                return value
        return None

    @property
    def top_odds(self) -> int:
        """The best odds on the table (a royal flush on every standard table)."""
        return max((v for _, v in self.entries), default=0)

    def as_dict(self) -> dict[str, int]:
        return {k.value: v for k, v in self.entries}


MISSISSIPPI_MINIMUM = BasePaytable(
    "mississippi-minimum",
    (
        (BaseHand.ROYAL_FLUSH, 500),
        (BaseHand.STRAIGHT_FLUSH, 100),
        (BaseHand.FOUR_OF_A_KIND, 40),
        (BaseHand.FULL_HOUSE, 10),
        (BaseHand.FLUSH, 6),
        (BaseHand.STRAIGHT, 4),
        (BaseHand.THREE_OF_A_KIND, 3),
        (BaseHand.TWO_PAIR, 2),
        (BaseHand.JACKS_OR_BETTER, 1),
        (BaseHand.SIXES_TO_TENS, 0),
    ),
)
"""The base paytable (NY 5324.38(f)(1), PA 655a.12(a)): the NY/NJ floor and the fixed PA table."""


def check_floor(table: BasePaytable, minimum: BasePaytable, rule: str) -> None:
    """Refuse a table with any entry below the minimum, naming the entry (NY 5324.38(f)(1))."""
    for line, least in minimum.entries:
        odds = table.odds(line)
        if odds is None or odds < least:
            shown = "nothing (loses)" if odds is None else f"{odds} to 1"
            raise RuleViolation(
                f"paytable {table.name!r} refused: {line.value} pays {shown}, below the minimum {least} to 1",
                rule=rule,
                code="paytable-below-minimum",
            )


def _for1(n: int) -> Odds:
    return Odds(n, Basis.FOR_ONE)


def _progressive(name: str, royal: Payout, sf: Payout, quads: Payout, trips: int) -> Paytable[Category]:
    return Paytable(
        name,
        (
            (Category.ROYAL_FLUSH, royal),
            (Category.STRAIGHT_FLUSH, sf),
            (Category.FOUR_OF_A_KIND, quads),
            (Category.FULL_HOUSE, _for1(50)),
            (Category.FLUSH, _for1(40)),
            (Category.STRAIGHT, _for1(30)),
            (Category.THREE_OF_A_KIND, _for1(trips)),
        ),
    )


PROGRESSIVE_TABLES: Mapping[str, Paytable[Category]] = {
    "A": _progressive("A", MeterShare("meter", 100), MeterShare("meter", 10), _for1(300), 9),
    "B": _progressive("B", MeterShare("mega", 100), MeterShare("major", 100), _for1(300), 9),
    "C": _progressive("C", MeterShare("mega", 100), MeterShare("major", 100), MeterShare("minor", 100), 10),
    "D": _progressive("D", MeterShare("mega", 100), MeterShare("major", 100), MeterShare("minor", 100), 9),
}
"""PA Progressive Payout tables A-D (655a.12(c); rules digest), all "for 1"; the operator picks one."""

THREE_CARD_BONUS_EXAMPLE: Paytable[ThreeCardCategory] = Paytable(
    "three-card-bonus-example",
    (
        (ThreeCardCategory.MINI_ROYAL, Odds(50)),
        (ThreeCardCategory.STRAIGHT_FLUSH, Odds(40)),
        (ThreeCardCategory.THREE_OF_A_KIND, Odds(30)),
        (ThreeCardCategory.STRAIGHT, Odds(6)),
        (ThreeCardCategory.FLUSH, Odds(3)),
        (ThreeCardCategory.PAIR, Odds(1)),
    ),
)
"""The published casino example of a Three Card Bonus table (to 1); the default when none is given."""
