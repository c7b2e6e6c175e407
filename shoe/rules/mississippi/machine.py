"""The Mississippi stud round machine (NY 9 NYCRR 5324.38, 58 Pa. Code 655a.11, N.J.A.C. 13:69F-35.9).

One :class:`MississippiRound` per round.  Every action comes as a triplet, pokerkit style:
``verify_<action>(...)`` raises a :class:`~shoe.rules.errors.RuleViolation` naming the rule,
``can_<action>(...)`` says whether it would be accepted, ``<action>(...)`` does it and returns a
frozen record (:mod:`.records`).  A refused action changes nothing.  An accepted action that reveals an
irregularity (a duplicate card, a wrong stub count, an extra stack...) voids the round and returns a
:class:`~shoe.rules.mississippi.records.MisdealRecord` instead of its usual record.

The flow, for a stub community source (see :mod:`.states` for the table and ``docs/rules-engine.md``
for the drawing)::

    place_wagers* -> no_more_bets -> [PA with progressive: lock_progressive -> count_progressive_chips]
    -> deal_stack (ascending wagering seats) -> release_stub(count) -> deal_community()
    -> decide* (3rd street, ascending) -> reveal(0) -> decide* (4th) -> reveal(1) -> decide* (5th)
    -> reveal(2) -> settle_next* (descending) -> complete
    any time before settlement: pause/resume, declare_misdeal; PA: forfeit_information_sharing

Pure: no I/O, no threads, no clocks.  The service owns the shoe link and feeds events in.
"""

from __future__ import annotations

from shoe.rules.mississippi.interrupts import InterruptActions
from shoe.rules.mississippi.table import Table, TableConfig
from shoe.rules.mississippi.views import ViewActions
from shoe.rules.mississippi.wagering import WageringActions
from shoe.rules.profiles import MississippiProfile, get_profile

__all__ = ["MississippiRound", "new_round"]


class MississippiRound(WageringActions, ViewActions, InterruptActions):
    """One round of Mississippi stud under ``profile`` at a table configured by ``config``."""

    def __init__(self, profile: MississippiProfile, config: TableConfig | Table) -> None:
        super().__init__(profile, config)

    def __repr__(self) -> str:
        return f"<MississippiRound {self.profile.jurisdiction} {self.state.value}>"


def new_round(jurisdiction: str, config: TableConfig | Table) -> MississippiRound:
    """A round under ``PROFILES[jurisdiction]``; :class:`~shoe.rules.errors.UnknownProfile` otherwise."""
    profile = get_profile("mississippi-stud", jurisdiction)
    assert isinstance(profile, MississippiProfile)
    return MississippiRound(profile, config)
