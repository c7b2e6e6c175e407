"""Frozen action records: the audit trail of a round, one record per action (pokerkit style).

Every record has a ``kind``, the ``rule`` it applied and, where there is one, the ``seat``; its ``TAG`` is
the journal's name for it (``shoe.service.journal.codec``): set once, kept when the class is renamed.  Records
carry card identities (the journal needs them to reconstruct each hand, NY 5324.38(e)(8), PA
655a.11(j)); the public view of a round never shows them before their time
(:meth:`~shoe.rules.mississippi.machine.MississippiRound.public_state`).  Money is integer cents.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import ClassVar

from shoe.cards import Card
from shoe.rules.mississippi.states import RoundState
from shoe.rules.paytables import BaseHand
from shoe.rules.profiles import CommunitySource, Irregularity, Remedy, SideBet

__all__ = [
    "ChipCountRecord",
    "CommunityDealtRecord",
    "DecisionRecord",
    "ForfeitRecord",
    "MisdealRecord",
    "NoMoreBetsRecord",
    "Outcome",
    "PauseRecord",
    "ProgressiveLockRecord",
    "Record",
    "ResumeRecord",
    "RevealRecord",
    "SeatSettlement",
    "SideResult",
    "StackRecord",
    "StubRecord",
    "TableSystemRecord",
    "WagerLine",
    "WagerRecord",
]


class Outcome(Enum):
    WIN = "win"
    PUSH = "push"
    LOSE = "lose"
    FOLD = "fold"
    FORFEIT = "forfeit"  # PA 655a.11(a)(3)
    VOID = "void"  # misdeal


@dataclass(frozen=True)
class WagerRecord:
    TAG: ClassVar[str] = "WagerRecord"

    seat: int
    ante: int
    side: tuple[tuple[SideBet, int], ...]
    rule: str
    kind: str = field(default="wager", init=False)


@dataclass(frozen=True)
class NoMoreBetsRecord:
    TAG: ClassVar[str] = "NoMoreBetsRecord"

    seats: tuple[int, ...]  # the wagering seats, in dealing order
    total_wagered: int
    rule: str
    kind: str = field(default="no-more-bets", init=False)


@dataclass(frozen=True)
class ProgressiveLockRecord:
    TAG: ClassVar[str] = "ProgressiveLockRecord"

    wagers_accepted: int
    rule: str
    kind: str = field(default="progressive-locked", init=False)


@dataclass(frozen=True)
class ChipCountRecord:
    TAG: ClassVar[str] = "ChipCountRecord"

    counted: int
    expected: int
    rule: str
    kind: str = field(default="progressive-chips-counted", init=False)


@dataclass(frozen=True)
class StackRecord:
    TAG: ClassVar[str] = "StackRecord"

    seat: int
    number: int  # 1 for the first stack dispensed
    cards: tuple[Card, ...]
    rule: str
    kind: str = field(default="stack", init=False)


@dataclass(frozen=True)
class StubRecord:
    TAG: ClassVar[str] = "StubRecord"

    counted: int
    expected: int
    rule: str
    kind: str = field(default="stub-counted", init=False)


@dataclass(frozen=True)
class CommunityDealtRecord:
    TAG: ClassVar[str] = "CommunityDealtRecord"

    source: CommunitySource
    count: int
    cards: tuple[Card, ...] | None  # known only with a shoe source; secret until each reveal
    rule: str
    kind: str = field(default="community-dealt", init=False)


@dataclass(frozen=True)
class DecisionRecord:
    TAG: ClassVar[str] = "DecisionRecord"

    seat: int
    street: int  # 3, 4 or 5
    multiple: int  # 0 = fold
    amount: int  # the bet placed, 0 on a fold
    forfeited: tuple[tuple[str, int], ...]  # on a fold: what went to the tray, e.g. (("ante", 500),)
    hand_kept: bool  # PA 655a.11(b): a folded hand with side wagers stays on the table
    rule: str
    kind: str = field(default="decision", init=False)

    @property
    def folded(self) -> bool:
        return self.multiple == 0


@dataclass(frozen=True)
class RevealRecord:
    TAG: ClassVar[str] = "RevealRecord"

    index: int  # 0, 1, 2
    card: Card
    rule: str
    kind: str = field(default="reveal", init=False)


@dataclass(frozen=True)
class ForfeitRecord:
    TAG: ClassVar[str] = "ForfeitRecord"

    seat: int
    forfeited: tuple[tuple[str, int], ...]
    total: int
    rule: str
    kind: str = field(default="forfeit", init=False)


@dataclass(frozen=True)
class TableSystemRecord:
    TAG: ClassVar[str] = "TableSystemRecord"

    meters: tuple[tuple[str, int], ...]
    magic_card: Card | None
    lucky_seat: int | None
    rule: str
    kind: str = field(default="table-system", init=False)


@dataclass(frozen=True)
class MisdealRecord:
    TAG: ClassVar[str] = "MisdealRecord"

    cause: Irregularity
    detail: str
    remedy: Remedy
    returned: tuple[tuple[int, int], ...]  # (seat, cents), every wager placed
    total_returned: int
    deck_removed: bool
    security_alert: bool
    prior: RoundState
    rule: str
    kind: str = field(default="misdeal", init=False)


@dataclass(frozen=True)
class PauseRecord:
    TAG: ClassVar[str] = "PauseRecord"

    reason: str
    prior: RoundState
    rule: str
    kind: str = field(default="paused", init=False)


@dataclass(frozen=True)
class ResumeRecord:
    TAG: ClassVar[str] = "ResumeRecord"

    to: RoundState
    rule: str
    kind: str = field(default="resumed", init=False)


@dataclass(frozen=True)
class WagerLine:
    """One base wager at settlement: ``computed`` is the paytable's winnings, ``paid`` after the cap."""

    TAG: ClassVar[str] = "WagerLine"

    name: str  # "ante", "3rd", "4th", "5th"
    stake: int
    result: Outcome
    computed: int
    paid: int

    @property
    def net(self) -> int:
        if self.result in (Outcome.LOSE, Outcome.FOLD, Outcome.FORFEIT):
            return -self.stake
        return self.paid


@dataclass(frozen=True)
class SideResult:
    """One side-wager line at settlement (Progressive, Envy, Three Card, Five Card, Magic, Lucky).

    ``computed`` / ``paid`` are what the line pays back (stake included for "for 1" tables, winnings
    only for "to 1"); ``paid`` is ``None`` when a meter reading is needed and not known.  ``paid_from``
    is ``"tray"``, ``"game-account"`` or ``"documentation"`` (a meter-percentage payout, PA
    655a.11(i)(4)(i)(D), (iii)(C)).
    """

    TAG: ClassVar[str] = "SideResult"

    bet: str
    stake: int
    result: Outcome
    hand: str
    computed: int | None
    paid: int | None
    net: int | None
    paid_from: str
    requires_floorperson: bool
    note: str
    rule: str


@dataclass(frozen=True)
class SeatSettlement:
    """One seat settled (NY 5324.38(e)(7), PA 655a.11(i)): base wagers, then the side wagers."""

    TAG: ClassVar[str] = "SeatSettlement"

    seat: int
    cards: tuple[Card, ...]
    community: tuple[Card, ...]
    hand: str  # category name, e.g. "two-pair"
    line: BaseHand | None  # the paytable line; None loses
    outcome: Outcome
    wagers: tuple[WagerLine, ...]
    computed: int  # base winnings per the paytable
    paid: int  # base winnings paid (after the cap)
    cap: int
    capped: bool
    net: int  # base game: ante + street bets
    side: tuple[SideResult, ...]
    rule: str
    kind: str = field(default="settlement", init=False)


Record = (
    WagerRecord
    | NoMoreBetsRecord
    | ProgressiveLockRecord
    | ChipCountRecord
    | StackRecord
    | StubRecord
    | CommunityDealtRecord
    | DecisionRecord
    | RevealRecord
    | ForfeitRecord
    | TableSystemRecord
    | MisdealRecord
    | PauseRecord
    | ResumeRecord
    | SeatSettlement
)
"""Any record a round action returns."""
