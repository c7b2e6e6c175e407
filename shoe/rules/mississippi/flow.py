"""The Mississippi stud round's state machine: the shared ``transitions`` wrapper over its table.

:class:`Flow` is :class:`shoe.rules.machine.StateMachine` over :class:`~.states.RoundState` and the
table of :func:`~.states.transition_table`; an invalid trigger becomes a
:class:`~shoe.rules.errors.RuleViolation` with code ``invalid-in-state`` and the rule of the action
that fired it.  The round (:mod:`.core`) checks seats, cards and amounts first, then fires one trigger.
"""

from __future__ import annotations

from shoe.rules.errors import RuleViolation
from shoe.rules.machine import Edge, StateMachine
from shoe.rules.mississippi.states import RoundState

__all__ = ["Flow"]


def _refuse(trigger: str, state: RoundState, reason: str, rule: str) -> RuleViolation:
    why = f": {reason}" if reason else f": the table has no step {trigger!r}"
    return RuleViolation(
        f"{trigger.replace('_', ' ')} refused in state {state.value}{why}", rule=rule, code="invalid-in-state"
    )


class Flow(StateMachine[RoundState]):
    """One round's state machine over ``table`` (starting open for wagers)."""

    def __init__(self, table: tuple[Edge[RoundState], ...]) -> None:
        super().__init__(RoundState, table, RoundState.OPEN, refuse=_refuse)
