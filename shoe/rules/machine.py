"""The one ``transitions`` wrapper behind both round machines (Mississippi stud and seven-card stud).

A game declares its states as an :class:`~enum.Enum` and its transition table as data (a tuple of
:class:`Edge`); :class:`StateMachine` feeds that table to ``transitions`` configured as the examples
page asks: ``model_override=True`` (the library binds exactly the names the model declares, which
this module declares from the table: ``trigger``, ``may_<trigger>``, ``is_<STATE>`` and one method
per trigger), ``queued=True``, no automatic ``to_<state>`` transitions, and invalid triggers raising.
A ``MachineError`` (or a trigger the table does not know) becomes the domain refusal, a
:class:`~shoe.rules.errors.RuleViolation` built by the game's ``refuse`` function with the reason.

Machines are built once per game, not per round (a ``transitions.Machine`` costs ~0.5 ms to
build, a quarter of a stud hand): each table keeps a pool of machines, each with its model; a round
takes one, reset to its initial state, and gives it back when the round is dropped (``__del__``: when its
last reference goes, or when the collector frees a cycle holding it; ``weakref.finalize`` took 6 µs a round).
A pooled machine serves one round at a time, so ``queued=True`` keeps its meaning (transitions keeps one
queue per machine) and two rounds in two threads never share a queue.

No callbacks, no I/O: the machine only moves the state.  The round verifies an action completely
(seats, cards, amounts) before it fires one trigger here, so a refused action changes nothing.

Plain steps (a trigger through ``transitions`` costs ~40 Python calls, 8 of them debug log
calls, a tenth of a stud hand for its 11 steps): a step whose ``transitions.Transition`` has no condition
and no callback, out of a state without enter or exit callbacks, on a machine without machine-wide
callbacks, does nothing but set the model's state.  :meth:`StateMachine.fire` takes such a step by
calling the machine's own ``set_state`` with the destination ``State`` the library built
(:func:`plain_steps` reads them off the built machine, so they cannot differ from its table).  Every other
step (the resume edges with their condition), every refusal and :meth:`StateMachine.may` go through
``transitions``' trigger as before.
:func:`mermaid` draws a table, so the pictures in docs/rules-engine.md and docs/seven-card-stud.md
are generated from the same data the machine runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Generic, TypeVar

from transitions import Machine, MachineError, State

from shoe.rules.errors import RuleViolation

__all__ = ["Edge", "Refuse", "StateMachine", "mermaid", "plain_steps", "triggers"]

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


_MACHINE_CALLBACKS = (
    "before_state_change",
    "after_state_change",
    "prepare_event",
    "finalize_event",
    "on_exception",
    "on_final",
)


def plain_steps(machine: Machine) -> dict[tuple[str, Any], State]:
    """``(trigger, source state) -> destination State`` for each step of ``machine`` that only sets the
    state: the only transition of its trigger from its source, with no condition, no ``prepare``,
    ``before`` or ``after`` callback, between states without enter or exit callbacks and not into a
    final state, on a machine without machine-wide callbacks.  Empty if the machine has any of those."""
    if any(getattr(machine, name) for name in _MACHINE_CALLBACKS):
        return {}
    steps: dict[tuple[str, Any], State] = {}
    for trigger, event in machine.events.items():
        for source, found in event.transitions.items():
            if len(found) != 1:
                continue
            step = found[0]
            here, there = machine.get_state(source), machine.get_state(step.dest) if step.dest else None
            if (
                there is None
                or step.conditions
                or step.prepare
                or step.before
                or step.after
                or here.on_exit
                or there.on_enter
                or there.final
            ):
                continue
            steps[(trigger, here.value)] = there
    return steps


class _Table:
    """What every round of one table (by content) shares: the table as a tuple, its triggers, its pool
    of machines, and its plain steps (read off the first machine built: every machine of a table is
    built alike)."""

    def __init__(self, table: tuple[Edge[Any], ...]) -> None:
        self.table = table
        self.triggers = triggers(table)
        self.pool: list[_Pooled] = []
        self.steps: dict[tuple[str, Any], State] | None = None


_TABLES: dict[tuple[Any, ...], _Table] = {}
"""By (states, table, initial): one entry per distinct table a process plays (a few per game)."""

BY_ID_MAX = 64
"""Table objects remembered by identity; past this they are all forgotten (each looked up by content
again if it comes back), so a game that builds its table anew each round does not grow this."""

_BY_ID: dict[tuple[Any, ...], tuple[Sequence[Edge[Any]], _Table]] = {}
"""By (states, id(table object), initial): the object (held, so that its id is not reused while it is a
key) and its :class:`_Table`, so that a table seen before costs no hashing of its content."""


def _table(states: type[Enum], source: Sequence[Edge[Any]], initial: Enum) -> _Table:
    key = (states, id(source), initial)
    known = _BY_ID.get(key)
    if known is not None and known[0] is source:
        return known[1]
    table = tuple(source)
    shared = _TABLES.get((states, table, initial))
    if shared is None:  # setdefault: two threads seeing a table first share the one that lands
        shared = _TABLES.setdefault((states, table, initial), _Table(table))
    if len(_BY_ID) >= BY_ID_MAX:
        _BY_ID.clear()  # one call, safe beside another thread's (no lock: shoe.rules starts no threads)
    _BY_ID[key] = (source, shared)
    return shared


class StateMachine(Generic[S]):
    """One round's state over ``table``: :meth:`fire` moves it, :meth:`allows` asks the table."""

    def __init__(self, states: type[S], table: Sequence[Edge[S]], initial: S, *, refuse: Refuse) -> None:
        shared = _table(states, table, initial)
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
        if shared.steps is None:
            shared.steps = plain_steps(self._machine)
        self._steps = shared.steps
        self._pool = pool

    def __del__(self, _most: int = POOL_MAX) -> None:  # bound here: no module global is needed at exit
        pool = getattr(self, "_pool", None)  # None if __init__ did not get that far
        if pool is not None and len(pool) < _most:
            pool.append((self._machine, self._model))

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
        before: S = self._model.state
        there = self._steps.get((trigger, before))
        if there is not None and not args:  # a plain step: what transitions' trigger would do, directly
            self._machine.set_state(there, model=self._model)
            return self.state
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
