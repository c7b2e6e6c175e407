"""Seven-card stud: the phase machine, the table configuration and the error type
(N.J.A.C. 13:47-20.35(b) and the phase paragraphs cited by each transition).
"""

from __future__ import annotations

import gc
import logging
import pickle
import weakref
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
from transitions import MachineError

import shoe.rules.machine as rules_machine
from shoe.rules.errors import RuleViolation
from shoe.rules.machine import Edge, Refuse, StateMachine
from shoe.rules.profiles import NJ_SEVEN_CARD_STUD, Face
from shoe.rules.stud import (
    MAX_SEATS,
    Phase,
    Street,
    StudHand,
    StudRuleViolation,
    StudTableConfig,
    Target,
    mermaid,
)
from shoe.rules.stud.dealing import street_plan
from shoe.rules.stud.errors import CODES, cite
from shoe.rules.stud.machine import PhaseMachine
from shoe.rules.stud.states import PHASE_RULE, TERMINAL_PHASES, TRANSITIONS

DOC = Path(__file__).resolve().parents[2] / "docs" / "seven-card-stud.md"
CFG = StudTableConfig(ante=0, bring_in=100, small_bet=200, big_bet=400)


def test_transition_table_reaches_every_phase_and_ends_only_at_the_end() -> None:
    sources = {t.source for t in TRANSITIONS}
    dests = {t.dest for t in TRANSITIONS} | {Phase.DEAL_THIRD}
    assert dests == set(Phase)
    assert sources == set(Phase) - TERMINAL_PHASES
    assert len({(t.trigger, t.source) for t in TRANSITIONS}) == len(TRANSITIONS)
    assert set(PHASE_RULE) == set(Phase)
    for phase in Phase:
        assert (phase.street is None) is (phase in TERMINAL_PHASES)


def test_machine_is_built_with_transitions_as_the_examples_page_asks() -> None:
    machine = PhaseMachine()
    inner = machine._machine
    assert inner.has_queue and inner.model_override and not inner.auto_transitions
    assert not inner.ignore_invalid_triggers
    assert not hasattr(machine._model, "to_SHOWDOWN")  # no automatic transitions bound
    assert machine.phase is Phase.DEAL_THIRD and not machine.finished
    assert machine.may("cards_dealt") and not machine.may("betting_closed") and not machine.may("nope")
    assert machine.fire("cards_dealt") is Phase.BRING_IN


def test_invalid_trigger_becomes_a_domain_error_naming_the_phase_rule() -> None:
    machine = PhaseMachine()
    with pytest.raises(StudRuleViolation) as info:
        machine.fire("betting_closed")
    assert info.value.code == "invalid-transition" and info.value.rule == cite("c")
    assert machine.phase is Phase.DEAL_THIRD
    with pytest.raises(StudRuleViolation) as info:
        machine.fire("shuffle_up_and_deal")
    assert info.value.code == "invalid-transition"


def test_diagram_in_docs_is_generated_from_the_transition_table() -> None:
    """docs/seven-card-stud.md embeds ``mermaid()`` verbatim, so the picture cannot drift."""
    text = DOC.read_text(encoding="utf-8")
    assert "```mermaid\n" + mermaid() + "```" in text


def test_njac_13_47_20_35_b_at_most_eight_players() -> None:
    """(b) A poker table is restricted to a maximum of eight players."""
    assert MAX_SEATS == 8
    StudHand(CFG, range(1, 9))
    with pytest.raises(StudRuleViolation) as info:
        StudHand(CFG, range(1, 10))
    assert info.value.code == "too-many-players" and info.value.rule == cite("b")
    for seats in ([0, 1], [1, 9], [1, 1], [3], [1, True]):
        with pytest.raises(StudRuleViolation) as info:
            StudHand(CFG, seats)
        assert info.value.code == "bad-seats", seats
    small = StudTableConfig(ante=0, bring_in=100, small_bet=200, big_bet=400, max_seats=6)
    with pytest.raises(StudRuleViolation):
        StudHand(small, [1, 7])


def test_njac_13_47_20_35_b_posted_table_rules_are_validated() -> None:
    """(b) The ante and the limits are posted table rules: integer cents, 0 < bring-in < small <= big."""
    bad: list[dict[str, object]] = [
        {"ante": -1},
        {"bring_in": 0},
        {"bring_in": 200},
        {"big_bet": 100},
        {"ante": 2.5},
        {"max_raises": -1},
        {"max_seats": 9},
        {"max_seats": 1},
        {"bring_in": True},
    ]
    for change in bad:
        with pytest.raises(StudRuleViolation) as info:
            StudTableConfig.from_mapping({"bring_in": 100, "small_bet": 200, "big_bet": 400, **change})
        assert info.value.code == "bad-config", change
    assert CFG.bet_size(Street.THIRD) == CFG.bet_size(Street.FOURTH) == 200
    assert CFG.bet_size(Street.FIFTH) == CFG.bet_size(Street.SEVENTH) == 400
    assert CFG.max_bets == 4
    assert StudTableConfig.from_mapping({"bring_in": 100, "small_bet": 200, "big_bet": 400}) == CFG
    for table in ({"bring_in": 100, "small_bet": 200}, {**vars_of(CFG), "antee": 5}):
        with pytest.raises(StudRuleViolation) as info:
            StudTableConfig.from_mapping(table)
        assert info.value.code == "bad-config"


def vars_of(config: StudTableConfig) -> dict[str, int]:
    return {k: getattr(config, k) for k in ("ante", "bring_in", "small_bet", "big_bet")}


def test_errors_carry_rule_and_code_and_survive_pickling() -> None:
    err = StudRuleViolation("seat 3 may not check", rule=cite("g"), code="illegal-action")
    assert str(err) == "seat 3 may not check (N.J.A.C. 13:47-20.35(g))"
    assert isinstance(err, RuleViolation)
    again = pickle.loads(pickle.dumps(err))
    assert (again.message, again.rule, again.code) == (err.message, err.rule, err.code)
    with pytest.raises(ValueError, match="unknown"):
        StudRuleViolation("x", rule=cite("g"), code="no-such-code")
    assert "out-of-order" in CODES and cite("") == "N.J.A.C. 13:47-20.35"


def test_street_names() -> None:
    assert Street.parse("4") is Street.FOURTH and Street.parse(7) is Street.SEVENTH
    assert Street.parse("fifth") is Street.FIFTH and Street.SIXTH.label == "6"
    with pytest.raises(ValueError, match="unknown street"):
        Street.parse("8")
    hand = StudHand(CFG, [1, 2])
    assert hand.first_to_act("4") is None and hand.bring_in_seat is None


def test_machine_agrees_with_the_nj_stud_profile() -> None:
    """The profile in shoe.rules.profiles describes the same game this machine plays."""
    profile = NJ_SEVEN_CARD_STUD
    assert profile.max_seats == MAX_SEATS
    assert profile.game == "seven-card-stud" and profile.jurisdiction == "NJ"
    hand = StudHand(CFG, [1, 2])
    faces = {Face.UP: True, Face.DOWN: False}
    third = profile.streets[0]
    assert not third.burn
    assert [s.face_up for s in hand.dealing_order[::2]] == [faces[f] for f in third.faces]
    for street, spec in zip(list(Street)[1:], profile.streets[1:], strict=True):
        plan = street_plan(street, [1, 2], 52)
        assert spec.burn and plan[0].target is Target.BURN
        assert [s.face_up for s in plan[1:]] == [faces[spec.faces[0]]] * 2


def test_a_machine_is_built_once_per_game_and_each_round_starts_fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """No transitions.Machine per hand; a reused machine starts at the initial phase, and two live
    hands never share one (their phases move independently)."""
    import transitions

    import shoe.rules.machine as rules_machine

    PhaseMachine()  # the pool holds one machine from here on (or more, from earlier tests)
    built: list[object] = []
    real = rules_machine.Machine

    def counting(*args: object, **kwargs: object) -> transitions.Machine:
        built.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(rules_machine, "Machine", counting)
    for _ in range(50):
        hand = PhaseMachine()
        assert hand.phase is Phase.DEAL_THIRD
        hand.fire("cards_dealt")
        del hand
    assert built == []
    first, second = PhaseMachine(), PhaseMachine()
    assert first._machine is not second._machine
    first.fire("cards_dealt")
    assert (first.phase, second.phase) == (Phase.BRING_IN, Phase.DEAL_THIRD)
    with pytest.raises(RuleViolation):
        second.fire("betting_closed")
    assert second.phase is Phase.DEAL_THIRD and first.may("forced_bet")


def _tables() -> list[tuple[type[Enum], tuple[Edge[Any], ...], Enum, Refuse]]:
    from shoe.rules.mississippi import RoundState, transition_table
    from shoe.rules.mississippi.flow import _refuse as flow_refuse
    from shoe.rules.profiles import CommunitySource
    from shoe.rules.stud.machine import _refuse as stud_refuse

    found: list[tuple[type[Enum], tuple[Edge[Any], ...], Enum, Refuse]] = [
        (Phase, TRANSITIONS, Phase.DEAL_THIRD, stud_refuse)
    ]
    for source in CommunitySource:
        for lockout in (False, True):
            found.append((RoundState, transition_table(source, lockout), RoundState.OPEN, flow_refuse))
    return found


def _outcome(fire: Callable[..., object], model: Any, trigger: str, args: tuple[object, ...]) -> tuple[str, object]:
    """Fire and say whether it was refused, and the state after (a refusal must keep the state)."""
    try:
        fire(trigger, *args)
    except (RuleViolation, MachineError, AttributeError):  # AttributeError: transitions' unknown trigger
        return ("refused", model.state)
    return ("moved", model.state)


def test_every_trigger_from_every_state_ends_where_transitions_own_trigger_ends() -> None:
    """A plain step is taken with the machine's ``set_state`` instead of its trigger; from every
    state of every table (stud, and each Mississippi variant), each trigger (resume with each prior state
    too) must move the round exactly where ``transitions`` alone moves a machine built from that table,
    and be refused exactly where it refuses (the refusal keeps the state)."""
    checked = 0
    for states, table, initial, refuse in _tables():
        names = rules_machine.triggers(table)
        reference, model = rules_machine._build(states, table, initial, names)
        ours = StateMachine(states, table, initial, refuse=refuse)
        for state in states:
            for trigger in (*names, "no_such_trigger"):
                for args in [(), *[(prior,) for prior in states]] if trigger == "resume" else [()]:
                    reference.set_state(state, model=model)
                    ours._machine.set_state(state, model=ours._model)
                    want = _outcome(model.trigger, model, trigger, args)
                    got = _outcome(ours.fire, ours._model, trigger, args)
                    assert got == want, (states.__name__, state, trigger, args)
                    checked += 1
    assert checked > 1000
    assert rules_machine.plain_steps(reference)  # the Mississippi tables have plain steps too


def test_a_plain_step_makes_no_transitions_log_call_and_a_refusal_still_goes_through_transitions(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A stud hand's 11 phase steps made ~90 debug log calls inside transitions."""
    machine = PhaseMachine()
    caplog.set_level(logging.DEBUG, logger="transitions")
    assert machine.fire("cards_dealt") is Phase.BRING_IN and machine.fire("forced_bet") is Phase.BET_THIRD
    assert [r for r in caplog.records if r.name.startswith("transitions")] == []
    with pytest.raises(RuleViolation) as info:
        machine.fire("cards_dealt")
    assert "Can't trigger event cards_dealt from state BET_THIRD" in info.value.message
    assert machine.phase is Phase.BET_THIRD


def test_a_game_that_builds_its_table_anew_each_round_does_not_keep_every_table() -> None:
    """A table first seen by identity was held for the life of the process: a Mississippi round builds its
    table anew, so every round's table (and its edges) stayed in memory."""
    from shoe.rules.stud.machine import _refuse

    class Table(list[Edge[Phase]]):  # a list subclass can be weakly referenced; a tuple cannot
        pass

    refs = []
    for _ in range(300):
        table = Table(TRANSITIONS)
        machine = StateMachine(Phase, table, Phase.DEAL_THIRD, refuse=_refuse)
        assert machine.fire("cards_dealt") is Phase.BRING_IN
        refs.append(weakref.ref(table))
        del table, machine
    gc.collect()
    alive = sum(ref() is not None for ref in refs)
    assert alive <= 64, alive  # rules_machine.BY_ID_MAX
