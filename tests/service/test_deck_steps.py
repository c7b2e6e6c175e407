"""The deck cycle's pure steps (shoe.service.deck.steps), driven without a shoe, a journal or a thread.

Each test starts from a deck state (a seed of committed entries folded in, or plain fields), feeds one
input (a command, a DECK_LOADED, a STATUS answer, a connect, a lost link) and checks what the step asked
of the world (the recording desk's calls, the journal data byte for byte) and the state it left. The
recording desk commits every append at once and folds it, as the journal sink does outside a batch.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from drivers.deck import DeckVerdict, judge
from drivers.errors import ShoeDiscrepancy, ShoeIOError, ShoeProtocolError
from protocols import messages as m
from protocols.cards import ALL_CODES
from protocols.codes import NakCode
from shoe.service.api import requests as rq
from shoe.service.deck import steps
from shoe.service.deck.intents import Log, Publish, ShoeCount, drive
from shoe.service.deck.states import DeckState
from shoe.service.errors import ErrorKind, ServiceError
from shoe.service.rounds.intents import Append, DrainResult, ReleaseStub
from tests.service.test_round_steps import FORBIDDEN

TS = "2026-12-01T12:00:00.000000Z"
FULL = m.DeckReport(52, tuple(ALL_CODES), (), 0, "red", ())
SHORT = m.DeckReport(51, tuple(ALL_CODES)[1:], (), 0, "red", ())


class RecordingDesk:
    """Answers a deck step's intents from a script and records them; appends commit (and fold) at once."""

    def __init__(self, deck: steps.Deck, *, counts: list[int | Exception | None] | None = None,
                 report: m.DeckReport | Exception = FULL) -> None:  # fmt: skip
        self.deck = deck
        self.counts = list(counts or [])  # STATUS answers, in order (an exception is raised)
        self.report = report
        self.entries: list[tuple[str, dict[str, Any]]] = []
        self.calls: list[str] = []
        self.alarms: list[tuple[str, str]] = []
        self.voided: list[str] = []
        self.link_up = True
        self.loaded: tuple[int | None, str] | Exception = (52, "red")  # the emulator's answer to a load
        self.during_wait: Callable[[], None] = lambda: None  # what arrives while a load's DECK_LOADED is awaited

    def append(self, kind: str, data: dict[str, Any], round_id: str | None) -> int:
        self.calls.append("append")
        self.entries.append((kind, data))
        self.deck.note(kind, data, TS)
        return len(self.entries)

    def drain(self) -> DrainResult:
        self.calls.append("drain")
        return DrainResult(link_up=self.link_up)

    def raise_alarm(self, cause: str, detail: str, *, dispense_id: int | None = None,
                    unjournaled: int | None = None) -> None:  # fmt: skip
        self.calls.append("alarm")
        self.alarms.append((cause, detail))

    def release_stub(self) -> int:
        self.calls.append("release")
        return 31

    def shoe_count(self, confirm: bool) -> int | None:
        self.calls.append("status!" if confirm else "status")
        answer = self.counts.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    def check_deck(self, back: str | None) -> DeckVerdict:
        self.calls.append(f"check:{back}")
        if isinstance(self.report, Exception):
            raise self.report
        return judge(self.report, back=back)

    def load_emulator(self, request: rq.LoadDeck, expected_back: str | None) -> tuple[int | None, str]:
        self.calls.append("load")
        if isinstance(self.loaded, Exception):
            raise self.loaded
        return self.loaded

    def load_mid_round(self, codes: tuple[str, ...], back: str | None) -> bool:
        self.calls.append("load-on-top")
        return True

    def await_loaded(self, before: int, round_load: bool) -> bool:
        self.calls.append("await")
        self.during_wait()
        return self.link_up

    def void(self, detail: str) -> None:
        self.calls.append("void")
        self.voided.append(detail)

    def publish(self) -> None:
        self.calls.append("publish")

    def log(self, level: str, event: str, fields: Mapping[str, Any]) -> None:
        self.calls.append(f"log:{level}")


def seeded(*entries: tuple[str, dict[str, Any]], **fields: Any) -> steps.Deck:
    """A deck state from committed entries folded in order (as a restart's rebuild does)."""
    deck = steps.Deck(**fields)
    for kind, data in entries:
        deck.note(kind, data, TS)
    return deck


LOADED = ("deck", {"event": "loaded", "deck_no": 3, "count": 52, "back": "red", "who": "shoe"})
CHECKED = ("deck", {"event": "checked", "deck_no": 3, "ok": True, "count": 52, "back": "red", "expected_back": None,
                    "missing": [], "extra": 0, "duplicates": [], "foreign": [], "unreadable": 0,
                    "checked_faces": True, "problems": [], "who": "shoed"})  # fmt: skip
RELEASED = ("deck", {"event": "released", "count": 0, "who": "dealer"})


def checked_data(deck_no: int, who: str, **changes: Any) -> dict[str, Any]:
    data = {"event": "checked", "deck_no": deck_no, "ok": True, "count": 52, "back": "red", "expected_back": None,
            "missing": [], "extra": 0, "duplicates": [], "foreign": [], "unreadable": 0, "checked_faces": True,
            "problems": [], "who": who}  # fmt: skip
    return {**data, **changes}


# -- load --------------------------------------------------------------------------------------------------


def test_a_load_accepted_is_journaled_by_its_deck_loaded_with_the_dealer_and_checked() -> None:
    deck = seeded(LOADED, CHECKED, RELEASED)
    desk = RecordingDesk(deck)
    # the emulator's DECK_LOADED arrives while the load waits for it: the event's own step
    desk.during_wait = lambda: drive(steps.on_loaded(deck, 52, "red", connected=True, live=False,
                                                     round_load=False), desk)  # fmt: skip
    drive(steps.load(deck, rq.LoadDeck(), "dealer"), desk)
    assert desk.entries == [
        ("deck", {"event": "loaded", "deck_no": 4, "count": 52, "back": "red", "who": "dealer"}),
        ("deck", checked_data(4, "shoed")),
    ]
    assert desk.calls == ["load", "await", "append", "log:info", "check:None", "append", "log:info"]
    assert (deck.state, deck.deck_no, deck.loading_by) == (DeckState.CHECKED, 4, None)


def test_a_load_whose_deck_loaded_never_comes_is_journaled_from_the_emulators_answer() -> None:
    deck = seeded(RELEASED, check_on_load=False)
    desk = RecordingDesk(deck)
    desk.loaded = (50, "blue")
    drive(steps.load(deck, rq.LoadDeck(back="blue"), "dealer"), desk)
    assert desk.entries == [("deck", {"event": "loaded", "deck_no": 1, "count": 50, "back": "blue", "who": "dealer"})]
    assert deck.state is DeckState.LOADED and deck.count == 50 and "check:None" not in desk.calls


def test_a_load_the_emulator_refuses_journals_nothing_and_forgets_who_loaded() -> None:
    deck = seeded(RELEASED)
    desk = RecordingDesk(deck)
    desk.loaded = ServiceError("load-refused", "the emulator refused the load: its stub is in", hint="release")
    with pytest.raises(ServiceError) as refused:
        drive(steps.load(deck, rq.LoadDeck(), "dealer"), desk)
    assert refused.value.code == "load-refused"
    assert desk.entries == [] and desk.calls == ["load"]
    assert (deck.state, deck.loading_by) == (DeckState.AWAITING, None)
    # a DECK_LOADED after the refusal is the shoe's, not the dealer's
    drive(steps.on_loaded(deck, 52, "red", connected=True, live=False, round_load=False), desk)
    assert desk.entries[0][1]["who"] == "shoe"


def test_the_link_lost_mid_load_journals_the_load_unchecked_and_asks_the_shoe_again_at_connect() -> None:
    deck = seeded(RELEASED, stale=False)
    desk = RecordingDesk(deck, counts=[52])

    def lost() -> None:  # the link drops while the load waits: no DECK_LOADED, the shoe is not connected
        desk.link_up = False
        steps.link_lost(deck)

    desk.during_wait = lost
    drive(steps.load(deck, rq.LoadDeck(), "dealer"), desk)
    assert desk.entries == [("deck", {"event": "loaded", "deck_no": 1, "count": 52, "back": "red", "who": "dealer"})]
    assert not any(call.startswith("check") for call in desk.calls)  # never a check on an unconnected shoe
    assert deck.state is DeckState.LOADED and deck.stale
    # back up: the cards found are a load again (a deck may have been swapped meanwhile), then checked
    desk.link_up = True
    drive(steps.on_connect(deck, connected=True, live=False, status_count=52), desk)
    assert [d["event"] for _, d in desk.entries] == ["loaded", "loaded", "checked"]
    assert desk.entries[1][1] == {"event": "loaded", "deck_no": 2, "count": 52, "back": "", "who": "status"}
    assert (deck.state, deck.deck_no, deck.stale, deck.absorb) == (DeckState.CHECKED, 2, False, 52)
    # the event log then repeats that load: absorbed, nothing journaled
    drive(steps.on_loaded(deck, 52, "red", connected=True, live=False, round_load=False), desk)
    assert len(desk.entries) == 3 and deck.absorb is None


def test_a_connect_to_an_empty_shoe_awaits_a_deck_without_an_entry() -> None:
    deck = seeded(LOADED, CHECKED)
    desk = RecordingDesk(deck)
    drive(steps.on_connect(deck, connected=True, live=False, status_count=0), desk)
    assert desk.entries == [] and desk.calls == ["publish"]
    assert (deck.state, deck.count, deck.check) == (DeckState.AWAITING, 0, None)
    drive(steps.on_connect(deck, connected=True, live=False, status_count=52), desk)
    assert desk.calls == ["publish"]  # asked once per connect: not stale any more


# -- check --------------------------------------------------------------------------------------------------


def test_a_check_journals_its_verdict_against_the_back_the_alternation_expects() -> None:
    opened = ("round-opened", {"deck": {"deck_no": 2, "back": "blue"}})
    deck = seeded(opened, RELEASED, LOADED, backs=("red", "blue"), check_on_load=False)
    assert deck.state is DeckState.LOADED and deck.expected_back() == "red"
    desk = RecordingDesk(deck)
    drive(steps.run_check(deck, "dealer"), desk)
    assert desk.entries == [("deck", checked_data(3, "dealer", expected_back="red"))]
    assert desk.calls == ["check:red", "append", "log:info"]
    assert (deck.state, (deck.check or {}).get("at")) == (DeckState.CHECKED, TS)


def test_a_short_deck_is_refused_and_names_its_missing_card() -> None:
    deck = seeded(LOADED)
    desk = RecordingDesk(deck, report=SHORT)
    drive(steps.run_check(deck, "dealer"), desk)
    data = desk.entries[0][1]
    assert (data["ok"], data["count"], data["missing"]) == (False, 51, [ALL_CODES[0]])
    assert data["problems"] == ["51 cards, expected 52", f"missing {ALL_CODES[0]}"]
    assert deck.state is DeckState.REFUSED
    with pytest.raises(ServiceError) as refused:
        drive(steps.for_round(deck), RecordingDesk(deck, counts=[51]))
    assert refused.value.code == "deck-not-ready" and "51 cards, expected 52" in str(refused.value)


def test_a_back_not_the_tables_is_refused_when_any_back_is_expected() -> None:
    deck = seeded(LOADED, backs=("green", "blue"))
    desk = RecordingDesk(deck)
    drive(steps.run_check(deck, "dealer"), desk)
    data = desk.entries[0][1]
    assert data["ok"] is False and data["problems"] == ["back 'red' is not one of the table's (green, blue)"]


def test_a_check_the_shoe_refuses_now_is_a_conflict_and_journals_nothing() -> None:
    deck = seeded(LOADED)
    desk = RecordingDesk(deck, report=ShoeProtocolError("NAK BAD_STATE", nak=NakCode.BAD_STATE))
    with pytest.raises(ServiceError) as refused:
        drive(steps.run_check(deck, "dealer"), desk)
    assert (refused.value.code, refused.value.kind) == ("deck-check-refused", ErrorKind.CONFLICT)
    assert desk.entries == [] and deck.state is DeckState.LOADED


def test_a_check_of_an_empty_shoe_is_refused_and_of_an_unjournaled_load_journals_it_first() -> None:
    deck = seeded(RELEASED)
    with pytest.raises(ServiceError) as refused:
        drive(steps.run_check(deck, "dealer"), RecordingDesk(deck, counts=[0]))
    assert refused.value.code == "deck-not-ready"
    desk = RecordingDesk(deck, counts=[52])
    drive(steps.run_check(deck, "dealer"), desk)
    assert [d["event"] for _, d in desk.entries] == ["loaded", "checked"]
    assert desk.entries[0][1]["who"] == "status" and deck.state is DeckState.CHECKED


def test_an_automatic_check_that_fails_on_the_link_leaves_the_deck_loaded_and_logs_a_warning() -> None:
    deck = seeded(RELEASED)
    desk = RecordingDesk(deck, report=ShoeIOError("the link dropped"))
    drive(steps.on_loaded(deck, 52, "red", connected=True, live=False, round_load=False), desk)
    assert [d["event"] for _, d in desk.entries] == ["loaded"]
    assert deck.state is DeckState.LOADED and desk.calls[-1] == "log:warning"


# -- release ------------------------------------------------------------------------------------------------


def test_release_asks_the_shoe_first_then_journals_the_count_it_presented() -> None:
    step = steps.release("dealer")  # plain calls: the intents in order, nothing else happens
    assert next(step) == ReleaseStub()
    assert step.send(31) == Append("deck", {"event": "released", "count": 31, "who": "dealer"}, None)
    with pytest.raises(StopIteration) as done:
        step.send(7)
    assert done.value.value == {"count": 31}
    deck = seeded(LOADED, CHECKED)
    drive(steps.release("dealer"), RecordingDesk(deck))
    assert (deck.state, deck.count, deck.check) == (DeckState.AWAITING, 0, None)


# -- DECK_LOADED while a round is open ----------------------------------------------------------------------


def test_cards_loaded_on_the_live_rounds_deck_void_the_round_and_are_a_new_deck() -> None:
    deck = seeded(LOADED, CHECKED, ("round-opened", {"deck": {"deck_no": 3, "back": "red"}}))
    assert deck.state is DeckState.IN_PLAY
    desk = RecordingDesk(deck, report=SHORT)
    drive(steps.on_loaded(deck, 30, "red", connected=True, live=True, round_load=False), desk)
    assert desk.voided == ["cards were loaded while the round's deck was still in the shoe: two decks are mixed"]
    assert desk.calls.index("void") > desk.calls.index("append")  # journaled before the round is voided
    assert desk.entries[0] == ("deck", {"event": "loaded", "deck_no": 4, "count": 30, "back": "red", "who": "shoe"})
    assert (deck.deck_no, deck.state) == (4, DeckState.REFUSED)  # checked on load: not one deck


def test_cards_the_round_expects_are_the_rounds_and_journal_nothing() -> None:
    deck = seeded(LOADED, CHECKED, ("round-opened", {"deck": {"deck_no": 3, "back": "red"}}))
    desk = RecordingDesk(deck)
    desk.during_wait = lambda: drive(steps.on_loaded(deck, 5, "red", connected=True, live=True,
                                                     round_load=True), desk)  # fmt: skip
    assert drive(steps.load_on_top(deck, ["AS", "KD"]), desk) is True
    assert desk.entries == [] and desk.voided == []
    assert (deck.state, deck.count, deck.deck_no) == (DeckState.IN_PLAY, 5, 3)


def test_cards_loaded_on_top_that_never_report_are_not_the_rounds() -> None:
    deck = seeded(LOADED, CHECKED, ("round-opened", {"deck": {"deck_no": 3, "back": "red"}}), round_loaded=True)
    assert drive(steps.load_on_top(deck, ["AS"]), RecordingDesk(deck)) is False


# -- STATUS against the journal -----------------------------------------------------------------------------


def test_a_status_count_other_than_the_checked_decks_unchecks_it_and_the_gate_refuses() -> None:
    deck = seeded(LOADED, CHECKED)
    desk = RecordingDesk(deck)
    drive(steps.on_status(deck, 50, connected=True, live=False, deck_loaded_events=True), desk)
    assert desk.entries == [("deck", {"event": "unchecked", "deck_no": 3, "cause": "count-differs", "count": 52,
                                      "who": "status"})]  # fmt: skip
    assert (deck.state, deck.count, deck.check) == (DeckState.LOADED, 50, None)
    assert "publish" in desk.calls
    with pytest.raises(ServiceError) as refused:
        drive(steps.for_round(deck), RecordingDesk(deck, counts=[50]))
    assert refused.value.code == "deck-not-ready" and "the shoe holds 50 cards" in str(refused.value)


def test_a_status_count_during_a_round_changes_nothing() -> None:
    deck = seeded(LOADED, CHECKED, ("round-opened", {"deck": {"deck_no": 3, "back": "red"}}))
    desk = RecordingDesk(deck)
    drive(steps.on_status(deck, 40, connected=True, live=True, deck_loaded_events=True), desk)
    assert desk.calls == [] and deck.count == 52


def test_an_older_shoes_load_is_seen_by_status_and_checked() -> None:
    deck = seeded(RELEASED)
    desk = RecordingDesk(deck)
    drive(steps.on_status(deck, 52, connected=True, live=False, deck_loaded_events=False), desk)
    assert [(d["event"], d["who"]) for _, d in desk.entries] == [("loaded", "status"), ("checked", "shoed")]
    desk2 = RecordingDesk(seeded(RELEASED))
    drive(steps.on_status(desk2.deck, 52, connected=True, live=False, deck_loaded_events=True), desk2)
    assert desk2.entries == []  # a shoe that reports its loads: its DECK_LOADED is on its way


def test_the_gate_confirms_the_checked_count_and_refuses_another() -> None:
    deck = seeded(LOADED, CHECKED)
    assert drive(steps.for_round(deck), RecordingDesk(deck, counts=[52])) == (52, {"deck_no": 3, "back": "red"})
    desk = RecordingDesk(deck, counts=[51])
    with pytest.raises(ServiceError) as refused:
        drive(steps.for_round(deck), desk)
    assert str(refused.value) == "the shoe holds 51 cards, the deck check counted 52"
    assert refused.value.code == "deck-not-ready" and deck.count == 51 and desk.calls == ["drain", "status!"]


def test_the_gate_raises_an_alarm_when_the_shoe_contradicts_its_count() -> None:
    deck = seeded(LOADED, CHECKED)
    desk = RecordingDesk(deck, counts=[ShoeDiscrepancy("counters-mismatch", "52 then 50")])
    with pytest.raises(ServiceError) as refused:
        drive(steps.for_round(deck), desk)
    assert refused.value.code == "shoe-discrepancy" and desk.alarms == [("counters-mismatch", "52 then 50")]


def test_the_gate_refuses_an_unreachable_shoe_before_asking_it() -> None:
    deck = seeded(LOADED, CHECKED)
    desk = RecordingDesk(deck)
    desk.link_up = False
    with pytest.raises(ServiceError) as refused:
        drive(steps.for_round(deck), desk)
    assert refused.value.code == "shoe-unavailable" and desk.calls == ["drain"]


def test_steps_yield_only_their_intents_and_never_wait() -> None:
    """A step is a plain generator: the intents come out one at a time, nothing runs between them."""
    deck = seeded(LOADED, CHECKED)
    step = steps.on_status(deck, 50, connected=True, live=False, deck_loaded_events=True)
    first = next(step)
    assert isinstance(first, Append) and first.data["event"] == "unchecked"
    assert deck.state is DeckState.CHECKED  # nothing committed yet: the fold has not seen it
    deck.note(first.kind, first.data, TS)
    assert isinstance(step.send(1), Log)
    assert step.send(None) == Publish()
    with pytest.raises(StopIteration):
        step.send(None)
    gate = steps.for_round(seeded(RELEASED))
    next(gate)
    assert gate.send(DrainResult()) == ShoeCount()
    assert gate.send(0) == ShoeCount()  # an empty shoe: no wait for a DECK_LOADED, the count for the refusal
    with pytest.raises(ServiceError) as refused:
        gate.send(0)
    assert str(refused.value) == (
        "the deck is awaiting-deck, the shoe holds 0 cards: a round opens only on a checked deck"
    )


def test_the_deck_step_modules_import_no_clock_thread_socket_store_or_log() -> None:
    """The steps and their intents are pure (the adapter, ``cycle.py``, is the edge): checked on their imports."""
    deck_dir = Path(steps.__file__).parent
    forbidden = (*FORBIDDEN, "logging", "structlog", "drivers.deck")  # drivers.deck: only its types, for mypy
    found = {}
    for name in ("steps.py", "intents.py", "states.py", "payloads.py"):
        tree = ast.parse((deck_dir / name).read_text(encoding="utf-8"))
        runtime = [node for node in tree.body if not (isinstance(node, ast.If) and "TYPE_CHECKING" in ast.dump(node))]
        imported = {alias.name for top in runtime for node in ast.walk(top) if isinstance(node, ast.Import)
                    for alias in node.names}  # fmt: skip
        imported |= {node.module or "" for top in runtime for node in ast.walk(top) if isinstance(node, ast.ImportFrom)}
        bad = sorted(m for m in imported if any(m == f or m.startswith(f + ".") for f in forbidden))
        if bad:
            found[name] = bad
    assert found == {}
