"""The phase machine, built with ``transitions`` from the table in ``states.py``.

``transitions`` is configured as the examples page asks: states are the :class:`Phase` Enum, the
model declares its triggers (``model_override=True``, so the library binds only what is declared and
never shadows anything else), events are ``queued=True``, there are no automatic ``to_<state>``
transitions, and an invalid trigger raises; ``MachineError`` is turned into
:class:`RuleViolation` naming the rule of the phase the hand is in.

The machine holds only the phase.  The hand (``hand.py``) verifies an action completely before it
fires a trigger, so a refused action never reaches this module.
"""

from __future__ import annotations

from transitions import Machine, MachineError

from shoe.rules.errors import RuleViolation
from shoe.rules.stud.errors import cite
from shoe.rules.stud.states import PHASE_RULE, TERMINAL_PHASES, TRANSITIONS, Phase

__all__ = ["PhaseMachine", "mermaid"]


class _PhaseModel:
    """The model ``transitions`` drives.  The trigger bodies are placeholders the machine replaces."""

    state: Phase

    def cards_dealt(self) -> bool:  # pragma: no cover - replaced by transitions
        raise NotImplementedError

    def forced_bet(self) -> bool:  # pragma: no cover - replaced by transitions
        raise NotImplementedError

    def betting_closed(self) -> bool:  # pragma: no cover - replaced by transitions
        raise NotImplementedError

    def all_but_one_folded(self) -> bool:  # pragma: no cover - replaced by transitions
        raise NotImplementedError

    def may_trigger(self, trigger: str) -> bool:  # pragma: no cover - replaced by transitions
        raise NotImplementedError


TRIGGERS: tuple[str, ...] = tuple(dict.fromkeys(t.trigger for t in TRANSITIONS))


def _placeholder(*_args: object, **_kwargs: object) -> bool:  # pragma: no cover - replaced by transitions
    raise NotImplementedError


# Declare every convenience method transitions binds (``is_<PHASE>``, ``may_<trigger>``, ``trigger``):
# with model_override=True it binds exactly the declared names, and skips (with a log warning per
# name and per machine) any it was not told about.
for _name in ("trigger", *(f"is_{p.name}" for p in Phase), *(f"may_{t}" for t in TRIGGERS)):
    setattr(_PhaseModel, _name, _placeholder)


class PhaseMachine:
    """Owns the current :class:`Phase`; :meth:`fire` moves it along :data:`TRANSITIONS`."""

    def __init__(self, initial: Phase = Phase.DEAL_THIRD) -> None:
        self._model = _PhaseModel()
        self._machine = Machine(
            model=self._model,
            states=Phase,
            transitions=[{"trigger": t.trigger, "source": t.source, "dest": t.dest} for t in TRANSITIONS],
            initial=initial,
            auto_transitions=False,
            model_override=True,
            queued=True,
            ignore_invalid_triggers=False,
        )

    @property
    def phase(self) -> Phase:
        """The current phase."""
        return self._model.state

    @property
    def finished(self) -> bool:
        """True once the hand is over (showdown or uncontested)."""
        return self._model.state in TERMINAL_PHASES

    def may(self, trigger: str) -> bool:
        """Whether ``trigger`` is allowed from the current phase (no side effects)."""
        return trigger in TRIGGERS and bool(self._model.may_trigger(trigger))

    def fire(self, trigger: str) -> Phase:
        """Fire ``trigger`` and return the new phase; refuse a trigger the table does not allow."""
        if trigger not in TRIGGERS:
            raise RuleViolation(f"unknown trigger {trigger!r}", rule=cite(""), code="invalid-transition")
        try:
            getattr(self._model, trigger)()
        except MachineError as exc:
            phase = self._model.state
            raise RuleViolation(
                f"{trigger!r} is not allowed in phase {phase.value!r}: {exc.value}",
                rule=cite(PHASE_RULE[phase]),
                code="invalid-transition",
            ) from exc
        return self._model.state


def mermaid() -> str:
    """The transition table as a mermaid ``stateDiagram-v2`` (docs/seven-card-stud.md embeds it)."""
    lines = ["stateDiagram-v2", f"    [*] --> {Phase.DEAL_THIRD.name}"]
    lines += [f"    {t.source.name} --> {t.dest.name}: {t.trigger} ({t.rule})" for t in TRANSITIONS]
    lines += [f"    {p.name} --> [*]" for p in Phase if p in TERMINAL_PHASES]
    return "\n".join(lines) + "\n"
