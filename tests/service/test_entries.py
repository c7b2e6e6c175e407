"""The journal's typed schema: ``shoe.service.journal.entries`` fits what the service writes.

Real rounds through the real service, on the emulated shoe and a real SQLite journal (NY; PA with side
wagers, the progressive lock-out and the table system's inputs; NJ Mississippi; NJ seven-card stud; a
void; a pause from an unplugged cable; maintenance; a shoe fault; a restart; a lying shoe's alarm),
and the first release's journal: every entry they hold checks against its kind's payload type.
A mistyped payload is refused naming the kind and the field; ``known_dispense_id`` is read only from
the payloads that declare it (docs/journal.md lists the same table: tests/journal/test_entries_doc.py).
"""

from __future__ import annotations

import ast
import json
import shutil
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from drivers.client import ShoeClient
from drivers.emu_transport import EmulatorTransport
from drivers.emulator import EmulatedShoe, EmulatorConfig
from drivers.emulator.mitm import ManInTheMiddle, MitmState, card_reads_say
from protocols.codes import FaultCode, ReadStatus
from shoe.journal import Entry, Journal, JournalDataError
from shoe.service import ServiceConfig, TableService
from shoe.service.deck.payloads import DeckEvent
from shoe.service.journal import entries as en
from shoe.service.journal.codec import tagged_types
from shoe.service.journal.entries import (
    EntryKind,
    check_entry,
    known_dispense_id,
    known_dispense_id_of,
    parse_entry,
    payload_types,
)
from shoe.service.journal.payloads import CardEntry
from shoe.service.journal.visibility import PAYLOADS, Moment
from shoe.service.people.approval_payloads import ApprovalAction
from shoe.service.people.payloads import PeopleAction
from shoe.service.rounds.recovery import scan_journal
from tests.journal.fixtures.make_release_journal import Shift
from tests.service.conftest import FAST, OBS, D, T, Table, deck, restack
from tests.service.powercut import card_of_stack, cut_power_during, decision

ROOT = Path(__file__).resolve().parents[2]
RELEASE = ROOT / "tests" / "journal" / "fixtures" / "release-0.1.0-ac0bba9.sqlite"
DOC = ROOT / "docs" / "journal.md"
OPEN = {
    "game": "mississippi-stud",
    "jurisdiction": "NY",
    "seats": [{"seat": 1, "ante": 1000}, {"seat": 2, "ante": 500}],
}
SUBS = (en.DecisionAction, en.IrregularityAction, en.LinkEvent, en.FaultEvent, en.TechnicianAction, en.ServiceEvent,
        DeckEvent, PeopleAction, ApprovalAction)  # fmt: skip


def _key(entry: Entry) -> tuple[str, str | None]:
    data = entry.data
    sub = data.get("action") or data.get("event") or (data.get("game") if entry.kind == "round-opened" else None)
    if entry.kind == "settlement":
        sub = "seven-card-stud" if "records" in data else "mississippi-stud"
    return entry.kind, None if sub is None else str(sub)


def _check_all(entries: Iterable[Entry]) -> set[tuple[str, str | None]]:
    seen = set()
    for entry in entries:
        check_entry(entry.kind, entry.data)  # raises, naming the kind and the field
        seen.add(_key(entry))
    return seen


def _entries(path: Path) -> list[Entry]:
    with Journal.open(path) as journal:
        return list(journal.entries())


def _wait(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert predicate(), "timed out"


def _copy(path: Path, tmp_path: Path) -> Path:
    target = tmp_path / path.name
    shutil.copyfile(path, target)
    target.chmod(0o600)
    return target


# -- what the service writes fits ------------------------------------------------------------------------


def test_every_entry_of_the_first_release_fits_its_type(tmp_path: Path) -> None:
    with Journal.open(_copy(RELEASE, tmp_path)) as journal:
        seen = _check_all(journal.entries())
    assert {kind for kind, _ in seen} == set(EntryKind) - {EntryKind.FAULT, EntryKind.DECK, EntryKind.PEOPLE,
                                                     EntryKind.APPROVAL}


@pytest.fixture(scope="module")
def shift_journal(tmp_path_factory: pytest.TempPathFactory) -> list[Entry]:
    """A shift of today's service, as the release fixture's script plays it, plus a shoe fault."""
    path = tmp_path_factory.mktemp("shift") / "journal.sqlite"
    shift = Shift(path, seed=20261201)
    try:
        shift.play()
        shift.fresh_deck()
        shift.shoe.inject_fault(FaultCode.TAMPER)
        _wait(lambda: any(e.kind == "fault" for e in _entries(path)))
        shift.service.submit("clear-fault", {}, T)
        shift.service.stop()
    finally:
        shift.shoe.close()
    return _entries(path)


def test_every_entry_a_shift_of_today_writes_fits_its_type(shift_journal: list[Entry]) -> None:
    seen = _check_all(shift_journal)
    expected = {("service", "start"), ("service", "stop"), ("round-opened", "mississippi-stud"),
                ("round-opened", "seven-card-stud"), ("round-closed", None), ("card", None),
                ("decision", "stack-for-seat"), ("decision", "stack-dealt"), ("decision", "stud-action"),
                ("decision", "lock-progressive"), ("decision", "chip-count"), ("decision", "progressive-inputs"),
                ("irregularity", "void"), ("irregularity", "paused"), ("irregularity", "resumed"),
                ("link", "lost"), ("link", "restored"), ("link", "resynced"), ("link", "shoe-position"),
                ("technician", "maintenance-dispense"), ("technician", "clear-fault"),
                ("technician", "verify-journal"), ("reveal", None), ("settlement", "mississippi-stud"),
                ("settlement", "seven-card-stud"), ("fault", "raised"),
                ("deck", "loaded"), ("deck", "checked")}  # fmt: skip
    assert expected <= seen, sorted(map(str, expected - seen))


def test_known_dispense_id_read_from_the_typed_payloads_is_the_journals(shift_journal: list[Entry]) -> None:
    """The typed reader finds the same position as the service's scan of whatever carries the key."""
    typed = max((known_dispense_id(e.kind, e.data) or 0 for e in shift_journal), default=0)
    assert typed > 0
    assert typed == max((e.data["known_dispense_id"] for e in shift_journal
                         if isinstance(e.data.get("known_dispense_id"), int)), default=0)  # fmt: skip


def test_the_sinks_reading_from_the_checked_payload_is_the_lookups(shift_journal: list[Entry]) -> None:
    """What the sink keeps (read off the payload it checked) is what the lookup by kind and data finds."""
    pairs = [(known_dispense_id_of(parse_entry(e.kind, e.data)), known_dispense_id(e.kind, e.data))
             for e in shift_journal]  # fmt: skip
    assert [a for a, _ in pairs] == [b for _, b in pairs]
    assert sum(a is not None for a, _ in pairs) > 10


def test_known_dispense_id_of_a_restarted_service_is_the_typed_one(tmp_path: Path) -> None:
    with Journal.open(_copy(RELEASE, tmp_path)) as journal:
        facts = scan_journal(journal)
        typed = max(known_dispense_id(e.kind, e.data) or 0 for e in journal.entries())
    assert typed == facts.known_dispense_id > 0


def test_an_alarm_and_the_void_it_causes_fit(tmp_path: Path) -> None:
    """A lying shoe (CARD_READ against STACK_READY): the alarm, and the void that names it and its stack."""
    shoe = EmulatedShoe(EmulatorConfig(deck=deck("2c", "Kh")))
    state = MitmState()
    path = tmp_path / "journal.sqlite"
    service = TableService(
        ServiceConfig(shoe_port="emu://", journal=path, timeouts=FAST, submit_timeout=20.0),
        transport_factory=lambda: ManInTheMiddle(EmulatorTransport(shoe), [card_reads_say(["2s", "6s"])], state=state),
    )
    try:
        service.start()
        service.submit("open-round", {"game": "mississippi-stud", "jurisdiction": "NY",
                                      "seats": [{"seat": 1, "ante": 500}]}, D)  # fmt: skip
        service.submit("no-more-bets", {}, D)
        service.submit("deal", {}, D)
    finally:
        service.stop()
        shoe.close()
    with Journal.open(path) as journal:
        seen = _check_all(journal.entries())
    assert {("fault", "alarm"), ("irregularity", "void"), ("decision", "no-more-bets")} <= seen


def _fits(table: Table) -> set[tuple[str, str | None]]:
    for service in table.services:
        service.stop()
    return _check_all(table.entries())


def test_a_stack_recovered_after_a_power_cut_fits(table_factory: Callable[..., Table]) -> None:
    table = table_factory()
    first = table.start()
    first.submit("open-round", OPEN, D)
    first.submit("no-more-bets", {}, D)
    cut_power_during(first, "deal", card_of_stack(2))
    table.start()
    assert ("link", "stack-recovered") in _fits(table)


def test_a_stub_count_recovered_after_a_power_cut_fits(table_factory: Callable[..., Table]) -> None:
    table = table_factory()
    first = table.start()
    first.submit("open-round", OPEN, D)
    first.submit("no-more-bets", {}, D)
    first.submit("deal", {}, D)
    cut_power_during(first, "release-stub", decision("release-stub"))
    table.start()
    assert {("link", "stub-recovered"), ("decision", "release-stub"), ("decision", "community-dealt")} <= _fits(table)


def test_stacks_the_journal_never_saw_and_a_shoe_reboot_fit(table_factory: Callable[..., Table]) -> None:
    table = table_factory()
    table.start().stop()
    with ShoeClient.open_transport(EmulatorTransport(table.shoe), timeouts=FAST, key=table.key()) as other:
        other.dispense(2)  # someone else's stack: the shoe is ahead of the journal
    service = table.start()
    table.shoe.power_cycle()
    _wait(lambda: any(e.data.get("event") == "rebooted" for e in table.entries(kinds=("link",))))
    service.submit("clear-fault", {}, T)
    seen = _fits(table)
    assert {("irregularity", "unjournaled-dispense"), ("fault", "alarm"), ("link", "rebooted")} <= seen


def test_a_forfeit_fits(table_factory: Callable[..., Table]) -> None:
    table = table_factory()
    service = table.start()
    service.submit("open-round", {"game": "mississippi-stud", "jurisdiction": "PA",
                                  "seats": [{"seat": 1, "ante": 500}, {"seat": 2, "ante": 500}]}, D)  # fmt: skip
    for action in ("no-more-bets", "deal", "release-stub"):
        service.submit(action, {}, D)
    service.submit("forfeit", {"seat": 1}, D)
    assert ("decision", "forfeit") in _fits(table)


def test_an_eight_player_stud_hand_with_its_reshuffle_fits(table_factory: Callable[..., Table]) -> None:
    script = json.loads((ROOT / "examples" / "nj-seven-card-stud-short-deck.json").read_text(encoding="utf-8"))
    table = table_factory(count_known=False)
    service = table.start()
    restack(table.shoe, script["shoe"])  # the 53-card list: the burn reshuffled for 7th street comes again
    seats = [{"seat": s} for s in range(1, 9)]
    service.submit("open-round", {"game": "seven-card-stud", "jurisdiction": "NJ", "seats": seats,
                                  "table": {"ante": 0, "bring_in": 100, "small_bet": 200, "big_bet": 400}},
                   D)  # fmt: skip
    for _ in range(300):  # bounded: 7 streets of at most 8 players' actions
        view = service.round_view(OBS)
        assert view is not None
        if view["closed"]:
            break
        step = view["next_card"]
        if step is not None:
            service.submit("reshuffle-burns" if step["target"] == "reshuffle" else "deal", {}, D)
            continue
        legal = [a for a in view["legal_actions"] if a["action"] in ("check", "call", "bring-in")]
        choice = (legal or view["legal_actions"])[0]
        service.submit("stud-action", {"seat": choice["seat"], "action": choice["action"]}, D)
    assert {("decision", "reshuffle-burns"), ("settlement", "seven-card-stud")} <= _fits(table)


# -- what does not fit is refused, naming the kind and the field --------------------------------------------


def _stack_record() -> dict[str, Any]:
    return {"type": "StackRecord", "seat": 1, "number": 1, "cards": ["As", "Kd"], "rule": "NY", "kind": "stack"}


RESUMED = {"type": "ResumeRecord", "to": "dealing-stacks", "rule": "x", "kind": "resumed"}
STACK_DEALT = {"action": "stack-dealt", "record": _stack_record(), "seat": 1, "number": 1, "dispense_id": 3,
               "known_dispense_id": 3}  # fmt: skip


@pytest.mark.parametrize(
    ("kind", "data", "named"),
    [
        ("decision", {**STACK_DEALT, "seat": "1"}, r"'decision' entry \(action 'stack-dealt'\).*\$\.seat"),
        ("decision", {**STACK_DEALT, "seat": True}, r"\$\.seat"),
        ("decision", {**STACK_DEALT, "surprise": 1}, r"unknown field `surprise`"),
        ("decision", {**STACK_DEALT, "action": "stack-delt"}, r"'stack-delt'.*\$\.action"),
        ("decision", {k: v for k, v in STACK_DEALT.items() if k != "action"}, r"required field `action`"),
        ("decision", {**STACK_DEALT, "record": {**_stack_record(), "type": "RevealRecord"}}, r"\$\.record"),
        ("decision", {**STACK_DEALT, "record": {**_stack_record(), "cards": ["Zz"]}}, r"\$\.record"),
        ("decision", {**STACK_DEALT, "record": RESUMED}, r"\$\.record is a ResumeRecord, not one of StackRecord"),
        ("irregularity", {"action": "void", "cause": "gremlins", "detail": ""}, r"'irregularity'.*\$\.cause"),
        ("card", {"target": "seat", "seat": 1, "index": 1, "dispense_id": 1, "position": 1, "card": ["As"],
                  "face": "down", "status": "ok"}, r"'card' entry.*\$\.card"),
        ("round-closed", {"outcome": "complete", "seats": {"1": {"outcome": "win", "net": float("nan")}}},
         r"'round-closed'.*\$\.seats"),
        ("link", {"event": "lost", "reason": "unplugged", "known_dispense_id": "7"}, r"\$\.known_dispense_id"),
        ("technician", {"action": "verify-journal", "ok": "yes", "checked": 1, "first_bad_seq": None,
                        "problem": None}, r"\$\.ok"),
        ("gossip", {}, r"unknown entry kind 'gossip'"),
    ],
)  # fmt: skip
def test_a_payload_that_does_not_fit_is_refused_naming_the_kind_and_field(
    kind: str, data: dict[str, Any], named: str
) -> None:
    with pytest.raises(JournalDataError, match=named):
        check_entry(kind, data)


def test_data_that_is_not_a_mapping_is_refused() -> None:
    with pytest.raises(JournalDataError, match="'card' entry's data must be a mapping, not list"):
        check_entry("card", ["As"])  # type: ignore[arg-type]


def test_known_dispense_id_is_read_only_from_payloads_that_declare_it() -> None:
    assert known_dispense_id("decision", STACK_DEALT) == 3
    assert known_dispense_id("decision", {"action": "stack-for-seat", "known_dispense_id": 99}) is None
    assert known_dispense_id("round-opened", {"game": "mississippi-stud", "known_dispense_id": 99}) is None
    assert known_dispense_id("reveal", {"known_dispense_id": 99}) is None
    assert known_dispense_id("gossip", {"known_dispense_id": 99}) is None
    assert known_dispense_id("link", {"event": "lost", "known_dispense_id": True}) is None
    declared = {(k.value, s) for k, s in en.KNOWN_DISPENSE_ID}
    assert declared == {("card", None), ("decision", "stack-dealt"), ("irregularity", "void"),
                        ("irregularity", "unjournaled-dispense"), ("link", "lost"), ("link", "resynced"),
                        ("fault", "raised"), ("fault", "cleared"), ("fault", "alarm"),
                        ("technician", "maintenance-dispense"), ("service", "start"), ("service", "stop")}  # fmt: skip


# -- the enums are the service's vocabulary -----------------------------------------------------------------


def _service_literals() -> tuple[set[str], set[str]]:
    """The kinds the service's code appends and the sub-action values it writes, read from its source:
    ``append("kind", ...)``, ``{"action": "x"}``, ``{"event": "x"}``, ``action="x"``, ``_simple(desk, "x")``."""
    kinds: set[str] = set()
    subs: set[str] = set()
    for path in (ROOT / "shoe" / "service").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                name, args = node.func.attr, node.args
                if name == "append" and args and isinstance(args[0], ast.Constant) and len(args) == 3:
                    kinds.add(str(args[0].value))
                if name == "_simple" and len(args) > 1 and isinstance(args[1], ast.Constant):
                    subs.add(str(args[1].value))
                subs |= {str(k.value.value) for k in node.keywords
                         if k.arg == "action" and isinstance(k.value, ast.Constant)}  # fmt: skip
            if isinstance(node, ast.Dict):
                for k, v in zip(node.keys, node.values, strict=True):
                    if isinstance(k, ast.Constant) and k.value in ("action", "event") and isinstance(v, ast.Constant):
                        subs.add(str(v.value))
    return kinds, subs


def test_every_kind_and_sub_action_the_service_writes_is_in_the_enums() -> None:
    kinds, subs = _service_literals()
    assert len(kinds) >= 8 and kinds <= {k.value for k in EntryKind}, sorted(kinds - {k.value for k in EntryKind})
    values = {m.value for enum in SUBS for m in enum}
    assert len(subs) >= 20 and subs <= values, sorted(subs - values)


def test_each_sub_action_enum_has_exactly_one_payload_type() -> None:
    types = payload_types()
    kinds = ("decision", "irregularity", "link", "fault", "technician", "service", "deck", "people", "approval")
    for enum, kind in zip(SUBS, kinds, strict=True):
        assert {s for k, s in types if k == kind} == {m.value for m in enum}, kind
    assert {k for k, _ in types} == set(EntryKind)


def test_the_record_tags_payloads_name_are_the_codecs() -> None:
    named = {tag for cls in payload_types().values() for tag in cls.RECORDS}
    assert named <= set(tagged_types()), named - set(tagged_types())


def _fields(cls: type[Any]) -> tuple[msgspec.inspect.Field, ...]:
    info = msgspec.inspect.type_info(cls)
    assert isinstance(info, msgspec.inspect.StructType)
    return info.fields


def test_card_statuses_are_the_read_statuses() -> None:
    status = next(f for f in _fields(CardEntry) if f.name == "status")
    assert isinstance(status.type, msgspec.inspect.LiteralType)
    assert set(status.type.values) == {s.name.lower() for s in ReadStatus}


NEVER_SHOWN = {("service", "start", "new_journal"), ("irregularity", "void", "alarm"),
               ("irregularity", "void", "dispense_id"), ("irregularity", "unjournaled-dispense", "cards"),
               ("irregularity", "unjournaled-dispense", "dispense_id")}  # fmt: skip
"""Payload fields no allow-list ever declared before each field declared its own rule: never shown, to any role;
whether one may show is the secrecy allow-list's decision, not this schema's."""


def test_the_visibility_allow_list_is_every_kind_and_exactly_its_payload_fields() -> None:
    assert set(PAYLOADS) == set(EntryKind)
    fields: dict[str, set[str]] = {}
    for (kind, sub), cls in payload_types().items():
        tag = cls.__struct_config__.tag_field
        names = {f.name for f in _fields(cls)} | ({tag} if tag else set())
        fields.setdefault(kind, set()).update(names)
        never = {(kind.value, sub, n) for n in names if PAYLOADS[kind].fields[n].moment is Moment.NEVER}
        assert never & NEVER_SHOWN == {x for x in NEVER_SHOWN if x[:2] == (kind.value, sub)}
    assert {kind: set(v.fields) for kind, v in PAYLOADS.items()} == fields
