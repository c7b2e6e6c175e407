"""Rebuild a round from its records (the journal), e.g. after the table PC restarts mid-round.

Each record carries the inputs of the action that produced it, so replaying them in order through a
fresh :class:`~shoe.rules.mississippi.machine.MississippiRound` gives the same state and the same
records; a record the rebuilt round would not produce raises :class:`ReplayMismatch` (the journal and
the rules disagree: the digest's answer is a misdeal after reconciliation).
"""

from __future__ import annotations

from collections.abc import Iterable

from shoe.rules.errors import RuleViolation
from shoe.rules.mississippi.machine import MississippiRound
from shoe.rules.mississippi.records import (
    ChipCountRecord,
    CommunityDealtRecord,
    DecisionRecord,
    ForfeitRecord,
    MisdealRecord,
    NoMoreBetsRecord,
    PauseRecord,
    ProgressiveLockRecord,
    Record,
    ResumeRecord,
    RevealRecord,
    SeatSettlement,
    StackRecord,
    StubRecord,
    TableSystemRecord,
    WagerRecord,
)
from shoe.rules.mississippi.table import Table, TableConfig
from shoe.rules.profiles import MississippiProfile

__all__ = ["ReplayMismatch", "apply", "replay"]


class ReplayMismatch(RuleViolation):
    """The journal holds a record the rules, replayed, do not produce."""

    default_code = "replay-mismatch"


def apply(r: MississippiRound, record: Record) -> Record:
    """Perform the action ``record`` came from; return what the round records now."""
    match record:
        case WagerRecord(seat=seat, ante=ante, side=side):
            return r.place_wagers(seat, ante, dict(side))
        case NoMoreBetsRecord():
            return r.no_more_bets()
        case ProgressiveLockRecord():
            return r.lock_progressive()
        case ChipCountRecord(counted=counted):
            return r.count_progressive_chips(counted)
        case StackRecord(seat=seat, cards=cards):
            return r.deal_stack(seat, cards)
        case StubRecord(counted=counted):
            return r.release_stub(counted)
        case CommunityDealtRecord(cards=cards):
            return r.deal_community(cards)
        case DecisionRecord(seat=seat, multiple=multiple):
            return r.decide(seat, multiple)
        case RevealRecord(index=index, card=card):
            return r.reveal(index, card)
        case ForfeitRecord(seat=seat):
            return r.forfeit_information_sharing(seat)
        case TableSystemRecord(meters=meters, magic_card=magic, lucky_seat=lucky):
            return r.record_table_system(dict(meters), magic, lucky)
        case MisdealRecord(cause=cause, detail=detail):
            return r.declare_misdeal(cause, detail)
        case PauseRecord(reason=reason):
            return r.pause(reason)
        case ResumeRecord():
            return r.resume()
        case SeatSettlement():
            return r.settle_next()
    raise ReplayMismatch(f"unknown record {record!r}", rule="journal")


def replay(profile: MississippiProfile, config: TableConfig | Table, records: Iterable[Record]) -> MississippiRound:
    """A round rebuilt from ``records``; :class:`ReplayMismatch` at the first record that differs."""
    r = MississippiRound(profile, config)
    for n, record in enumerate(records, 1):
        again = apply(r, record)
        if again != record:
            raise ReplayMismatch(f"record {n} differs on replay: journal {record!r}, rules {again!r}", rule="journal")
    return r
