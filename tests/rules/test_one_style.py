"""One rules style for both games, checked so that it cannot drift back.

* Profiles hold only fields the engine reads: every field of every profile record is read somewhere
  in the engine (a static scan), and the stud machine reads each :class:`StudProfile` field while it
  plays (an instrumented profile).
* One refusal type: every code the engine raises is in :data:`shoe.rules.errors.CODES`; the old class
  names are aliases.
* ``can_x`` is derived from ``verify_x`` (never hand-written); every ``verify_x`` has its ``x``.
* Composition: the Mississippi round and its parts inherit from nothing; both games run on the one
  ``transitions`` wrapper.

Imports are inside the tests so that each check fails on its own on an engine that breaks it.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
from pathlib import Path
from typing import Any

import pytest

RULES = Path(__file__).resolve().parents[2] / "shoe" / "rules"


def _attributes_read(files: list[Path]) -> set[str]:
    """Every ``x.name`` attribute access in ``files`` (field declarations and keywords are not reads)."""
    names: set[str] = set()
    for path in files:
        names |= {n.attr for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, ast.Attribute)}
    return names


def _profile_classes() -> dict[str, list[type[Any]]]:
    p = importlib.import_module("shoe.rules.profiles")
    return {
        "mississippi": [p.MississippiProfile, p.Citations, p.CapRule, p.StubCountRule, p.IrregularityRule],
        "stud": [p.StudProfile, p.StudStreet],
    }


def test_every_profile_field_is_read_by_the_engine() -> None:
    """A field nothing reads would let a new jurisdiction edit values that change nothing."""
    everything = sorted(RULES.rglob("*.py"))
    scopes = {
        "mississippi": [f for f in everything if "stud" not in f.relative_to(RULES).parts],
        "stud": [f for f in everything if "stud" in f.relative_to(RULES).parts] + [RULES / "profiles.py"],
    }
    unread = [
        f"{cls.__name__}.{field.name}"
        for game, classes in _profile_classes().items()
        for cls in classes
        for field in dataclasses.fields(cls)
        if field.name not in _attributes_read(scopes[game])
    ]
    assert unread == [], f"profile fields nothing reads (make the engine read them, or delete them): {unread}"


def test_the_stud_machine_reads_every_field_of_its_profile_while_it_plays() -> None:
    from shoe.cards import FULL_DECK, parse_cards
    from shoe.rules.profiles import NJ_SEVEN_CARD_STUD, STUD_PROFILES, StudProfile, StudStreet
    from shoe.rules.stud import StudHand, StudTableConfig, Target
    from shoe.rules.stud.errors import cite
    from shoe.rules.stud.showdown import settle_showdown

    read: set[str] = set()

    class RecordingStreet(StudStreet):
        def __getattribute__(self, name: str) -> Any:
            read.add(f"StudStreet.{name}")
            return super().__getattribute__(name)

    class RecordingProfile(StudProfile):
        def __getattribute__(self, name: str) -> Any:
            read.add(f"StudProfile.{name}")
            return super().__getattribute__(name)

    base = NJ_SEVEN_CARD_STUD
    streets = tuple(RecordingStreet(*dataclasses.astuple(s)) for s in base.streets)
    profile = RecordingProfile(
        **{**{f.name: getattr(base, f.name) for f in dataclasses.fields(base)}, "streets": streets}
    )
    config = StudTableConfig(ante=25, bring_in=100, small_bet=200, big_bet=400)
    for seats in ([1, 2, 3, 4, 5, 6, 7, 8], [2, 5]):  # eight players run the stub short: (h)
        hand = StudHand(config, seats, profile=profile)
        deck = list(FULL_DECK)
        for _ in range(400):
            if hand.finished:
                break
            step = hand.next_card
            if step is None:
                chosen = hand.default_action()
                hand.act(chosen.seat, chosen.kind, chosen.amount)
            elif step.target is Target.RESHUFFLE:
                hand.reshuffle_burns()
                deck = [c for c in FULL_DECK if not any(c in hand.cards(s) for s in seats) and c != hand.common_card]
            else:
                card = next(c for c in deck if hand.can_deal(c))
                deck.remove(card)
                hand.deal(card)
        assert hand.finished
    settle_showdown(101, {3: parse_cards("Ah Kh 9c 8d 4s 3c 2d"), 8: parse_cards("Ac Kc 9h 8s 4d 3h 2s")}, profile)
    identity = {"jurisdiction", "game", "regulation"}  # read by the registry and the citations, below
    fields = {f"StudProfile.{f.name}" for f in dataclasses.fields(StudProfile) if f.name not in identity}
    fields |= {f"StudStreet.{f.name}" for f in dataclasses.fields(StudStreet)}
    assert sorted(fields - read) == []
    assert all(key == p.jurisdiction and p.game == "seven-card-stud" for key, p in STUD_PROFILES.items())
    assert cite("") == base.regulation and cite("c") == base.streets[0].rule


def test_every_refusal_code_the_engine_raises_is_in_the_one_list() -> None:
    from shoe.rules.errors import CODES

    raised = set()
    for path in RULES.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.keyword) and node.arg == "code" and isinstance(node.value, ast.Constant):
                raised.add(node.value.value)
    assert raised and sorted(raised - set(CODES)) == []
    with pytest.raises(ValueError, match="unknown RuleViolation code"):
        importlib.import_module("shoe.rules.errors").RuleViolation("x", rule="", code="no-such-code")


def test_one_refusal_type_under_the_old_names() -> None:
    errors = importlib.import_module("shoe.rules.errors")
    stud = importlib.import_module("shoe.rules.stud")
    for name in ("OutOfOrder", "IllegalAction", "RoundPaused", "IllegalWager", "UnknownSeat", "InvalidConfiguration"):
        assert getattr(errors, name) is errors.RuleViolation, name
    assert stud.StudRuleViolation is errors.RuleViolation


def _triplets(cls: type[Any]) -> tuple[set[str], set[str]]:
    names = {n for n in dir(cls) if n.startswith("verify_")}
    return {n.removeprefix("verify_") for n in names}, {
        n.removeprefix("can_") for n in dir(cls) if n.startswith("can_")
    }


@pytest.mark.parametrize("where", ["shoe.rules.mississippi:MississippiRound", "shoe.rules.stud:StudHand"])
def test_can_x_is_derived_from_verify_x_never_hand_written(where: str) -> None:
    from shoe.rules.actions import Can

    module, name = where.split(":")
    cls = getattr(importlib.import_module(module), name)
    actions, cans = _triplets(cls)
    assert actions == cans and len(actions) >= 9
    for action in actions:
        assert hasattr(cls, action), f"verify_{action} has no {action}"
        assert isinstance(inspect.getattr_static(cls, f"can_{action}"), Can), f"can_{action} is hand-written"


def test_the_mississippi_round_is_composed_not_a_mixin_chain() -> None:
    from shoe.rules.mississippi import MississippiRound, TableConfig, new_round

    assert MississippiRound.__mro__ == (MississippiRound, object)
    r = new_round("PA", TableConfig(500, 50_000))
    parts = [v for k, v in vars(r).items() if k.startswith("_")]
    assert len(parts) >= 6
    for part in parts:
        assert type(part).__mro__ == (type(part), object), type(part)
        public = [n for n in dir(part) if not n.startswith("_")]
        assert len(public) <= 16, (type(part).__name__, public)


def test_both_games_run_on_the_one_transitions_wrapper() -> None:
    from shoe.rules.machine import StateMachine
    from shoe.rules.mississippi.flow import Flow
    from shoe.rules.mississippi.states import transition_table
    from shoe.rules.stud.machine import PhaseMachine

    for machine in (Flow(transition_table()), PhaseMachine()):
        assert isinstance(machine, StateMachine)
        inner = machine._machine
        assert inner.has_queue and inner.model_override and not inner.auto_transitions
        assert not inner.ignore_invalid_triggers
