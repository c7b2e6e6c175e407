"""The ``transitions`` machine behind a round: it owns the state and refuses steps the table lacks.

The round (:mod:`.machine`) checks seats, cards and amounts first, then fires one trigger here; an
invalid trigger is turned into :class:`~shoe.rules.errors.IllegalAction` with the reason.  No
callbacks, no I/O: the machine only moves the state.  ``model_override=True`` binds only what the
model declares, so the model declares every convenience name the table needs (``trigger``,
``may_trigger`` typed below; per-trigger and per-state names generated from the table) and
``transitions`` binds all of them without a "skip binding" warning.
"""

from __future__ import annotations

from typing import Any

from transitions import Machine, MachineError

from shoe.rules.errors import RuleViolation
from shoe.rules.mississippi.states import Edge, RoundState, triggers

__all__ = ["Flow"]


class _PriorIs:
    """Condition of a resume edge: taken only back to the state the pause came from."""

    def __init__(self, state: RoundState) -> None:
        self.state = state

    def __call__(self, prior: RoundState) -> bool:
        return prior is self.state


def _unbound(*_args: object, **_kwargs: object) -> bool:
    raise NotImplementedError("bound by transitions.Machine")


class _Model:
    """The machine's model: a bare state holder.  Its methods are replaced by ``transitions``."""

    state: RoundState

    def trigger(self, name: str, *args: Any) -> bool:
        raise NotImplementedError("bound by transitions.Machine")

    def may_trigger(self, name: str, *args: Any) -> bool:
        raise NotImplementedError("bound by transitions.Machine")


class Flow:
    """One round's state machine over ``table``."""

    def __init__(self, table: tuple[Edge, ...]) -> None:
        self.table = table
        self._model = _Model()
        for name in triggers(table):
            setattr(self._model, name, _unbound)
            setattr(self._model, f"may_{name}", _unbound)
        for state in RoundState:
            setattr(self._model, f"is_{state.name}", _unbound)
        spec: list[dict[str, Any]] = []
        for edge in table:
            row: dict[str, Any] = {"trigger": edge.trigger, "source": edge.source, "dest": edge.dest}
            if edge.resume_to is not None:
                row["conditions"] = [_PriorIs(edge.resume_to)]
            spec.append(row)
        self._machine = Machine(
            model=self._model,
            states=RoundState,
            transitions=spec,
            initial=RoundState.OPEN,
            auto_transitions=False,
            model_override=True,
            queued=True,
            ignore_invalid_triggers=False,
        )

    @property
    def state(self) -> RoundState:
        return self._model.state

    def allows(self, trigger: str, state: RoundState | None = None) -> bool:
        """Whether the table has ``trigger`` from ``state`` (default: the current state)."""
        at = self.state if state is None else state
        return any(e.trigger == trigger and e.source is at for e in self.table)

    def fire(self, trigger: str, *args: Any, rule: str = "") -> RoundState:
        """Fire ``trigger``; a step the table lacks becomes :class:`IllegalAction`."""
        before = self.state
        try:
            self._model.trigger(trigger, *args)
        except MachineError as exc:
            raise RuleViolation(
                f"{trigger.replace('_', ' ')} refused in state {before.value}: {exc.value}",
                rule=rule,
                code="invalid-in-state",
            ) from exc
        return self.state
