"""A round voided with something in doubt names it in an alarm, in its own journal, before it closes; and
reconciliation never adopts in silence a shoe that completed stacks the journal does not name.

bench/sim found both: a round whose community card's SCAN was journaled as about to happen and never
answered (a power cut right after that entry), where the reader left no card the dealer could enter, was
refused ``scan-in-doubt`` for ever; and a round whose deal failed between a dispense and its entries (a
full disk), whose reconciliation then failed too (the link), was voided by the dealer while paused: the
two cards the shoe had moved were in no entry and no alarm, and the next reconciliation took the shoe's
last dispense id as known.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import msgspec

from protocols import messages as m
from protocols.codes import DispensePhase, ShoeState
from protocols.fields import CardRead
from shoe.service.api import requests as rq
from shoe.service.rounds.intents import drive
from shoe.service.rounds.recovery import reconcile
from tests.service.test_round_steps import RecordingDesk, _deck, _paused_with_a_stack_announced, _to_third_street


def _appended(desk: RecordingDesk) -> list[tuple[str, dict[str, Any]]]:
    return [(args[0], msgspec.json.decode(args[1])) for name, args in desk.calls if name == "append"]


def test_a_scan_in_doubt_nobody_can_name_is_a_misdeal_with_the_stub_alarmed_before_the_close() -> None:
    desk = RecordingDesk(_deck(7))
    run = _to_third_street(desk)
    run.note("decision", {"action": "scan-for-community", "community_index": 1})  # rebuilt: SCAN journaled, no card
    desk.calls.clear()
    drive(run.act("void", rq.Void(cause="unreadable-card"), b"\x01" * 16), desk)
    assert run.terminal
    alarms = [args for name, args in desk.calls if name == "alarm"]
    assert [cause for cause, *_ in alarms] == ["scan-in-doubt"]
    assert "community card 1" in alarms[0][1] and "stub" in alarms[0][1]
    order = [name if name == "alarm" else msgspec.json.decode(args[1]).get("action") for name, args in desk.calls]
    assert order.index("alarm") < order.index("void")  # named before the round's void (and so its close)
    assert [name for name, _ in desk.calls].count("scan") == 0  # the shoe was not asked again


def test_a_round_voided_with_an_announced_stack_unrecorded_alarms_that_stack() -> None:
    run, desk = _paused_with_a_stack_announced()
    drive(run.act("void", rq.Void(cause="other"), b""), desk)
    assert run.terminal
    alarms = [args for name, args in desk.calls if name == "alarm"]
    assert [cause for cause, *_ in alarms] == ["stack-in-doubt"]
    assert "stack 1 for seat 1" in alarms[0][1]
    assert [data.get("action") for kind, data in _appended(desk)] == ["void"]


def test_a_round_voided_with_nothing_in_doubt_raises_no_alarm() -> None:
    desk = RecordingDesk(_deck(7))
    run = _to_third_street(desk)
    desk.calls.clear()
    drive(run.act("void", rq.Void(cause="other"), b""), desk)
    assert run.terminal and [name for name, _ in desk.calls if name == "alarm"] == []


class AheadShoe:
    """A shoe whose last completed dispense (3) is beyond the journal's known (1); stacks of two cards."""

    timeouts = SimpleNamespace(dispense=lambda n: 0.0)
    identity = SimpleNamespace(serial="REC0001")

    def status(self) -> m.Status:
        return m.Status(ShoeState.IDLE, 0, 46, 3, 0, 9, 1, False, False)

    def query_dispense(self, dispense_id: int) -> m.DispenseReport:
        return m.DispenseReport(dispense_id, DispensePhase.COMPLETE, True, 0, (CardRead("As"), CardRead("Kd")))


class KnowingDesk(RecordingDesk):
    known_dispense_id = 1


def test_reconciling_with_no_live_round_alarms_each_stack_the_journal_never_named() -> None:
    desk = KnowingDesk(_deck(7))
    decision = reconcile(desk, None, AheadShoe())  # type: ignore[arg-type]
    assert decision == "stacks-alarmed"
    alarms = [args for name, args in desk.calls if name == "alarm"]
    assert [(cause, did, unjournaled) for cause, _, did, unjournaled in alarms] == [
        ("stack-unjournaled", 2, 2), ("stack-unjournaled", 3, 2)
    ]  # fmt: skip
    assert desk.known_dispense_id == 3


def test_reconciling_counts_the_shoes_cards_against_the_rounds_journal_before_it_resumes() -> None:
    """A card the mechanism moved without reporting it (its alarm lost with a power cut): the stack read back
    holds two cards, but the shoe holds three fewer than at the opening. Old code: resumed."""
    from shoe.service.rounds.reconcile import ShoeFacts, Verdict, reconcile_step

    run, desk = _paused_with_a_stack_announced()
    at_open = run.shoe_count_at_open()
    assert at_open == 52
    cards = (CardRead("As"), CardRead("Kd"))
    facts = ShoeFacts("REC0001", 1, stub_released=False, stack=cards, moved={1: 2}, cards_remaining=at_open - 3)
    verdict = drive(reconcile_step(run, facts, known=0), desk)
    assert verdict == Verdict("void", 1) and run.terminal
    alarms = [args for name, args in desk.calls if name == "alarm"]
    assert [(cause, did, unjournaled) for cause, _, did, unjournaled in alarms] == [("cards-unjournaled", 1, 1)]
    assert [data.get("action") or data.get("event") for _, data in _appended(desk)][-1] == "void"

    run, desk = _paused_with_a_stack_announced()  # the same with the count right: resumed
    facts = ShoeFacts("REC0001", 1, stub_released=False, stack=cards, moved={1: 2}, cards_remaining=at_open - 2)
    assert drive(reconcile_step(run, facts, known=0), desk) == Verdict("resumed to dealing-stacks", None)


class UncountedDesk(RecordingDesk):
    """A shoe that gives no count at the opening (``deck_for_round`` answers None): stud journals 52 as its stub."""

    def deck_for_round(self) -> tuple[int | None, dict[str, Any]]:
        self.calls.append(("deck-for-round", None))
        return None, {"deck_no": 1, "back": "red"}


def test_a_stud_hand_checks_the_shoes_count_only_against_a_count_the_shoe_gave() -> None:
    """Stud's ``stub_size`` is 52 when the shoe gave no count at the opening: comparing the shoe's count at a
    reconciliation with it would void an honest hand (a shoe holding any other number). The check uses the
    shoe's own journaled count, and none when there was none."""
    from shoe.service.rounds.stud import StudRun

    request = rq.convert(
        {"game": "seven-card-stud", "jurisdiction": "NJ", "seats": [{"seat": 1}, {"seat": 3}],
         "table": {"ante": 25, "bring_in": 50, "small_bet": 100, "big_bet": 200}},
        rq.OpenStud,
    )  # fmt: skip
    uncounted, opened = drive(StudRun.open("T1-20261202T000000Z-abcdef", request), UncountedDesk(_deck(11)))
    assert opened["stub_size"] == 52 and opened["cards_remaining"] is None
    assert uncounted.shoe_count_at_open() is None
    counted, opened = drive(StudRun.open("T1-20261202T000000Z-abcdef", request), RecordingDesk(_deck(11)[:40]))
    assert opened["cards_remaining"] == 40 and counted.shoe_count_at_open() == 40
