"""Misdeal, pause and resume (rules digest, "Irregularities").

A misdeal voids the round and returns every wager placed.  A lost shoe link pauses the round; after
the reconnect the service reconciles with the shoe and either resumes (back to the state the pause
came from) or declares a misdeal (``Irregularity.LINK_UNRECONCILED``).  Once a seat has been settled
the round can no longer be voided.
"""

from __future__ import annotations

from shoe.rules.errors import RuleViolation
from shoe.rules.mississippi.core import RoundCore
from shoe.rules.mississippi.records import MisdealRecord, PauseRecord, ResumeRecord
from shoe.rules.mississippi.states import RoundState
from shoe.rules.profiles import Irregularity

__all__ = ["Interrupts"]


class Interrupts:
    """Misdeal, pause and resume (rules digest, "Irregularities")."""

    def __init__(self, core: RoundCore) -> None:
        self._core = core

    def verify_declare_misdeal(self, cause: Irregularity, detail: str = "") -> None:
        rule = self._core.rules.irregularity
        self._core.check_step("misdeal", "misdeal", rule)
        if not isinstance(cause, Irregularity):
            raise RuleViolation(f"misdeal cause {cause!r} is not an Irregularity", rule=rule, code="bad-input")
        if any(s.settlement is not None for s in self._core.book.seats.values()):
            raise RuleViolation("misdeal refused: settlement has begun", rule=rule, code="invalid-in-state")

    def declare_misdeal(self, cause: Irregularity, detail: str = "") -> MisdealRecord:
        """Void the round for ``cause`` (e.g. a community card exposed before its street)."""
        self.verify_declare_misdeal(cause, detail)
        return self._core.misdeal(cause, detail or self._core.profile.irregularity(cause).description)

    def verify_pause(self, reason: str = "shoe link lost") -> None:
        self._core.check_step("pause", "pause", self._core.rules.irregularity)

    def pause(self, reason: str = "shoe link lost") -> PauseRecord:
        """Hold the round (e.g. the shoe link is lost); only resume or a misdeal follow."""
        self.verify_pause(reason)
        prior = self._core.state
        self._core.book.paused_from = prior
        return self._core.commit(PauseRecord(reason, prior, self._core.rules.irregularity), "pause")

    def verify_resume(self) -> None:
        rule = self._core.rules.irregularity
        if self._core.state is not RoundState.PAUSED:
            raise RuleViolation(
                f"resume refused: the round is not paused ({self._core.state.value})",
                rule=rule,
                code="invalid-in-state",
            )

    def resume(self) -> ResumeRecord:
        """Resume where the pause came from (the service has reconciled with the shoe)."""
        self.verify_resume()
        prior = self._core.book.paused_from
        assert prior is not None
        record = self._core.commit(ResumeRecord(prior, self._core.rules.irregularity), "resume", prior)
        self._core.book.paused_from = None
        return record
