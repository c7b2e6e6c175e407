"""Journal before state, for every action: a failed journal write changes nothing
the journal did not see.

For each of the service's actions, the action is run once to count its journal writes, then once per
write with that write failing, on a fresh table each time (real SQLite journal, emulated shoe in
process). The failure is injected into ``Journal.write`` itself (every commit, of one entry or a batch), in three ways:

- ``data``: the journal refuses the entry's data (``JournalDataError``, nothing written): the service
  stays up and rebuilds its memory from the journal;
- ``after-commit``: the entry is committed, then something else fails (a bug after the write): the
  same;
- ``disk``: the file fails (``JournalError``, nothing written): the service stops, and the restart
  rebuilds from the journal.

Each time: the reply is an error; the round view equals the round rebuilt from the journal alone; and
every stack the shoe dispensed has its cards in the journal, unless its round is void with an alarm.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from drivers.emu_transport import EmulatorTransport
from drivers.emulator import EmulatedShoe, EmulatorConfig
from shoe.journal import Entry, Journal, JournalDataError, JournalError, Pending
from shoe.service import Role, ServiceError, TableService
from shoe.service.api.registry import ACTIONS
from shoe.service.config.settings import ServiceConfig
from shoe.service.core import GAMES
from shoe.service.deck.cycle import DeckCycle
from shoe.service.errors import ErrorKind
from shoe.service.owner import Owner
from shoe.service.rounds.recovery import scan_journal
from shoe.service.rounds.run import rebuild
from shoe.service.snapshots import Snapshots, round_view
from tests.service.conftest import OBS, D, S, T, Table, deck, finish_streets

SERVICE_ACTIONS: tuple[str, ...] = tuple(a.name for a in ACTIONS)
"""Every action the service has, from the one registry of actions."""

NY = {"game": "mississippi-stud", "jurisdiction": "NY", "table": {"min_ante": 100, "max_ante": 10_000},
      "seats": [{"seat": 1, "ante": 500}, {"seat": 3, "ante": 1000}]}  # fmt: skip
PA_SIDE = {"offered": ["progressive"], "progressive_table": "B"}
PA = {"game": "mississippi-stud", "jurisdiction": "PA",
      "table": {"min_ante": 100, "max_ante": 10_000, "side": PA_SIDE},
      "seats": [{"seat": 1, "ante": 500, "side": {"progressive": 100}}, {"seat": 2, "ante": 500}]}  # fmt: skip
STUD_TABLE = {"ante": 25, "bring_in": 50, "small_bet": 100, "big_bet": 200}


def _submit(service: TableService, action: str, params: Mapping[str, Any] | None = None, role: Role = D) -> None:
    service.submit(action, dict(params or {}), role)


def _view(service: TableService) -> dict[str, Any]:
    view = service.round_view(OBS)
    assert view is not None
    return view


def _ny_streets(service: TableService, streets: int) -> None:
    """Open, deal, release the stub, then ``streets`` streets of decisions and reveals."""
    for action in ("no-more-bets", "deal", "release-stub"):
        _submit(service, action)
    for street in range(streets):
        while (seat := _view(service)["next_to_decide"]) is not None:
            _submit(service, "decide", {"seat": seat, "multiple": 1})
        if street < 3:
            _submit(service, "reveal", {"index": street + 1})


def _ny(*then: str) -> Callable[[TableService], None]:
    def setup(service: TableService) -> None:
        _submit(service, "open-round", NY)
        for action in then:
            _submit(service, action)

    return setup


def _pa(*then: tuple[str, Mapping[str, Any]]) -> Callable[[TableService], None]:
    def setup(service: TableService) -> None:
        _submit(service, "open-round", PA)
        for action, params in then:
            _submit(service, action, params)

    return setup


def _stud_to_reshuffle(service: TableService) -> None:
    """Eight players on one deck: 8 x 6 cards + 3 burns leave one card, so the burns are reshuffled (h)."""
    _submit(service, "open-round", {"game": "seven-card-stud", "seats": list(range(1, 9)), "table": STUD_TABLE})
    for _ in range(200):
        view = _view(service)
        step = view["next_card"]
        if step is not None and step.get("target") == "reshuffle":
            return
        if step is not None:
            _submit(service, "deal")
            continue
        legal = {a["action"]: a for a in view["legal_actions"]}
        choice = next(legal[k] for k in ("check", "call", "bring-in") if k in legal)
        _submit(service, "stud-action", {"seat": choice["seat"], "action": choice["action"]})
    raise AssertionError("the burns were never due for a reshuffle")


def _bring_in(service: TableService) -> dict[str, Any]:
    return {"seat": _view(service)["bring_in_seat"], "action": "bring-in"}


def _next_decision(service: TableService) -> dict[str, Any]:
    return {"seat": _view(service)["next_to_decide"], "multiple": 3}


def _settle_ready(service: TableService) -> None:
    _submit(service, "open-round", NY)
    _ny_streets(service, 4)


def _reveal_ready(service: TableService) -> None:
    _submit(service, "open-round", NY)
    _ny_streets(service, 0)
    while (seat := _view(service)["next_to_decide"]) is not None:
        _submit(service, "decide", {"seat": seat, "multiple": 1})


def _stud_dealt(service: TableService) -> None:
    _submit(service, "open-round", {"game": "seven-card-stud", "seats": [1, 2, 3], "table": STUD_TABLE})
    _submit(service, "deal")


def _nothing(service: TableService) -> None:
    pass


def _between_rounds(service: TableService) -> None:
    """A round played and voided: the stub is still in the shoe, to be released between rounds."""
    _submit(service, "open-round", NY)
    _submit(service, "void", {"cause": "other"})


def _released(service: TableService) -> None:
    """The deck the shoe started with released between rounds: the shoe is empty, awaiting a deck."""
    _submit(service, "release-stub")


@dataclass(frozen=True)
class Scenario:
    setup: Callable[[TableService], None]
    params: Callable[[TableService], Mapping[str, Any]] = field(default=lambda service: {})
    role: Role = D


SCENARIOS: dict[str, Scenario] = {
    "open-round": Scenario(_nothing, lambda s: NY),
    "no-more-bets": Scenario(_ny()),
    "lock-progressive": Scenario(_pa(("no-more-bets", {}))),
    "chip-count": Scenario(_pa(("no-more-bets", {}), ("lock-progressive", {})), lambda s: {"count": 1}),
    "deal": Scenario(_ny("no-more-bets")),
    "release-stub": Scenario(_ny("no-more-bets", "deal")),
    "decide": Scenario(_ny("no-more-bets", "deal", "release-stub"), _next_decision),
    "reveal": Scenario(_reveal_ready, lambda s: {"index": 1}),
    "settle": Scenario(_settle_ready),
    "forfeit": Scenario(  # PA's information-sharing forfeiture (NY has none)
        _pa(("no-more-bets", {}), ("lock-progressive", {}), ("chip-count", {"count": 1}), ("deal", {})),
        lambda s: {"seat": 1},
    ),
    "stud-action": Scenario(_stud_dealt, _bring_in),
    "reshuffle-burns": Scenario(_stud_to_reshuffle),
    "void": Scenario(_ny("no-more-bets", "deal"), lambda s: {"cause": "other"}),
    "load-deck": Scenario(_released),
    "check-deck": Scenario(_nothing),
    "maintenance-dispense": Scenario(_nothing, lambda s: {"stacks": 2, "size": 2}, T),
    "clear-fault": Scenario(_nothing, lambda s: {}, T),
    "verify-journal": Scenario(_nothing, lambda s: {}, T),
    "progressive-inputs": Scenario(
        _pa(("no-more-bets", {}), ("lock-progressive", {}), ("chip-count", {"count": 1})),
        lambda s: {"meters": {"mega": 100_000_000}},
        S,
    ),
}
MODES = ("data", "after-commit", "disk")


def test_every_service_action_has_a_scenario() -> None:
    assert set(SCENARIOS) == set(SERVICE_ACTIONS), "give each new action a scenario here"


# -- the table and the injected failure ----------------------------------------------------------------


class Tables:
    """Fresh tables (own folder, journal and emulated shoe) for one test; everything stopped at the end."""

    def __init__(self, root: Path) -> None:
        self.root, self.tables, self.shoes = root, [], []  # type: tuple[Path, list[Table], list[EmulatedShoe]]
        self._numbers = itertools.count(1)

    def new(self) -> Table:
        folder = self.root / f"t{next(self._numbers)}"
        folder.mkdir()
        shoe = EmulatedShoe(EmulatorConfig(deck=deck("As", "Ks", "7h", "7d", "Qs", "Js", "Ts")))
        self.shoes.append(shoe)
        table = Table(folder, shoe, lambda: EmulatorTransport(shoe), "emu://")
        self.tables.append(table)
        return table

    def close(self) -> None:
        for table in self.tables:
            for service in table.services:
                service.stop()
        for shoe in self.shoes:
            shoe.close()


@pytest.fixture
def tables(tmp_path: Path) -> Iterator[Tables]:
    made = Tables(tmp_path)
    yield made
    made.close()


class Injector:
    """Counts the entries ``Journal.write`` commits while armed (a batch of n counts n: group commit); makes the
    write holding entry number ``fail_at`` fail as ``mode`` says (the whole batch: one transaction)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, mode: str, fail_at: int | None) -> None:
        self.mode, self.fail_at, self.calls, self.armed = mode, fail_at, 0, False
        original = Journal.write

        def write(journal: Journal, batch: Sequence[Pending]) -> list[Entry]:
            if not self.armed:
                return original(journal, batch)
            before, self.calls = self.calls, self.calls + len(batch)
            if self.fail_at is None or not before < self.fail_at <= self.calls:
                return original(journal, batch)
            self.armed = False
            kind = batch[self.fail_at - before - 1].kind
            if self.mode == "data":
                raise JournalDataError(f"injected: the journal cannot record this {kind} entry; nothing was written")
            if self.mode == "disk":
                raise JournalError("injected: disk I/O error; check the disk")
            original(journal, batch)
            raise RuntimeError(f"injected: a failure after the {kind} entry committed")

        monkeypatch.setattr(Journal, "write", write)


def journal_view(path: Path, deck_actions: list[str] | None = None) -> dict[str, Any] | None:
    """The round view as the journal alone gives it: the open round, else the last one, closed (between rounds,
    of the deck's actions those ``deck_actions`` names: the deck's own state is compared by ``deck_state``)."""
    with Journal.open(path) as journal:
        facts = scan_journal(journal)
        if facts.open_round is not None:
            opened, entries, closed = facts.open_round, facts.round_entries, False
        else:
            last = journal.last("round-opened")
            if last is None:
                return None
            opened, entries, closed = last, list(journal.entries(round_id=last.round_id)), True
        run = rebuild(opened, entries, GAMES)
        run.closed = closed
        return round_view(run, deck_actions)


def deck_state(path: Path) -> str:
    """The deck's state as the journal alone gives it (``DeckCycle.rebuild``, before the shoe is asked)."""
    parts = SimpleNamespace(observers=[], transport=None, client=None)
    cycle = DeckCycle(ServiceConfig(), parts, parts, Snapshots(link="up"), live=lambda: False,  # type: ignore[arg-type]
                      void=lambda detail: None, drain=lambda: None)  # fmt: skip
    with Journal.open(path) as journal:
        cycle.rebuild(journal)
    return cycle.state.value


def unjournaled_stacks(table: Table) -> list[int]:
    """Dispense ids the shoe completed whose cards the journal lacks, outside a round voided with its cause."""
    journaled: dict[int, list[str | None]] = {}
    voided: set[int] = set()
    for entry in table.entries():
        did = entry.data.get("dispense_id")
        if entry.kind == "card" and isinstance(did, int):
            journaled.setdefault(did, []).append(entry.data.get("card"))
        elif isinstance(did, int) and isinstance(entry.data.get("cards"), list):
            journaled.setdefault(did, []).extend(entry.data["cards"])
        if entry.kind == "irregularity" and entry.data.get("action") == "void" and entry.data.get("cause"):
            known = entry.data.get("known_dispense_id")
            voided |= set(range(1, known + 1)) if isinstance(known, int) else set()
    missing = []
    for did, (_phase, _fault, reads) in table.shoe._results.items():
        moved = [r.card for r in reads]
        if sorted(map(str, journaled.get(did, []))) != sorted(map(str, moved)) and did not in voided:
            missing.append(did)
    return missing


def _resynced(service: TableService) -> None:
    """Wait for the link's resync after the start (its ``link`` entry comes from the shoe, after READY): the
    injector counts every append, so one that lands in the action's window would be taken for the action's."""
    deadline = time.monotonic() + 10.0
    while time.monotonic() < deadline:
        if any(e.get("type") == "link-resynced" for e in service.events_since(0, 0.0)[1]):
            return
        time.sleep(0.005)
    raise AssertionError("the link did not resync within 10 s of the start")


def run_case(tables: Tables, monkeypatch: pytest.MonkeyPatch, action: str, mode: str, fail_at: int | None) -> Any:
    """One fresh table, the scenario's setup, then ``action`` with journal write ``fail_at`` failing."""
    scenario = SCENARIOS[action]
    table = tables.new()
    service = table.start()
    _resynced(service)
    scenario.setup(service)
    params = scenario.params(service)
    injector = Injector(monkeypatch, mode, fail_at)
    injector.armed = True
    try:
        service.submit(action, dict(params), scenario.role)
    except ServiceError as exc:
        error: ServiceError | None = exc
    else:
        error = None
    finally:
        injector.armed = False
    return table, service, injector, error


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("action", SERVICE_ACTIONS)
def test_a_failed_journal_write_leaves_memory_equal_to_the_journal(
    tables: Tables, monkeypatch: pytest.MonkeyPatch, action: str, mode: str
) -> None:
    _, _, counted, error = run_case(tables, monkeypatch, action, mode, None)
    assert error is None, f"{action} failed with no failure injected: {error}"
    writes = counted.calls
    assert writes >= 1, f"{action} journaled nothing"
    for fail_at in range(1, writes + 1):
        table, service, injector, error = run_case(tables, monkeypatch, action, mode, fail_at)
        where = f"{action}, journal write {fail_at} of {writes} failing ({mode})"
        assert injector.calls >= fail_at and not injector.armed, f"{where}: the failure was never reached"
        assert error is not None, f"{where}: the action answered success"
        if mode == "disk":
            assert error.code == "journal-error" and error.kind == ErrorKind.UNAVAILABLE, where
            deadline = time.monotonic() + 10.0
            while service.health()["service"]["running"] and time.monotonic() < deadline:
                time.sleep(0.01)
            assert not service.health()["service"]["running"], f"{where}: the service did not stop"
            service.stop()
            service = table.start()  # the restart rebuilds from the journal
        else:
            assert service.responsive(60.0), f"{where}: the service stopped"
            expected = "unrecordable" if mode == "data" else "internal"
            assert error.code == expected, f"{where}: {error.code} {error}"
        view = service.round_view(OBS)
        json.dumps(view)  # the view can be served again
        deck = service.deck_view()
        assert deck is not None
        assert view == journal_view(table.journal, deck["actions"]), f"{where}: memory is not what the journal holds"
        if mode != "disk":  # a restart asks the shoe what it holds (journaled)
            assert deck["state"] == deck_state(table.journal), f"{where}: the deck is not what the journal holds"
        assert unjournaled_stacks(table) == [], f"{where}: the shoe moved cards the journal never saw"
        with Journal.open(table.journal) as journal:
            assert journal.verify().ok, where


def test_after_a_rebuild_the_round_plays_on(tables: Tables, monkeypatch: pytest.MonkeyPatch) -> None:
    """A card entry lost mid-deal: the stack is read back from the shoe and the round finishes normally."""
    table, service, _, error = run_case(tables, monkeypatch, "deal", "data", 2)
    assert error is not None and error.code == "unrecordable"
    view = _view(service)
    assert view["state"] != "paused", view
    if view["next_stack_seat"] is not None:
        _submit(service, "deal")
    _submit(service, "release-stub")
    finish_streets(service, {})
    closed = table.entries(kinds=("round-closed",))
    assert [e.data["outcome"] for e in closed] == ["complete"]
    cards = [e.data["card"] for e in table.entries(kinds=("card",)) if e.data["target"] == "seat"]
    assert cards == ["As", "Ks", "7h", "7d"]


def test_a_failed_journal_write_stops_the_service_at_once(tables: Tables, monkeypatch: pytest.MonkeyPatch) -> None:
    """A disk failure stops the owner after the item that met it, not at its next wake (up to ``TICK_S``
    later, answering nothing meanwhile): no wait for a command begins once the journal has failed."""
    waits_after_failure: list[float] = []
    original = Owner.next_command

    def counting(owner: Owner, longest: float) -> Any:
        if owner.killed:
            waits_after_failure.append(longest)
        return original(owner, longest)

    monkeypatch.setattr(Owner, "next_command", counting)
    _, service, _, error = run_case(tables, monkeypatch, "deal", "disk", 1)
    assert error is not None and error.code == "journal-error"
    deadline = time.monotonic() + 10.0
    while service.health()["service"]["running"] and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not service.health()["service"]["running"]
    assert waits_after_failure == []
