"""The deck cycle's state machine (shoe.service.deck.cycle): journal before state, restarts, the gate.

Unit tests drive ``DeckCycle`` with a journal sink whose append fails (the state must not move); the
rest run a real ``TableService`` on the emulated shoe in process (real SQLite journal).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from drivers.emulator.deck import DeckLoad
from protocols import messages as m
from protocols.cards import ALL_CODES
from shoe.journal import JournalDataError
from shoe.service import ServiceError
from shoe.service.config.settings import ServiceConfig
from shoe.service.deck.cycle import DeckCycle
from shoe.service.deck.states import DeckState
from shoe.service.errors import ErrorKind
from shoe.service.snapshots import Snapshots
from tests.service.conftest import OBS, D, T, Table
from tests.service.recovery_support import pty_table_at

NY = {"game": "mississippi-stud", "jurisdiction": "NY", "seats": [{"seat": 1, "ante": 500}]}


# -- the state machine alone, its journal failing ---------------------------------------------------------


class FailingSink:
    """A journal sink that commits (and shows the fold) until ``fail`` is set, then refuses every entry."""

    def __init__(self) -> None:
        self.observers: list[Callable[..., list[dict[str, Any]]]] = []
        self.fail = False
        self.entries: list[tuple[str, Mapping[str, Any]]] = []

    def append(self, kind: str, data: dict[str, Any], round_id: str | None) -> int:
        if self.fail:
            raise JournalDataError(f"injected: the journal cannot record this {kind} entry; nothing was written")
        self.entries.append((kind, data))
        for observe in self.observers:
            observe(kind, data, round_id, "2026-12-01T12:00:00.000000Z")
        return len(self.entries)


class FakeClient:
    def __init__(self, report: m.DeckReport, remaining: int = 52) -> None:
        self.report, self.remaining = report, remaining
        self.identity = SimpleNamespace(capabilities=0x0040)

    def deck_check(self) -> m.DeckReport:
        return self.report

    def status(self, *, confirm: bool = False) -> Any:
        return SimpleNamespace(cards_remaining=self.remaining)


FULL = m.DeckReport(52, tuple(ALL_CODES), (), 0, "red", ())


def cycle(report: m.DeckReport = FULL, **config: Any) -> tuple[DeckCycle, FailingSink, list[str]]:
    sink, client, voided = FailingSink(), FakeClient(report), []
    supervisor = SimpleNamespace(client=client, transport=None, shoe=lambda: client)
    deck = DeckCycle(replace(ServiceConfig(), **config), sink, supervisor, Snapshots(link="up"),  # type: ignore[arg-type]
                     live=lambda: False, void=voided.append, drain=lambda: None)  # fmt: skip
    return deck, sink, voided


def test_a_load_the_journal_refuses_leaves_the_deck_awaiting() -> None:
    deck, sink, _ = cycle()
    sink.append("deck", {"event": "released", "count": 0, "who": "dealer"}, None)
    assert deck.state is DeckState.AWAITING
    sink.fail = True
    with pytest.raises(JournalDataError):
        deck.on_loaded(m.DeckLoaded(1, 52, "red"))
    assert (deck.state, deck.deck_no, deck.check) == (DeckState.AWAITING, 0, None)
    sink.fail = False
    deck.on_loaded(m.DeckLoaded(2, 52, "red"))  # journaled, then checked on load
    assert (deck.state, deck.deck_no, deck.check and deck.check["ok"]) == (DeckState.CHECKED, 1, True)
    assert [d["event"] for _, d in sink.entries] == ["released", "loaded", "checked"]


def test_a_check_the_journal_refuses_leaves_the_deck_loaded() -> None:
    deck, sink, _ = cycle(check_on_load=False)
    deck.on_loaded(m.DeckLoaded(1, 52, "red"))
    assert deck.state is DeckState.LOADED
    sink.fail = True
    with pytest.raises(JournalDataError):
        deck.run_check("dealer")
    assert (deck.state, deck.check) == (DeckState.LOADED, None)
    with pytest.raises(ServiceError) as refused:
        deck.for_round()
    assert refused.value.code == "deck-not-ready" and "POST /v1/deck/check" in (refused.value.hint or "")


def test_a_refused_deck_names_its_cards_and_never_opens_a_round() -> None:
    short = m.DeckReport(51, FULL.present[1:], (), 0, "red", ())
    deck, _, _ = cycle(short)
    deck.on_loaded(m.DeckLoaded(1, 51, "red"))
    assert deck.state is DeckState.REFUSED and deck.check is not None
    assert deck.check["missing"] == [FULL.present[0]] and "51 cards, expected 52" in deck.check["problems"]
    with pytest.raises(ServiceError) as refused:
        deck.for_round()
    assert refused.value.code == "deck-not-ready" and refused.value.kind is ErrorKind.CONFLICT
    assert deck.view()["actions"] == ["check-deck", "release-stub"]


def test_backs_alternate_after_the_deck_dealt() -> None:
    deck, sink, _ = cycle(deck_backs=("red", "blue"))
    assert deck.expected_back() is None  # no deck dealt yet: any of the table's
    sink.append("round-opened", {"deck": {"deck_no": 1, "back": "red"}}, "r1")
    sink.append("decision", {"action": "stack-for-seat", "seat": 1}, "r1")
    sink.append("round-closed", {"outcome": "complete"}, "r1")
    assert (deck.state, deck.expected_back()) == (DeckState.USED, "blue")
    sink.append("deck", {"event": "released", "count": 20, "who": "dealer"}, None)
    deck.on_loaded(m.DeckLoaded(3, 52, "red"))  # FULL's back is red: the wrong one now
    assert deck.state is DeckState.REFUSED and deck.check is not None
    assert "back 'red', expected 'blue'" in deck.check["problems"]


def test_a_round_voided_before_any_stack_leaves_the_deck_checked() -> None:
    deck, sink, _ = cycle()
    deck.on_loaded(m.DeckLoaded(1, 52, "red"))
    sink.append("round-opened", {"deck": {"deck_no": 1, "back": "red"}}, "r1")
    sink.append("round-closed", {"outcome": "void"}, "r1")
    assert deck.state is DeckState.CHECKED  # no card left the shoe: the gate compares the count again
    assert deck.for_round() == (52, {"deck_no": 1, "back": "red"})


def test_cards_loaded_on_a_live_rounds_deck_void_the_round() -> None:
    deck, sink, voided = cycle()
    deck._live = lambda: True  # a round deals from the deck
    sink.append("round-opened", {"deck": {"deck_no": 1, "back": "red"}}, "r1")
    deck.on_loaded(m.DeckLoaded(4, 104, "red"))
    assert voided and "two decks are mixed" in voided[0]
    deck._round_load = lambda: True  # seven-card stud's burns reshuffled into the stub: the round's own cards
    sink.append("round-opened", {"deck": {"deck_no": 2, "back": "red"}}, "r2")
    before = len(sink.entries)
    deck.on_loaded(m.DeckLoaded(5, 9, "red"))
    assert len(sink.entries) == before and len(voided) == 1 and deck.state is DeckState.IN_PLAY


# -- through the service -------------------------------------------------------------------------------


def deck_of(service: Any) -> dict[str, Any]:
    view: dict[str, Any] = service.deck_view()
    return view


def wait_state(service: Any, state: str, timeout: float = 5.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if deck_of(service)["state"] == state:
            return deck_of(service)
        time.sleep(0.02)
    raise AssertionError(f"the deck is {deck_of(service)['state']}, not {state}")


def test_the_start_deck_is_checked_at_connect_and_again_after_a_restart(table_factory: Callable[..., Table]) -> None:
    table = table_factory()
    first = table.start()
    view = deck_of(first)
    assert (view["state"], view["deck_no"], view["count"], view["emulator"]) == ("checked", 1, 52, True)
    first.stop()
    second = table.start()  # the shoe still full: a deck may have been swapped while shoed was down
    assert (deck_of(second)["state"], deck_of(second)["deck_no"]) == ("checked", 2)
    events = [(e.data["event"], e.data["who"]) for e in table.entries(kinds=("deck",))]
    assert events == [("loaded", "status"), ("checked", "shoed")] * 2


def test_without_check_on_load_the_dealer_checks(table_factory: Callable[..., Table]) -> None:
    table = table_factory()
    table.config = replace(table.config, check_on_load=False)
    service = table.start()
    assert deck_of(service)["state"] == "loaded"
    with pytest.raises(ServiceError) as refused:
        service.submit("open-round", NY, D)
    assert refused.value.code == "deck-not-ready" and table.entries(kinds=("round-opened",)) == []
    assert service.submit("check-deck", {}, D)["state"] == "checked"
    service.submit("open-round", NY, D)
    opened = table.entries(kinds=("round-opened",))[-1].data
    assert opened["deck"] == {"deck_no": 1, "back": "red"} and opened["cards_remaining"] == 52
    assert deck_of(service)["state"] == "in-play"
    with pytest.raises(ServiceError) as live:
        service.submit("check-deck", {}, D)
    assert live.value.code == "round-live"


def test_cards_gone_since_the_check_refuse_the_round(table_factory: Callable[..., Table]) -> None:
    table = table_factory()
    service = table.start()
    service.submit("maintenance-dispense", {"stacks": 1, "size": 2}, T)  # two cards out after the check
    with pytest.raises(ServiceError) as refused:
        service.submit("open-round", NY, D)
    # the dispense unchecked the deck (journaled before the shoe moved): it is loaded, no longer checked
    assert refused.value.code == "deck-not-ready" and "the deck is loaded" in refused.value.message
    assert "holds 50 cards" in refused.value.message
    assert "POST /v1/deck/check" in (refused.value.hint or "")
    assert service.submit("check-deck", {}, D)["state"] == "refused"  # 50 cards: never dealt from


def test_the_emulators_load_action_and_its_refusals(table_factory: Callable[..., Table]) -> None:
    table = table_factory()
    service = table.start()
    with pytest.raises(ServiceError) as full:
        service.submit("load-deck", {}, D)
    assert full.value.code == "load-refused" and "release the stub" in (full.value.hint or "")
    assert service.submit("release-stub", {}, D)["count"] == 52
    with pytest.raises(ServiceError) as impossible:
        service.submit("load-deck", {"short": 30, "duplicate": 30}, D)
    assert impossible.value.kind is ErrorKind.BAD_INPUT and impossible.value.code == "impossible-deck"
    with pytest.raises(ServiceError) as seeded:
        service.submit("load-deck", {"seed": 7}, D)  # never a seed: it predicts the deck
    assert seeded.value.code == "bad-request"
    view = service.submit("load-deck", {"back": "blue"}, D)
    assert (view["state"], view["back"], view["check"]["who"]) == ("checked", "blue", "shoed")
    loaded = [e.data for e in table.entries(kinds=("deck",)) if e.data["event"] == "loaded"]
    assert loaded[-1]["who"] == "dealer" and len(loaded) == 2  # the DECK_LOADED is the action's, journaled once


def test_cards_loaded_mid_round_void_it(table_factory: Callable[..., Table]) -> None:
    table = table_factory()
    service = table.start()
    service.submit("open-round", NY, D)
    service.submit("no-more-bets", {}, D)
    table.shoe.load_deck(DeckLoad(seed=1, mid_round=True))  # the emulator's fault: a deck on top of the round's
    deadline = time.monotonic() + 5.0
    while (service.round_view(OBS) or {}).get("state") != "misdeal" and time.monotonic() < deadline:
        time.sleep(0.02)
    void = [e.data for e in table.entries(kinds=("irregularity",)) if e.data["action"] == "void"]
    assert void and void[-1]["cause"] == "foreign-card", void
    assert wait_state(service, "refused")["check"]["count"] == 104


@pytest.fixture
def pty_table(tmp_path: Path) -> Iterator[Table]:
    yield from pty_table_at(tmp_path)


def test_a_shoe_that_is_not_an_emulator_has_no_load_action(pty_table: Table) -> None:
    service = pty_table.start()
    view = deck_of(service)
    assert view["state"] == "checked" and not view["emulator"]
    service.submit("release-stub", {}, D)
    assert deck_of(service)["actions"] == []  # a dealer loads a real shoe by hand
    with pytest.raises(ServiceError) as refused:
        service.submit("load-deck", {}, D)
    assert refused.value.code == "not-an-emulator"
    pty_table.shoe.load_deck()  # the dealer's hands: the shoe reports the load (DECK_LOADED)
    assert wait_state(service, "checked")["check"]["who"] == "shoed"
    loaded = [e.data["who"] for e in pty_table.entries(kinds=("deck",)) if e.data["event"] == "loaded"]
    assert loaded == ["status", "shoe"]


def test_every_field_of_the_deck_view_is_declared(table_factory: Callable[..., Table]) -> None:
    """The view goes out through its allow-list (shoe.service.journal.visibility.VIEWS): a field added to the view but
    not declared would silently vanish, so the declared fields are exactly the view's."""
    from shoe.service.journal.visibility import VIEWS

    service = table_factory().start()
    view = deck_of(service)
    assert set(view) == set(VIEWS["deck"].fields)
    assert set(view["check"]) == set(VIEWS["deck-check"].fields)
    assert service.health()["deck"] == view
