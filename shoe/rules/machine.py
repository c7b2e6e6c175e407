"""The one ``transitions`` wrapper behind both round machines (Mississippi stud and seven-card stud).

A game declares its states as an :class:`~enum.Enum` and its transition table as data (a tuple of
:class:`Edge`); :class:`StateMachine` feeds that table to ``transitions`` configured as the examples
page asks: ``model_override=True`` (the library binds exactly the names the model declares, which
this module declares from the table: ``trigger``, ``may_<trigger>``, ``is_<STATE>`` and one method
per trigger), ``queued=True``, no automatic ``to_<state>`` transitions, and invalid triggers raising.
A ``MachineError`` (or a trigger the table does not know) becomes the domain refusal, a
:class:`~shoe.rules.errors.RuleViolation` built by the game's ``refuse`` function with the reason.

Machines are built once per game, not per round (issue 16: a ``transitions.Machine`` costs ~0.5 ms to
build, a quarter of a stud hand): each table keeps a pool of machines, each with its model; a round
takes one, reset to its initial state, and gives it back when the round is dropped (``weakref.finalize``).
A pooled machine serves one round at a time, so ``queued=True`` keeps its meaning (transitions keeps one
queue per machine) and two rounds in two threads never share a queue.

No callbacks, no I/O: the machine only moves the state.  The round verifies an action completely
(seats, cards, amounts) before it fires one trigger here, so a refused action changes nothing.
:func:`mermaid` draws a table, so the pictures in docs/rules-engine.md and docs/seven-card-stud.md
are generated from the same data the machine runs.
"""

from __future__ import annotations

import weakref
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


POOL_MAX = 64
"""Idle machines kept per table; past this a dropped round's machine is let go."""

_Pooled = tuple[Machine, _Model]
_POOLS: dict[tuple[Any, ...], list[_Pooled]] = {}


def _build(states: type[Enum], table: tuple[Edge[Any], ...], initial: Enum, names: tuple[str, ...]) -> _Pooled:
    model = _Model()
    # model_override=True binds only what the model declares: declare every convenience name.
    for name in names:
        setattr(model, name, _unbound)
        setattr(model, f"may_{name}", _unbound)
    for state in states:
        setattr(model, f"is_{state.name}", _unbound)
    spec: list[dict[str, Any]] = []
    for edge in table:
        row: dict[str, Any] = {"trigger": edge.trigger, "source": edge.source, "dest": edge.dest}
        if edge.resume_to is not None:
            row["conditions"] = [_PriorIs(edge.resume_to)]
        spec.append(row)
    machine = Machine(
        model=model,
        states=states,
        transitions=spec,
        initial=initial,
        auto_transitions=False,
        model_override=True,
        queued=True,
        ignore_invalid_triggers=False,
    )
    return machine, model


class _Shared:
    """What every round of one table shares: the table as a tuple, its triggers, its pool of machines."""

    def __init__(self, source: Sequence[Edge[Any]], pool: list[_Pooled]) -> None:
        self.source = source  # held, so that its id is not reused while it is a key
        self.table = tuple(source)
        self.triggers = triggers(self.table)
        self.pool = pool


_SHARED: dict[tuple[Any, ...], _Shared] = {}


def _give_back(pool: list[_Pooled], pooled: _Pooled) -> None:
    if len(pool) < POOL_MAX:
        pool.append(pooled)


class StateMachine(Generic[S]):
    """One round's state over ``table``: :meth:`fire` moves it, :meth:`allows` asks the table."""

    def __init__(self, states: type[S], table: Sequence[Edge[S]], initial: S, *, refuse: Refuse) -> None:
        shared = _SHARED.get((states, id(table), initial))
        if shared is None or shared.source is not table:  # a table first seen (or a new object at a reused id)
            shared = _Shared(table, _POOLS.setdefault((states, tuple(table), initial), []))
            _SHARED[(states, id(table), initial)] = shared
        self.table: tuple[Edge[S], ...] = shared.table
        self.triggers = shared.triggers
        self._refuse = refuse
        pool = shared.pool
        try:
            pooled = pool.pop()
        except IndexError:
            pooled = _build(states, self.table, initial, self.triggers)
        else:
            pooled[0].set_state(initial, model=pooled[1])
        self._machine, self._model = pooled
        weakref.finalize(self, _give_back, pool, pooled)

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
