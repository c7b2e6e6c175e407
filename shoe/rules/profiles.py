"""Jurisdiction profiles: frozen tables of what differs between NY, PA and NJ (data only).

Sources: NY 9 NYCRR 5324.38, 58 Pa. Code 655a.11, N.J.A.C. 13:69F-35.9 (Mississippi stud, "same
procedure as NY" per the rules digest) and N.J.A.C. 13:47-20.35 (casino-night seven-card stud), plus
the product decisions of ``shared/docs/rules-digest.md``.  A profile is configuration, not code: the
round machines read it.  Per-table choices (a better NY paytable, the PA progressive table, the
community-card source) are made with :func:`dataclasses.replace` or the table configuration.

Seats are numbered clockwise from the seat farthest to the dealer's left, so "clockwise from the
dealer's left" is ascending seat order and "counterclockwise from the dealer's right" descending.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from shoe.rules.errors import UnknownProfile
from shoe.rules.paytables import MISSISSIPPI_MINIMUM, BasePaytable

__all__ = [
    "IRREGULARITIES",
    "PROFILES",
    "STUD_PROFILES",
    "CapRule",
    "Citations",
    "CommunitySource",
    "Face",
    "FoldHandling",
    "Irregularity",
    "IrregularityRule",
    "MississippiProfile",
    "PaytablePolicy",
    "Remedy",
    "SeatOrder",
    "SideBet",
    "StubCountRule",
    "StudProfile",
    "StudStreet",
    "get_profile",
]


class SeatOrder(Enum):
    ASCENDING = "ascending"  # clockwise from the dealer's left
    DESCENDING = "descending"  # counterclockwise from the dealer's right


class CommunitySource(Enum):
    STUB = "stub"  # dealt by hand from the stub, identified at reveal (NY 5324.38(d)(3))
    SHOE = "shoe"  # a three-card stack dispensed to the community area (configurable, digest)


class PaytablePolicy(Enum):
    FIXED = "fixed"  # PA 655a.12(a): the table is the table
    FLOOR = "floor"  # NY 5324.38(f)(1): "no less than"; better tables allowed, validated


class SideBet(Enum):
    """PA side wagers (655a.11(i)(4), 655a.12); Envy rides on the Progressive wager."""

    PROGRESSIVE = "progressive"
    ENVY = "envy"
    THREE_CARD_BONUS = "three-card-bonus"
    FIVE_CARD_HAND_BONUS = "five-card-hand-bonus"


class FoldHandling(Enum):
    COLLECT_AT_ONCE = "collect-at-once"  # NY 5324.38(e)(1),(3),(5)
    KEEP_WITH_SIDE_WAGERS = "keep-with-side-wagers"  # PA 655a.11(b),(d),(f),(h)


class Irregularity(Enum):
    """Irregular events (rules digest, "Irregularities")."""

    BAD_STACK = "bad-stack"  # a stack with other than two cards
    EXTRA_STACK = "extra-stack"
    EARLY_STACK = "early-stack"  # before no more bets (PA: before the progressive lock-out and count)
    UNREADABLE_CARD = "unreadable-card"
    FOREIGN_CARD = "foreign-card"  # not in the loaded deck
    DUPLICATE_CARD = "duplicate-card"
    COMMUNITY_EXPOSED = "community-card-exposed"
    STUB_COUNT_WRONG = "stub-count-wrong"
    LINK_LOST = "shoe-link-lost"
    LINK_UNRECONCILED = "shoe-link-unreconciled"
    PC_RESTART = "table-pc-restart"
    # The shoe contradicted itself: handled as the digest handles a card that cannot be trusted
    # (a foreign or duplicate card): misdeal, deck out, security review. Never a guess at which version held.
    SHOE_DISCREPANCY = "shoe-discrepancy"
    OTHER = "other"  # declared by the floor for a cause the table does not list


class Remedy(Enum):
    MISDEAL = "misdeal"  # round void, every wager returned
    IDENTIFY_OR_MISDEAL = "identify-or-misdeal"  # dealer identifies with a technician, else misdeal
    PAUSE = "pause"  # paused, reconciled, resumed or voided
    REBUILD = "rebuild"  # rebuilt from the journal, then resumed or voided


@dataclass(frozen=True)
class IrregularityRule:
    event: Irregularity
    remedy: Remedy
    deck_removed: bool
    security_alert: bool
    description: str


_I, _R = Irregularity, Remedy
IRREGULARITIES: tuple[IrregularityRule, ...] = (
    IrregularityRule(_I.BAD_STACK, _R.MISDEAL, False, False, "a stack with other than two cards"),
    IrregularityRule(_I.EXTRA_STACK, _R.MISDEAL, False, False, "an extra stack"),
    IrregularityRule(_I.EARLY_STACK, _R.MISDEAL, False, False, "a stack before no more bets (PA: the lock-out)"),
    IrregularityRule(_I.UNREADABLE_CARD, _R.IDENTIFY_OR_MISDEAL, False, False, "a card unreadable after re-read"),
    IrregularityRule(_I.FOREIGN_CARD, _R.MISDEAL, True, True, "a card not in the loaded deck"),
    IrregularityRule(_I.DUPLICATE_CARD, _R.MISDEAL, True, True, "a duplicate card"),
    IrregularityRule(_I.COMMUNITY_EXPOSED, _R.MISDEAL, False, False, "a community card exposed before its street"),
    IrregularityRule(_I.STUB_COUNT_WRONG, _R.MISDEAL, True, False, "stub count wrong at the end of the deal"),
    IrregularityRule(_I.LINK_LOST, _R.PAUSE, False, False, "shoe link lost mid-round"),
    IrregularityRule(_I.LINK_UNRECONCILED, _R.MISDEAL, False, False, "link back, shoe not reconciled"),
    IrregularityRule(_I.PC_RESTART, _R.REBUILD, False, False, "the table PC restarted mid-round"),
    IrregularityRule(_I.SHOE_DISCREPANCY, _R.MISDEAL, True, True, "the shoe contradicted itself about the cards"),
    IrregularityRule(_I.OTHER, _R.MISDEAL, False, False, "declared by the floor"),
)
"""The digest's irregularity table, as data; every event is journaled with its cause."""


@dataclass(frozen=True)
class CapRule:
    """Aggregate payout limit per hand: the greater of ``floor_cents`` and the most one player could
    win in one round at the table minimum (min ante, 3x on every street, the top paytable line).
    Decision: it limits the base-game winnings of one hand; side wagers follow their own tables."""

    floor_cents: int
    rule: str


@dataclass(frozen=True)
class StubCountRule:
    """Decision: this controller counts the stub every round, stricter than the regulatory "at least
    once every five rounds" (NJ 13:69F-35.9(e), PA 684a.10(d) template); ``rule`` cites it.  (There is
    no "every n rounds" field: the machine always counts, so such a value would change nothing.)"""

    rule: str


@dataclass(frozen=True)
class Citations:
    """The rule cited for each step (refusal messages and records carry these)."""

    seats: str
    wagers: str
    no_more_bets: str
    stacks: str
    stub: str
    community: str
    decisions: tuple[str, str, str]  # 3rd, 4th, 5th street
    reveals: tuple[str, str, str]  # 1st, 2nd, 3rd community card
    settlement: str
    paytable: str
    cap: str
    irregularity: str
    progressive_lock: str = ""
    information_sharing: str = ""
    fold_with_side_wagers: str = ""
    progressive: str = ""
    envy: str = ""
    three_card_bonus: str = ""
    five_card_hand_bonus: str = ""


@dataclass(frozen=True)
class MississippiProfile:
    """Everything a Mississippi stud round needs to know about its jurisdiction."""

    jurisdiction: str
    regulation: str
    rules: Citations
    paytable: BasePaytable
    paytable_policy: PaytablePolicy
    cap: CapRule
    stub_count: StubCountRule
    fold_handling: FoldHandling
    side_bets: frozenset[SideBet] = frozenset()
    progressive_tables: tuple[str, ...] = ()
    progressive_lockout_before_first_stack: bool = False
    information_sharing_forfeits: bool = False
    game: str = "mississippi-stud"
    max_seats: int = 6  # NY 5324.38(a)(1)
    deck_size: int = 52
    stack_size: int = 2  # NY 5324.38(d)(2); stacks go only to the seats that wagered (the ledger's order)
    community_cards: int = 3
    community_source: CommunitySource = CommunitySource.STUB
    decision_order: SeatOrder = SeatOrder.ASCENDING
    settlement_order: SeatOrder = SeatOrder.DESCENDING
    bet_multiples: tuple[int, ...] = (1, 2, 3)
    irregularities: tuple[IrregularityRule, ...] = IRREGULARITIES

    def irregularity(self, event: Irregularity) -> IrregularityRule:
        """The remedy row for ``event``."""
        for row in self.irregularities:
            if row.event is event:
                return row
        raise KeyError(event)


_CAP_FLOOR = 5_000_000  # $50,000 in cents
_DIGEST_STUB = "rules digest: stub counted every round"

NY_MISSISSIPPI = MississippiProfile(
    jurisdiction="NY",
    regulation="9 NYCRR 5324.38",
    rules=Citations(
        seats="NY 5324.38(a)(1)",
        wagers="NY 5324.38(c)(2)",
        no_more_bets="NY 5324.38(c)(2)",
        stacks="NY 5324.38(d)(2)",
        stub="NY 5324.38(d)(3)",
        community="NY 5324.38(d)(3)",
        decisions=("NY 5324.38(e)(1)", "NY 5324.38(e)(3)", "NY 5324.38(e)(5)"),
        reveals=("NY 5324.38(e)(2)", "NY 5324.38(e)(4)", "NY 5324.38(e)(6)"),
        settlement="NY 5324.38(e)(7)",
        paytable="NY 5324.38(f)(1)",
        cap="NY 5324.38(f)(2)",
        irregularity="rules digest: irregularities",
    ),
    paytable=MISSISSIPPI_MINIMUM,
    paytable_policy=PaytablePolicy.FLOOR,
    cap=CapRule(_CAP_FLOOR, "NY 5324.38(f)(2)"),
    stub_count=StubCountRule(_DIGEST_STUB),
    fold_handling=FoldHandling.COLLECT_AT_ONCE,
)

_NJ = "NJ 13:69F-35.9"


def _as_ny_e(a: int, b: int, c: int) -> tuple[str, str, str]:
    def one(p: int) -> str:
        return f"{_NJ} (as NY 5324.38(e)({p}))"

    return (one(a), one(b), one(c))


NJ_MISSISSIPPI = MississippiProfile(
    jurisdiction="NJ",
    regulation="N.J.A.C. 13:69F-35",
    rules=Citations(
        seats=f"{_NJ} (as NY 5324.38(a)(1))",
        wagers=f"{_NJ} (as NY 5324.38(c)(2))",
        no_more_bets=_NJ,
        stacks=_NJ,
        stub=_NJ,
        community=_NJ,
        decisions=_as_ny_e(1, 3, 5),
        reveals=_as_ny_e(2, 4, 6),
        settlement=f"{_NJ} (as NY 5324.38(e)(7))",
        paytable=f"{_NJ} (as NY 5324.38(f)(1))",
        cap=f"{_NJ} (as NY 5324.38(f)(2))",
        irregularity="rules digest: irregularities",
    ),
    paytable=MISSISSIPPI_MINIMUM,
    paytable_policy=PaytablePolicy.FLOOR,
    cap=CapRule(_CAP_FLOOR, f"{_NJ} (as NY 5324.38(f)(2))"),
    stub_count=StubCountRule(f"{_NJ}(e); {_DIGEST_STUB}"),
    fold_handling=FoldHandling.COLLECT_AT_ONCE,
)

_PA = "PA 655a.11"
PA_MISSISSIPPI = MississippiProfile(
    jurisdiction="PA",
    regulation="58 Pa. Code 655a",
    rules=Citations(
        seats="PA 655a (as NY 5324.38(a)(1))",
        wagers="PA 655a.7",
        no_more_bets="PA 655a.10 (as 670a.10(a)(2))",
        stacks="PA 655a.10 (as NY 5324.38(d)(2))",
        stub="PA 655a.10 (as NY 5324.38(d)(3))",
        community="PA 655a.10 (as NY 5324.38(d)(3))",
        decisions=(f"{_PA}(b)", f"{_PA}(d)", f"{_PA}(f)"),
        reveals=(f"{_PA}(c)", f"{_PA}(e)", f"{_PA}(g)"),
        settlement=f"{_PA}(i)",
        paytable="PA 655a.12(a)",
        cap="PA 655a.12(b)",
        irregularity="rules digest: irregularities",
        progressive_lock="PA 655a.10 (as 670a.10(a)(2)(ii))",
        information_sharing=f"{_PA}(a)(3)",
        fold_with_side_wagers=f"{_PA}(h)",
        progressive=f"{_PA}(i)(4)(i)",
        envy=f"{_PA}(i)(4)(i)(E)",
        three_card_bonus=f"{_PA}(i)(4)(ii)",
        five_card_hand_bonus=f"{_PA}(i)(4)(iii)",
    ),
    paytable=MISSISSIPPI_MINIMUM,
    paytable_policy=PaytablePolicy.FIXED,
    cap=CapRule(_CAP_FLOOR, "PA 655a.12(b)"),
    stub_count=StubCountRule(f"PA 684a.10(d) template; {_DIGEST_STUB}"),
    fold_handling=FoldHandling.KEEP_WITH_SIDE_WAGERS,
    side_bets=frozenset(SideBet),
    progressive_tables=("A", "B", "C", "D"),
    progressive_lockout_before_first_stack=True,
    information_sharing_forfeits=True,
)


class Face(Enum):
    DOWN = "down"
    UP = "up"


@dataclass(frozen=True)
class StudStreet:
    """How one street is dealt: ``name`` ("3rd".."7th", checked against the street order), ``burn`` a
    card burnt first, one round of cards to the live seats per entry of ``faces``, ``rule`` cited by a
    refused card on that street."""

    name: str
    burn: bool
    faces: tuple[Face, ...]
    rule: str


_STUD = "N.J.A.C. 13:47-20.35"


@dataclass(frozen=True)
class StudProfile:
    """Casino-night seven-card stud (N.J.A.C. 13:47-20.35; rules digest).  Read by the stud machine.

    Every field changes what the machine does (a test plays hands through an instrumented profile and
    fails on a field nothing reads).  Rules the machine implements one way only are not fields but
    code, documented in docs/seven-card-stud.md: fixed-limit betting, the bring-in by the lowest up-card
    (d), the highest hand showing opens later streets with ties to the seat closest to the dealer's left
    (f), the short-deck common card and the burn reshuffle (h), the odd chip to the highest card (i).
    Bring-in, ante and the fixed-limit amounts are table configuration, not profile data.
    """

    jurisdiction: str = "NJ"
    game: str = "seven-card-stud"
    regulation: str = _STUD  # every refusal cites a paragraph of it
    max_seats: int = 8  # (b)
    deal_order: SeatOrder = SeatOrder.ASCENDING  # (c): clockwise from the dealer's left
    streets: tuple[StudStreet, ...] = (
        StudStreet("3rd", False, (Face.DOWN, Face.DOWN, Face.UP), f"{_STUD}(c)"),
        StudStreet("4th", True, (Face.UP,), f"{_STUD}(f)"),
        StudStreet("5th", True, (Face.UP,), f"{_STUD}(h)"),
        StudStreet("6th", True, (Face.UP,), f"{_STUD}(h)"),
        StudStreet("7th", True, (Face.DOWN,), f"{_STUD}(h)"),
    )
    bring_in_suits_high_to_low: tuple[str, ...] = ("s", "h", "d", "c")  # (d): ties of rank by suit
    odd_chip_max_cents: int = 100  # (i)2
    showdown_suits_high_to_low: tuple[str, ...] = ("s", "h", "d", "c")  # (i): the odd chip's highest card


NJ_SEVEN_CARD_STUD = StudProfile()

PROFILES: Mapping[str, MississippiProfile] = {
    p.jurisdiction: p for p in (NY_MISSISSIPPI, PA_MISSISSIPPI, NJ_MISSISSIPPI)
}
"""Mississippi stud profiles by jurisdiction."""

STUD_PROFILES: Mapping[str, StudProfile] = {p.jurisdiction: p for p in (NJ_SEVEN_CARD_STUD,)}
"""Seven-card stud profiles by jurisdiction."""

_GAMES: Mapping[str, Mapping[str, MississippiProfile] | Mapping[str, StudProfile]] = {
    NY_MISSISSIPPI.game: PROFILES,
    NJ_SEVEN_CARD_STUD.game: STUD_PROFILES,
}


def get_profile(game: str, jurisdiction: str) -> MississippiProfile | StudProfile:
    """The profile for ``game`` in ``jurisdiction``; :class:`UnknownProfile` names the valid choices."""
    table = _GAMES.get(game)
    if table is not None and jurisdiction in table:
        return table[jurisdiction]
    choices = "; ".join(f"{g}: {', '.join(sorted(t))}" for g, t in sorted(_GAMES.items()))
    what = f"game {game!r}" if table is None else f"{game} in jurisdiction {jurisdiction!r}"
    raise UnknownProfile(f"no rules profile for {what}; valid choices are {choices}", rule="")
