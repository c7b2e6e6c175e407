"""The phase machine: the shared ``transitions`` wrapper (:mod:`shoe.rules.machine`) over the table
in ``states.py``.

States are the :class:`Phase` Enum; an invalid trigger becomes a
:class:`~shoe.rules.errors.RuleViolation` with code ``invalid-transition`` naming the rule of the
phase the hand is in.  The machine holds only the phase.  The hand (``hand.py``) verifies an action
completely before it fires a trigger, so a refused action never reaches this module.
"""

from __future__ import annotations

from shoe.rules.errors import RuleViolation
from shoe.rules.machine import Edge, StateMachine
from shoe.rules.machine import mermaid as draw
from shoe.rules.stud.errors import cite
from shoe.rules.stud.states import PHASE_RULE, TERMINAL_PHASES, TRANSITIONS, Phase

__all__ = ["PhaseMachine", "mermaid"]


def _refuse(trigger: str, phase: Phase, reason: str, _rule: str) -> RuleViolation:
    if not reason:
        return RuleViolation(f"unknown trigger {trigger!r}", rule=cite(""), code="invalid-transition")
    return RuleViolation(
        f"{trigger!r} is not allowed in phase {phase.value!r}: {reason}",
        rule=cite(PHASE_RULE[phase]),
        code="invalid-transition",
    )


class PhaseMachine(StateMachine[Phase]):
    """Owns the current :class:`Phase`; :meth:`fire` moves it along :data:`TRANSITIONS`."""

    def __init__(self, initial: Phase = Phase.DEAL_THIRD) -> None:
        super().__init__(Phase, TRANSITIONS, initial, refuse=_refuse)

    @property
    def phase(self) -> Phase:
        """The current phase."""
        return self.state

    @property
    def finished(self) -> bool:
        """True once the hand is over (showdown or uncontested)."""
        return self.state in TERMINAL_PHASES


def _label(edge: Edge[Phase]) -> str:
    return f"{edge.trigger} ({edge.rule})"


def mermaid() -> str:
    """The transition table as a mermaid ``stateDiagram-v2`` (docs/seven-card-stud.md embeds it)."""
    finals = [p for p in Phase if p in TERMINAL_PHASES]
    return draw(TRANSITIONS, initial=Phase.DEAL_THIRD, finals=finals, label=_label)
