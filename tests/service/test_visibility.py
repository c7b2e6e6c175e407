"""Secrecy by allow-list: every rules record type declares each of its fields in
``shoe.service.journal.visibility``, every journal payload field declares its rule on itself (the entry kinds'
allow-list is derived from those); nothing undeclared is ever shown, and no secret field shows before its moment."""

from __future__ import annotations

import ast
import dataclasses
import itertools
import json
import typing
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import pytest

from shoe.cards import FULL_DECK, Card
from shoe.service import Role
from shoe.service.journal.codec import record_types
from shoe.service.journal.entries import EntryKind, payload_types
from shoe.service.journal.payload_base import Payload
from shoe.service.journal.secrecy import project, public_payload, public_record
from shoe.service.journal.show import ALWAYS, NEVER, TAG, declared_rules
from shoe.service.journal.visibility import PAYLOADS, RECORDS, Moment, payload_visibility
from tests.service.conftest import OBS, Table, play_ny

SERVICE = Path(__file__).resolve().parents[2] / "shoe" / "service"
PUBLIC_CARDS = {("TableSystemRecord", "magic_card")}
"""Card-typed fields shown as soon as they exist: the magic card is drawn by the table system and announced."""
CODES = itertools.cycle(c.code for c in FULL_DECK)


def _nested_types() -> dict[str, type[Any]]:
    """The codec's record types and every dataclass reachable through their fields (WagerLine, SideResult)."""
    found: dict[str, type[Any]] = {}
    todo = list(record_types().values())
    while todo:
        cls = todo.pop()
        if cls.__name__ in found:
            continue
        if cls is Card:
            continue
        found[cls.__name__] = cls
        for hint in typing.get_type_hints(cls).values():
            todo += [a for a in _leaves(hint) if dataclasses.is_dataclass(a) and isinstance(a, type)]
    return found


def _leaves(hint: Any) -> list[Any]:
    args = typing.get_args(hint)
    return [hint] if not args else [leaf for a in args for leaf in _leaves(a)]


def _has_card(hint: Any) -> bool:
    return Card in _leaves(hint)


def _sample(hint: Any) -> Any:
    """A value for a field: fresh card codes for cards, a harmless value otherwise."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Card:
        return next(CODES)
    if origin is tuple:
        return [_sample(args[0]), _sample(args[0])] if len(args) == 2 and args[1] is Ellipsis else []
    if args:  # a union: its first non-None member
        return _sample(next(a for a in args if a is not type(None)))
    if isinstance(hint, type) and issubclass(hint, Enum):
        return next(iter(hint)).value
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _record(hint)
    return {bool: False, int: 1, str: "burn", float: 1.0}.get(hint)


def _record(cls: type[Any]) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    return {"type": cls.__name__, **{f.name: _sample(hints[f.name]) for f in dataclasses.fields(cls)}}


# -- the review's example, and what an undeclared thing shows ----------------------------------------


def test_an_unknown_record_type_shows_only_its_tag() -> None:
    assert public_record({"type": "FutureRecord", "hole_cards": ["As", "Kd"]}) == {"type": "FutureRecord"}


def test_an_undeclared_field_is_never_shown() -> None:
    shown = public_record({"type": "StackRecord", "seat": 1, "cards": ["As", "Kd"], "hole_cards": ["As", "Kd"]})
    assert shown == {"type": "StackRecord", "seat": 1, "cards": 2}


def test_an_undeclared_entry_kind_shows_nothing_of_its_payload() -> None:
    events = project(7, "t", "future-kind", "r", {"hole_cards": ["As", "Kd"], "note": "As"})
    assert events == [{"cursor": 7, "ts": "t", "round_id": "r", "type": "future-kind"}]
    decided = project(8, "t", "decision", "r", {"action": "decide", "seat": 1, "hole": ["As"], "peek": "As"})
    assert "As" not in json.dumps(decided)


# -- every type, kind and field is declared ---------------------------------------------------------


def test_every_record_type_declares_every_field_and_nothing_else() -> None:
    types = _nested_types()
    assert set(record_types()) <= set(types)
    declared = {name: set(RECORDS[name].fields) if name in RECORDS else set() for name in types}
    missing = {name: sorted({f.name for f in dataclasses.fields(cls)} - declared[name]) for name, cls in types.items()}
    assert {k: v for k, v in missing.items() if v or k not in RECORDS} == {}
    stale = {name: sorted(set(d.fields) - {f.name for f in dataclasses.fields(types[name])})
             for name, d in RECORDS.items() if name in types}  # fmt: skip
    assert {k: v for k, v in stale.items() if v} == {}
    assert set(RECORDS) <= set(types), "a declaration for a type the codec does not know"


def _kinds_written() -> set[str]:
    """Every kind the service's code journals: ``append("kind", data, round_id)`` (a sink's or a desk's method,
    or a round step's ``rounds.intents.append``) and a round's ``record("kind", record, ...)``."""
    kinds = set()
    for path in SERVICE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            arity = {"append": 3, "record": 2}.get(str(name))
            if arity is not None and len(node.args) == arity and isinstance(node.args[0], ast.Constant):
                kinds.add(str(node.args[0].value))
    return kinds


def test_every_journal_kind_the_service_writes_is_declared() -> None:
    written = _kinds_written()
    assert {"card", "decision", "round-opened", "settlement", "technician", "service"} <= written  # the scan works
    assert written - set(PAYLOADS) == set()


def test_every_field_of_every_payload_type_declares_one_rule() -> None:
    for cls in payload_types().values():
        rules = declared_rules(cls)  # raises naming the struct and the field
        assert set(rules) == set(cls.__struct_fields__), cls
        assert rules["by"] is ALWAYS, cls  # declared once, on Payload


def test_each_kind_declares_its_payload_types_fields_and_their_tag() -> None:
    for (kind, _), cls in payload_types().items():
        declared = PAYLOADS[kind].fields
        assert all(declared[name] == show for name, show in declared_rules(cls).items()), cls
        tag = cls.__struct_config__.tag_field
        assert tag is None or declared[tag] is TAG


# Payload types built by the tests below (at module level: their annotations are read back by name).


class _Undeclared(Payload, tag_field="event", tag="future"):
    code: Annotated[str, ALWAYS]
    hole_cards: list[str]  # no rule


class _Twice(Payload, tag_field="event", tag="future"):
    hole_cards: Annotated[list[str], NEVER, ALWAYS]


class _OtherRule(Payload, tag_field="event", tag="future"):
    detail: Annotated[str, ALWAYS]  # every other link payload's detail is free text, scrubbed


class _Declared(Payload, tag_field="event", tag="future"):
    code: Annotated[str, ALWAYS]
    hole_cards: Annotated[list[str], NEVER]


def test_a_payload_field_without_a_rule_is_refused_by_name() -> None:
    with pytest.raises(TypeError, match=r"_Undeclared\.hole_cards declares no visibility rule"):
        declared_rules(_Undeclared)
    with pytest.raises(TypeError, match=r"_Undeclared\.hole_cards declares no visibility rule"):
        payload_visibility({**payload_types(), (EntryKind.LINK, "future"): _Undeclared})


def test_a_payload_field_with_two_rules_is_refused_by_name() -> None:
    with pytest.raises(TypeError, match=r"_Twice\.hole_cards declares 2 visibility rules"):
        payload_visibility({(EntryKind.LINK, "future"): _Twice})


def test_one_field_with_two_rules_in_one_kind_is_refused_naming_both_types() -> None:
    both = r"'link' entries' field 'detail' has two visibility rules: .*ShoePosition.*_OtherRule"
    with pytest.raises(TypeError, match=both):
        payload_visibility({**payload_types(), (EntryKind.LINK, "future"): _OtherRule})
    # in another kind the same name may have another rule: secrecy reads rules by kind
    assert payload_visibility({(EntryKind.DECK, "future"): _OtherRule})[EntryKind.DECK].fields["detail"] is ALWAYS


def test_a_payload_types_declarations_are_its_kinds_allow_list() -> None:
    derived = payload_visibility({**payload_types(), (EntryKind.LINK, "future"): _Declared})
    link = derived[EntryKind.LINK].fields
    assert link["code"] is ALWAYS and link["hole_cards"] is NEVER and link["event"] is TAG
    assert {k: dict(v.fields) for k, v in derived.items() if k != EntryKind.LINK} == {
        k: dict(v.fields) for k, v in PAYLOADS.items() if k != EntryKind.LINK
    }


def _check_declared(kind: str, data: dict[str, Any]) -> list[str]:
    problems = [f"{kind}.{k}" for k in data if k not in PAYLOADS[kind].fields]
    records = [data["record"]] if isinstance(data.get("record"), dict) else []
    while records:
        rec = records.pop()
        declared = RECORDS[rec["type"]].fields
        problems += [f"{rec['type']}.{k}" for k in rec if k != "type" and k not in declared]
        records += [v for value in rec.values() if isinstance(value, list) for v in value if isinstance(v, dict)]
    return problems


def test_every_field_of_every_entry_of_two_rounds_is_declared(table_factory: Callable[..., Table]) -> None:
    table = table_factory()
    service = table.start()
    play_ny(service, {1: 500, 3: 500})
    table.shoe.load([c.code for c in FULL_DECK])  # the dealer reloads the emptied shoe
    stakes = {"ante": 0, "bring_in": 50, "small_bet": 100, "big_bet": 200}
    opening = {"game": "seven-card-stud", "jurisdiction": "NJ", "seats": [2, 4], "table": stakes}
    service.submit("open-round", opening, Role.DEALER)
    for _ in range(200):
        view = service.round_view(OBS)
        assert view is not None
        if view["closed"]:
            break
        if view["next_card"] is not None:
            service.submit("deal", {}, Role.DEALER)
            continue
        legal = {a["action"]: a for a in view["legal_actions"]}
        kind = next(k for k in ("check", "call", "bring-in") if k in legal)
        service.submit("stud-action", {"seat": legal[kind]["seat"], "action": kind}, Role.DEALER)
    service.submit("verify-journal", {}, Role.TECHNICIAN)
    service.stop()
    entries = table.entries()
    assert {e.kind for e in entries} >= {"card", "decision", "reveal", "settlement", "round-opened", "round-closed"}
    assert {e.data.get("action") for e in entries} >= {"decide", "stud-action", "verify-journal"}
    assert [p for e in entries for p in _check_declared(e.kind, dict(e.data))] == []


# -- secret fields and their moments ----------------------------------------------------------------


def _card_fields() -> list[tuple[str, str]]:
    return [(name, f.name) for name, cls in _nested_types().items() for f in dataclasses.fields(cls)
            if _has_card(typing.get_type_hints(cls)[f.name])]  # fmt: skip


def test_every_card_field_is_declared_secret() -> None:
    fields = _card_fields()
    assert ("StackRecord", "cards") in fields and ("CardDealt", "card") in fields
    public = {(t, f) for t, f in fields if not RECORDS[t].fields[f].secret}
    assert public == PUBLIC_CARDS


@pytest.mark.parametrize(("type_name", "field"), [f for f in _card_fields() if f not in PUBLIC_CARDS])
@pytest.mark.parametrize("role", [None, *Role])
def test_a_secret_card_field_shows_only_at_its_moment(type_name: str, field: str, role: Role | None) -> None:
    """Before its moment (face down, burn, not revealed, never) no code of the field shows, to any role."""
    rec = _record(_nested_types()[type_name])
    show = RECORDS[type_name].rules(role)[field]
    text = json.dumps(public_record(rec, role))
    codes = rec[field] if isinstance(rec[field], list) else [rec[field]]
    if show.moment is Moment.NEVER or show.reached is not None:  # in this sample the moment has not come
        assert not any(code in text for code in codes), (type_name, field, text)
    else:  # the record itself is made at the moment (a reveal, a seat's settlement): the cards show
        assert all(code in text for code in codes), (type_name, field, text)


@pytest.mark.parametrize(
    ("kind", "data"),
    [
        ("card", {"target": "seat", "seat": 2, "card": "As", "face": "down", "record": {"type": "CardDealt"}}),
        ("card", {"target": "burn", "card": "As", "face": "up", "record": {"type": "CardDealt"}}),
        ("reveal", {"index": 1, "card": "As", "record": {"type": "MisdealRecord"}}),
        ("technician", {"action": "maintenance-dispense", "cards": ["As", "Kd"], "size": 2}),
        ("link", {"event": "stack-recovered", "cards": ["As"]}),
        ("round-opened", {"game": "mississippi-stud", "records": [{"type": "StackRecord", "cards": ["As"]}]}),
        ("settlement", {"pot": 10, "records": [{"type": "X", "cards": ["As"]}], "awards": []}),
    ],
)
@pytest.mark.parametrize("role", [None, *Role])
def test_a_secret_payload_field_shows_only_at_its_moment(kind: str, data: dict[str, Any], role: Role | None) -> None:
    assert "As" not in json.dumps(public_payload(kind, data, role))
    assert "As" not in json.dumps(project(1, "t", kind, "r", data, role=role))


def test_payload_cards_show_at_their_moment() -> None:
    up = {"target": "seat", "seat": 2, "card": "As", "face": "up", "record": {"type": "CardDealt"}}
    assert project(1, "t", "card", "r", up)[0]["card"] == "As"
    reveal = {"index": 1, "card": "Kd", "record": {"type": "RevealRecord", "index": 0, "card": "Kd"}}
    assert project(2, "t", "reveal", "r", reveal)[0]["card"] == "Kd"
    showdown = {"uncontested": False, "awards": [], "showdown": {"2": ["7c", "7d"]}, "pot": 100}
    assert project(3, "t", "settlement", "r", showdown)[0]["showdown"] == {"2": ["7c", "7d"]}


@pytest.mark.parametrize(
    ("kind", "name"),
    [(k, n) for k, d in PAYLOADS.items() for n, show in d.fields.items() if show.moment is Moment.NEVER],
)
def test_a_payload_field_declared_never_never_shows(kind: str, name: str) -> None:
    data: dict[str, Any] = {"action": "x", "event": "x", "record": {"type": "CardDealt"}}
    data[name] = ["As", "Kd"]
    for role in [None, *Role]:
        assert "As" not in json.dumps(project(1, "t", kind, "r", data, role=role)), (kind, name)


def test_a_role_override_replaces_only_its_fields() -> None:
    """The role dimension: today every role sees the same; a later role (surveillance) may see more."""
    from shoe.service.journal.visibility import ALWAYS, Visibility

    stack = RECORDS["StackRecord"]
    assert all(stack.rules(role) == stack.fields for role in Role)
    wider = Visibility(stack.fields, {Role.TECHNICIAN: {"cards": ALWAYS}})
    assert wider.rules(Role.TECHNICIAN)["cards"] is ALWAYS and wider.rules(Role.TECHNICIAN)["seat"] is ALWAYS
    assert wider.rules(Role.OBSERVER)["cards"].secret and wider.rules(None)["cards"].secret
