"""Mississippi stud: the round machine, its records, settlement and the PA side wagers."""

from shoe.rules.mississippi.machine import MississippiRound, new_round
from shoe.rules.mississippi.records import (
    ChipCountRecord,
    CommunityDealtRecord,
    DecisionRecord,
    ForfeitRecord,
    MisdealRecord,
    NoMoreBetsRecord,
    Outcome,
    PauseRecord,
    ProgressiveLockRecord,
    Record,
    ResumeRecord,
    RevealRecord,
    SeatSettlement,
    SideResult,
    StackRecord,
    StubRecord,
    TableSystemRecord,
    WagerLine,
    WagerRecord,
)
from shoe.rules.mississippi.replay import ReplayMismatch, replay
from shoe.rules.mississippi.side_wagers import EnvyAmounts, FiveCardBonusConfig, SideWagerConfig
from shoe.rules.mississippi.states import RoundState, transition_table
from shoe.rules.mississippi.table import Table, TableConfig, resolve_table
from shoe.rules.mississippi.views import PublicView, RoundResult, SeatResult, SeatView

__all__ = [
    "ChipCountRecord",
    "CommunityDealtRecord",
    "DecisionRecord",
    "EnvyAmounts",
    "FiveCardBonusConfig",
    "ForfeitRecord",
    "MisdealRecord",
    "MississippiRound",
    "NoMoreBetsRecord",
    "Outcome",
    "PauseRecord",
    "ProgressiveLockRecord",
    "PublicView",
    "Record",
    "ReplayMismatch",
    "ResumeRecord",
    "RevealRecord",
    "RoundResult",
    "RoundState",
    "SeatResult",
    "SeatSettlement",
    "SeatView",
    "SideResult",
    "SideWagerConfig",
    "StackRecord",
    "StubRecord",
    "Table",
    "TableConfig",
    "TableSystemRecord",
    "WagerLine",
    "WagerRecord",
    "new_round",
    "replay",
    "resolve_table",
    "transition_table",
]
