"""The Mississippi stud round machine (NY 9 NYCRR 5324.38, 58 Pa. Code 655a.11, N.J.A.C. 13:69F-35.9).

One :class:`MississippiRound` per round.  Every action comes as a triplet, pokerkit style:
``verify_<action>(...)`` raises a :class:`~shoe.rules.errors.RuleViolation` naming the rule,
``can_<action>(...)`` says whether it would be accepted (derived once from ``verify_<action>`` by
:func:`shoe.rules.actions.can`), ``<action>(...)`` does it and returns a frozen record (:mod:`.records`).
The round is a facade over small parts with one job each, sharing one :class:`~.core.RoundCore`:
:class:`~.wagering.Wagering`, :class:`~.dealing.Dealing`, :class:`~.streets.Streets`,
:class:`~.settling.Settling` (with the side wagers of :mod:`.side_wagers`),
:class:`~.interrupts.Interrupts` and :class:`~.views.Views`.  A refused action changes nothing.  An
accepted action that reveals an irregularity (a duplicate card, a wrong stub count, an extra stack...)
voids the round and returns a :class:`~shoe.rules.mississippi.records.MisdealRecord` instead of its
usual record.

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

from shoe.rules.actions import can, forward
from shoe.rules.mississippi.core import RoundCore
from shoe.rules.mississippi.dealing import Dealing
from shoe.rules.mississippi.interrupts import Interrupts
from shoe.rules.mississippi.records import Record
from shoe.rules.mississippi.settling import Settling
from shoe.rules.mississippi.states import RoundState
from shoe.rules.mississippi.streets import Streets
from shoe.rules.mississippi.table import Table, TableConfig
from shoe.rules.mississippi.views import Views
from shoe.rules.mississippi.wagering import Wagering
from shoe.rules.profiles import Citations, MississippiProfile, get_profile

__all__ = ["MississippiRound", "new_round"]


class MississippiRound:
    """One round of Mississippi stud under ``profile`` at a table configured by ``config``."""

    def __init__(self, profile: MississippiProfile, config: TableConfig | Table) -> None:
        core = self._core = RoundCore(profile, config)
        self._wagering = Wagering(core)
        self._dealing = Dealing(core)
        self._streets = Streets(core)
        self._settling = Settling(core)
        self._interrupts = Interrupts(core)
        self._views = Views(core, self._dealing, self._streets, self._settling)

    def __repr__(self) -> str:
        return f"<MississippiRound {self.profile.jurisdiction} {self.state.value}>"

    # -- the round ---------------------------------------------------------------------------------

    @property
    def profile(self) -> MississippiProfile:
        return self._core.profile

    @property
    def table(self) -> Table:
        return self._core.table

    @property
    def state(self) -> RoundState:
        return self._core.state

    @property
    def rules(self) -> Citations:
        return self._core.rules

    @property
    def records(self) -> tuple[Record, ...]:
        """The audit trail: one frozen record per action taken, in order."""
        return self._core.records

    @property
    def record_count(self) -> int:
        """How many records the round holds, without copying them: every change of the round adds one."""
        return len(self._core.book.records)

    @property
    def cap(self) -> int:
        """The aggregate payout cap per hand, in cents (NY 5324.38(f)(2), PA 655a.12(b))."""
        return self._core.cap

    @property
    def expected_stub_count(self) -> int:
        """52 minus the cards dispensed by the shoe: two per stack, plus 3 with a shoe community source."""
        return self._core.expected_stub_count

    snapshot = forward("_core", RoundCore.snapshot)

    # -- whose turn --------------------------------------------------------------------------------

    @property
    def next_stack_seat(self) -> int | None:
        """The seat the next stack goes to, once wagering is closed; ``None`` when all are dealt."""
        return self._dealing.next_stack_seat

    @property
    def street(self) -> int | None:
        """0, 1, 2 while deciding on 3rd, 4th, 5th street; ``None`` otherwise."""
        return self._streets.street

    @property
    def next_to_decide(self) -> int | None:
        """The seat whose decision is due on this street, or ``None``."""
        return self._streets.next_to_decide

    @property
    def next_to_settle(self) -> int | None:
        """The next seat to settle (descending seats), once every community card is revealed."""
        return self._settling.next_to_settle

    @property
    def progressive_wagers_accepted(self) -> int:
        return self._wagering.progressive_wagers_accepted

    # -- the actions: x, verify_x, can_x (derived) -------------------------------------------------

    place_wagers = forward("_wagering", Wagering.place_wagers)
    verify_place_wagers = forward("_wagering", Wagering.verify_place_wagers)
    can_place_wagers = can(Wagering.verify_place_wagers)
    no_more_bets = forward("_wagering", Wagering.no_more_bets)
    verify_no_more_bets = forward("_wagering", Wagering.verify_no_more_bets)
    can_no_more_bets = can(Wagering.verify_no_more_bets)
    lock_progressive = forward("_wagering", Wagering.lock_progressive)
    verify_lock_progressive = forward("_wagering", Wagering.verify_lock_progressive)
    can_lock_progressive = can(Wagering.verify_lock_progressive)
    count_progressive_chips = forward("_wagering", Wagering.count_progressive_chips)
    verify_count_progressive_chips = forward("_wagering", Wagering.verify_count_progressive_chips)
    can_count_progressive_chips = can(Wagering.verify_count_progressive_chips)

    deal_stack = forward("_dealing", Dealing.deal_stack)
    verify_deal_stack = forward("_dealing", Dealing.verify_deal_stack)
    can_deal_stack = can(Dealing.verify_deal_stack)
    release_stub = forward("_dealing", Dealing.release_stub)
    verify_release_stub = forward("_dealing", Dealing.verify_release_stub)
    can_release_stub = can(Dealing.verify_release_stub)
    deal_community = forward("_dealing", Dealing.deal_community)
    verify_deal_community = forward("_dealing", Dealing.verify_deal_community)
    can_deal_community = can(Dealing.verify_deal_community)

    decide = forward("_streets", Streets.decide)
    verify_decide = forward("_streets", Streets.verify_decide)
    can_decide = can(Streets.verify_decide)
    reveal = forward("_streets", Streets.reveal)
    verify_reveal = forward("_streets", Streets.verify_reveal)
    can_reveal = can(Streets.verify_reveal)
    forfeit_information_sharing = forward("_streets", Streets.forfeit_information_sharing)
    verify_forfeit_information_sharing = forward("_streets", Streets.verify_forfeit_information_sharing)
    can_forfeit_information_sharing = can(Streets.verify_forfeit_information_sharing)

    settle_next = forward("_settling", Settling.settle_next)
    preview_next = forward("_settling", Settling.preview_next)
    verify_settle_next = forward("_settling", Settling.verify_settle_next)
    can_settle_next = can(Settling.verify_settle_next)
    record_table_system = forward("_settling", Settling.record_table_system)
    verify_record_table_system = forward("_settling", Settling.verify_record_table_system)
    can_record_table_system = can(Settling.verify_record_table_system)

    declare_misdeal = forward("_interrupts", Interrupts.declare_misdeal)
    verify_declare_misdeal = forward("_interrupts", Interrupts.verify_declare_misdeal)
    can_declare_misdeal = can(Interrupts.verify_declare_misdeal)
    pause = forward("_interrupts", Interrupts.pause)
    verify_pause = forward("_interrupts", Interrupts.verify_pause)
    can_pause = can(Interrupts.verify_pause)
    resume = forward("_interrupts", Interrupts.resume)
    verify_resume = forward("_interrupts", Interrupts.verify_resume)
    can_resume = can(Interrupts.verify_resume)

    # -- what may be shown -------------------------------------------------------------------------

    view = forward("_views", Views.view)
    public_state = forward("_views", Views.public_state)
    result = forward("_views", Views.result)


def new_round(jurisdiction: str, config: TableConfig | Table) -> MississippiRound:
    """A round under ``PROFILES[jurisdiction]``; :class:`~shoe.rules.errors.UnknownProfile` otherwise."""
    profile = get_profile("mississippi-stud", jurisdiction)
    assert isinstance(profile, MississippiProfile)
    return MississippiRound(profile, config)
