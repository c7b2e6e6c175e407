"""The one ``transitions`` wrapper behind both round machines (Mississippi stud and seven-card stud).

A game declares its states as an :class:`~enum.Enum` and its transition table as data (a tuple of
:class:`Edge`); :class:`StateMachine` feeds that table to ``transitions`` configured as the examples
page asks: ``model_override=True`` (the library binds exactly the names the model declares, which
this module declares from the table: ``trigger``, ``may_<trigger>``, ``is_<STATE>`` and one method
per trigger), ``queued=True``, no automatic ``to_<state>`` transitions, and invalid triggers raising.
A ``MachineError`` (or a trigger the table does not know) becomes the domain refusal, a
:class:`~shoe.rules.errors.RuleViolation` built by the game's ``refuse`` function with the reason.

No callbacks, no I/O: the machine only moves the state.  The round verifies an action completely
(seats, cards, amounts) before it fires one trigger here, so a refused action changes nothing.
:func:`mermaid` draws a table, so the pictures in docs/rules-engine.md and docs/seven-card-stud.md
are generated from the same data the machine runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Generic, TypeVar

from transitions import Machine, MachineError

from shoe.rules.errors import RuleViolation

__all__ = ["Edge", "Refuse", "StateMachine", "mermaid", "triggers"]

S = TypeVar("S", bound=Enum)


@dataclass(frozen=True)
class Edge(Generic[S]):
    """One row of a transition table: ``trigger`` takes the round from ``source`` to ``dest``.

    ``guard`` describes, for people and the diagram, a condition the round checks before firing;
    ``rule`` cites the paragraph that allows the step; ``resume_to`` marks a resume edge, taken only
    back to the state the pause came from (the prior state is passed to :meth:`StateMachine.fire`).
    """

    trigger: str
    source: S
    dest: S
    guard: str = ""
    rule: str = ""
    resume_to: S | None = None


Refuse = Callable[[str, Any, str, str], RuleViolation]
"""``refuse(trigger, state, reason, rule)``: the game's refusal for a step its table lacks (``reason``
is ``""`` for a trigger the table does not know at all)."""


def triggers(table: Iterable[Edge[Any]]) -> tuple[str, ...]:
    """Every trigger name in ``table``, in first-use order."""
    return tuple(dict.fromkeys(e.trigger for e in table))


class _PriorIs:
    """Condition of a resume edge: taken only back to the state the pause came from."""

    def __init__(self, state: Enum) -> None:
        self.state = state

    def __call__(self, prior: Enum | None = None) -> bool:
        return prior is self.state


def _unbound(*_args: object, **_kwargs: object) -> bool:  # pragma: no cover - replaced by transitions
    raise NotImplementedError("bound by transitions.Machine")


class _Model:
    """The machine's model: a bare state holder whose methods ``transitions`` binds."""

    state: Any

    def trigger(self, name: str, *args: Any) -> bool:  # pragma: no cover - replaced by transitions
        raise NotImplementedError("bound by transitions.Machine")

    def may_trigger(self, name: str, *args: Any) -> bool:  # pragma: no cover - replaced by transitions
        raise NotImplementedError("bound by transitions.Machine")


class StateMachine(Generic[S]):
    """One round's state over ``table``: :meth:`fire` moves it, :meth:`allows` asks the table."""

    def __init__(self, states: type[S], table: Sequence[Edge[S]], initial: S, *, refuse: Refuse) -> None:
        self.table: tuple[Edge[S], ...] = tuple(table)
        self.triggers = triggers(self.table)
        self._refuse = refuse
        self._model = _Model()
        # model_override=True binds only what the model declares: declare every convenience name.
        for name in self.triggers:
            setattr(self._model, name, _unbound)
            setattr(self._model, f"may_{name}", _unbound)
        for state in states:
            setattr(self._model, f"is_{state.name}", _unbound)
        spec: list[dict[str, Any]] = []
        for edge in self.table:
            row: dict[str, Any] = {"trigger": edge.trigger, "source": edge.source, "dest": edge.dest}
            if edge.resume_to is not None:
                row["conditions"] = [_PriorIs(edge.resume_to)]
            spec.append(row)
        self._machine = Machine(
            model=self._model,
            states=states,
            transitions=spec,
            initial=initial,
            auto_transitions=False,
            model_override=True,
            queued=True,
            ignore_invalid_triggers=False,
        )

    @property
    def state(self) -> S:
        state: S = self._model.state
        return state

    def allows(self, trigger: str, state: S | None = None) -> bool:
        """Whether the table has ``trigger`` from ``state`` (default: the current state)."""
        at = self.state if state is None else state
        return any(e.trigger == trigger and e.source is at for e in self.table)

    def may(self, trigger: str, *args: Any) -> bool:
        """Whether ``trigger`` would fire now, conditions included (no side effects)."""
        return trigger in self.triggers and bool(self._model.may_trigger(trigger, *args))

    def fire(self, trigger: str, *args: Any, rule: str = "") -> S:
        """Fire ``trigger`` and return the new state; a step the table lacks is refused."""
        before = self.state
        if trigger not in self.triggers:
            raise self._refuse(trigger, before, "", rule)
        try:
            self._model.trigger(trigger, *args)
        except MachineError as exc:
            raise self._refuse(trigger, before, str(exc.value), rule) from exc
        return self.state


def _guard_label(edge: Edge[Any]) -> str:
    return edge.trigger + (f" ({edge.guard})" if edge.guard else "")


def mermaid(
    table: Iterable[Edge[S]],
    *,
    initial: S,
    finals: Iterable[S],
    label: Callable[[Edge[S]], str] = _guard_label,
) -> str:
    """A ``stateDiagram-v2`` of ``table``: one arrow per (source, dest), labelled with its triggers."""
    arrows: dict[tuple[S, S], list[str]] = {}
    for edge in table:
        labels = arrows.setdefault((edge.source, edge.dest), [])
        text = label(edge)
        if text not in labels:
            labels.append(text)
    lines = ["stateDiagram-v2", f"    [*] --> {initial.name}"]
    lines += [f"    {source.name} --> {dest.name}: {' / '.join(labels)}" for (source, dest), labels in arrows.items()]
    lines += [f"    {state.name} --> [*]" for state in finals]
    return "\n".join(lines) + "\n"
