"""A round's actions are pure steps: the same inputs give the same intents, nothing in them waits or does
I/O, and the one point where the world changes the round under a step (``Drain``) is looked at.

The steps run here against a recording desk (no shoe, no journal, no thread): the same desk the
``Desk`` protocol describes, so what holds here holds for the owner's ``RoundDesk`` and the simulator's.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import msgspec
import pytest

import shoe.service.rounds
from drivers.errors import ShoeIOError, ShoeTimeout
from drivers.stacks import DispenseFailed, Stack
from protocols.codes import FaultCode
from protocols.fields import CardRead
from shoe.cards import Card
from shoe.rules.profiles import Irregularity
from shoe.service.api import requests as rq
from shoe.service.errors import ServiceError
from shoe.service.rounds import intents
from shoe.service.rounds.intents import DrainResult, drive
from shoe.service.rounds.mississippi import MississippiRun
from shoe.service.rounds.reconcile import ShoeFacts, Verdict, reconcile_step
from shoe.service.rounds.run import RoundRun
from shoe.service.rounds.stud import StudRun, shuffled

ROUNDS = Path(shoe.service.rounds.__file__).parent
STEP_MODULES = ("intents.py", "run.py", "mississippi.py", "stud.py", "params.py", "reconcile.py")
"""The round's step modules; ``desk.py`` (the owner's desk) and ``recovery.py`` (reads the journal and the shoe,
then drives ``reconcile.py``'s step) are the edge."""

FORBIDDEN = (
    "time", "datetime", "secrets", "random", "threading", "queue", "socket", "select", "selectors", "asyncio",
    "os", "subprocess", "sqlite3", "uuid", "serial", "usb", "shoe.journal", "drivers.client", "drivers.transport",
    "drivers.link", "drivers.emulator", "shoe.service.journal.sink", "shoe.service.link",
)  # fmt: skip
"""What a step may not import: clocks, randomness, threads, sockets, files, the journal store, the drivers' I/O.
Types (``drivers.stacks.Stack``, ``protocols.fields.CardRead``, the drivers' exceptions) are fine."""


class RecordingDesk:
    """A ``Desk`` that records every call and answers from a planned deck; ``on_drain`` plays a shoe item."""

    def __init__(self, deck: Sequence[str], *, fail_at: int | None = None) -> None:
        self.deck, self.pos, self.dispense_id, self.fail_at = list(deck), 0, 0, fail_at
        self.calls: list[tuple[str, Any]] = []
        self.on_drain: Callable[[RecordingDesk], None] | None = None
        self.run: RoundRun | None = None

    def append(self, kind: str, data: dict[str, Any], round_id: str | None) -> int:
        self.calls.append(("append", (kind, msgspec.json.encode(data), round_id)))
        return len(self.calls)

    def dispense(self, size: int) -> Stack:
        self.calls.append(("dispense", size))
        self.dispense_id += 1
        cards = tuple(CardRead(code) for code in self.deck[self.pos : self.pos + size])
        if self.dispense_id == self.fail_at:  # the shoe stops after one card of the stack
            self.pos += 1
            raise DispenseFailed(FaultCode.JAM, self.dispense_id, cards[:1])
        self.pos += size
        return Stack(self.dispense_id, cards)

    def scan(self) -> CardRead:
        self.calls.append(("scan", None))
        self.pos += 1
        return CardRead(self.deck[self.pos - 1])

    def release_stub(self) -> int:
        self.calls.append(("release-stub", None))
        return len(self.deck) - self.pos

    def drain(self) -> DrainResult:
        self.calls.append(("drain", None))
        if self.on_drain is not None:
            self.on_drain(self)
        run = self.run
        return DrainResult(paused=run is not None and run.paused, ended=run is not None and run.terminal)

    def shoe_serial(self) -> str | None:
        return "REC0001"

    def cards_remaining(self) -> int | None:
        return len(self.deck) - self.pos

    def deck_for_round(self) -> tuple[int | None, dict[str, Any]]:
        self.calls.append(("deck-for-round", None))
        return len(self.deck) - self.pos, {"deck_no": 1, "back": "red"}

    def load_on_top(self, codes: Sequence[str]) -> bool:
        self.calls.append(("load-on-top", tuple(codes)))
        return True

    def raise_alarm(
        self, cause: str, detail: str, *, dispense_id: int | None = None, unjournaled: int | None = None
    ) -> None:
        self.calls.append(("alarm", (cause, detail, dispense_id, unjournaled)))


OPEN = rq.OpenMississippi(
    jurisdiction="NY",
    seats=[rq.SeatWager(seat=1, ante=500), rq.SeatWager(seat=3, ante=1000), rq.SeatWager(seat=5, ante=500)],
)


def _deck(seed: int) -> list[str]:
    order = list(range(52))
    random.Random(seed).shuffle(order)
    return [Card.from_index(i).code for i in order]


def _mississippi_round(deck: Sequence[str], entropy: bytes) -> tuple[list[tuple[str, Any]], list[Any]]:
    """One whole round's steps from the same inputs: the desk's calls and the steps' replies."""
    desk = RecordingDesk(deck)
    run, opened = drive(MississippiRun.open("T1-20261202T000000Z-abcdef", OPEN), desk)
    assert isinstance(run, MississippiRun)
    desk.run = run
    desk.append("round-opened", opened, run.round_id)
    replies = [drive(run.act(action, rq.Empty(), entropy), desk) for action in ("no-more-bets", "deal", "release-stub")]
    while not run.terminal:
        if (seat := run.r.next_to_decide) is not None:
            request: msgspec.Struct = rq.Decide(seat=seat, multiple=1 if seat != 3 else 0)
            replies.append(drive(run.act("decide", request, entropy), desk))
        elif run.r.state.value == "settlement":
            replies.append(drive(run.act("settle", rq.Empty(), entropy), desk))
        else:
            index = sum(1 for name, args in desk.calls if name == "append" and args[0] == "reveal") + 1
            replies.append(drive(run.act("reveal", rq.Reveal(index=index), entropy), desk))
    return desk.calls, replies


def test_a_round_from_the_same_inputs_asks_for_the_same_intents() -> None:
    calls, replies = _mississippi_round(_deck(7), b"\x01" * 16)
    again, replies_again = _mississippi_round(_deck(7), b"\x01" * 16)
    assert calls == again and replies == replies_again
    assert [name for name, _ in calls].count("dispense") == 3 and ("scan", None) in calls
    other, _ = _mississippi_round(_deck(8), b"\x01" * 16)  # the comparison can tell two rounds apart
    assert other != calls


def test_a_step_yields_one_typed_intent_at_a_time_and_does_nothing_itself() -> None:
    run, _ = drive(MississippiRun.open("T1-20261202T000000Z-abcdef", OPEN), RecordingDesk(_deck(1)))
    assert isinstance(run, MississippiRun)
    drive(run.act("no-more-bets", rq.Empty(), b""), RecordingDesk(_deck(1)))
    step = run.act("deal", rq.Empty(), b"")
    first = next(step)
    assert first == intents.Append("decision", first.data, run.round_id) and first.data["action"] == "stack-for-seat"
    assert step.send(1) == intents.Dispense(2)  # nothing moves until the step is answered
    step.close()


def test_the_round_step_modules_import_no_clock_randomness_thread_socket_or_store() -> None:
    found = {}
    for name in STEP_MODULES:
        tree = ast.parse((ROUNDS / name).read_text(encoding="utf-8"))
        imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        bad = sorted(m for m in imported if any(m == f or m.startswith(f + ".") for f in FORBIDDEN))
        if bad:
            found[name] = bad
    assert found == {}


def test_a_round_paused_by_a_drained_notice_is_not_dealt_on() -> None:
    """A stack fails and, in the drain after it, a lost link pauses the round: the step sees the pause.

    Before steps, the deal went on into ``absorb`` of the paused round: its rules refused the stack
    (``RuleViolation``) after its cards were journaled, and the command failed half-way.
    """
    desk = RecordingDesk(_deck(3), fail_at=2)
    run, _ = drive(MississippiRun.open("T1-20261202T000000Z-abcdef", OPEN), desk)
    assert isinstance(run, MississippiRun)
    desk.run = run
    drive(run.act("no-more-bets", rq.Empty(), b""), desk)

    def link_lost(d: RecordingDesk) -> None:  # what Owner.drain does with a LinkLost notice
        if d.dispense_id == 2 and not run.paused:
            drive(run.pause(Irregularity.LINK_LOST, "shoe link lost: unplugged"), d)

    desk.on_drain = link_lost
    reply = drive(run.act("deal", rq.Empty(), b""), desk)
    assert run.paused and reply["paused"] is True
    assert [s.get("seat") for s in reply["stacks"]] == [1, None] and reply["stacks"][1]["dispense_id"] == 2
    kinds = [(args[0], msgspec.json.decode(args[1]).get("action")) for name, args in desk.calls if name == "append"]
    # no more bets; the first stack's two cards and record; the second announced; the pause; its one card
    assert kinds == [
        ("decision", "no-more-bets"), ("decision", "stack-for-seat"), ("card", None), ("card", None),
        ("decision", "stack-dealt"), ("decision", "stack-for-seat"), ("irregularity", "paused"), ("card", None),
    ]  # fmt: skip
    assert run.announced is not None  # reconciliation still knows the stack was announced


def test_the_burn_cards_shuffle_is_drawn_from_the_commands_entropy() -> None:
    codes = [Card.from_index(i).code for i in range(8)]
    assert shuffled(codes, b"a" * 16) == shuffled(codes, b"a" * 16)
    assert sorted(shuffled(codes, b"a" * 16)) == sorted(codes)
    orders = {tuple(shuffled(codes, bytes([n]) * 16)) for n in range(32)}
    assert len(orders) > 16  # different entropy, different orders
    assert StudRun.game == "seven-card-stud"


def _paused_with_a_stack_announced() -> tuple[MississippiRun, RecordingDesk]:
    """A round whose link was lost between the announce of seat 1's stack and its record."""
    desk = RecordingDesk(_deck(5))
    run, _ = drive(MississippiRun.open("T1-20261202T000000Z-abcdef", OPEN), desk)
    assert isinstance(run, MississippiRun)
    desk.run = run
    drive(run.act("no-more-bets", rq.Empty(), b""), desk)
    drive(run.announce("seat", 1, 1, 2), desk)
    drive(run.pause(Irregularity.LINK_LOST, "shoe link lost"), desk)
    desk.calls.clear()
    return run, desk


def test_reconciling_reads_back_the_one_announced_stack_from_the_shoes_facts() -> None:
    run, desk = _paused_with_a_stack_announced()
    cards = (CardRead("As"), CardRead("Kd"))
    facts = ShoeFacts("REC0001", 1, stub_released=False, stack=cards, moved={1: 2})
    verdict = drive(reconcile_step(run, facts, known=0), desk)
    assert verdict == Verdict("resumed to dealing-stacks", None)
    appended = [(args[0], msgspec.json.decode(args[1])) for name, args in desk.calls if name == "append"]
    assert [kind for kind, _ in appended] == ["irregularity", "link", "card", "card", "decision"]
    assert appended[1][1]["event"] == "stack-recovered" and appended[4][1]["action"] == "stack-dealt"
    assert [name for name, _ in desk.calls if name != "append"] == []  # the step asked the shoe nothing


def test_reconciling_two_unknown_stacks_voids_the_round_with_an_alarm_for_each() -> None:
    run, desk = _paused_with_a_stack_announced()
    facts = ShoeFacts("REC0001", 2, stub_released=False, moved={1: 2, 2: 2})
    verdict = drive(reconcile_step(run, facts, known=0), desk)
    assert verdict == Verdict("void", 2) and run.terminal
    alarms = [args for name, args in desk.calls if name == "alarm"]
    assert [(cause, did, unjournaled) for cause, _, did, unjournaled in alarms] == [
        ("stack-unreconciled", 1, 2), ("stack-unreconciled", 2, 2)
    ]  # fmt: skip
    assert desk.calls[-1][0] == "append" and msgspec.json.decode(desk.calls[-1][1][1])["action"] == "void"


def _stud_third_street(deck: Sequence[str]) -> list[tuple[str, Any]]:
    request = rq.convert(
        {"game": "seven-card-stud", "jurisdiction": "NJ", "seats": [{"seat": 1}, {"seat": 3}, {"seat": 6}],
         "table": {"ante": 25, "bring_in": 50, "small_bet": 100, "big_bet": 200}},
        rq.OpenStud,
    )  # fmt: skip
    desk = RecordingDesk(deck)
    run, _ = drive(StudRun.open("T1-20261202T000000Z-abcdef", request), desk)
    desk.run = run
    reply = drive(run.act("deal", rq.Empty(), b"\x02" * 16), desk)
    assert len(reply["cards"]) == 9 and run.state == "bring-in"
    return desk.calls


def test_a_stud_street_from_the_same_inputs_asks_for_the_same_intents() -> None:
    calls = _stud_third_street(_deck(11))
    assert calls == _stud_third_street(_deck(11))
    assert [name for name, _ in calls].count("dispense") == 9  # one card a stack, each announced first
    assert [name for name, _ in calls][:4] == ["deck-for-round", "append", "dispense", "append"]


class ScanLostDesk(RecordingDesk):
    """The shoe's reader takes the card, then the link fails before its answer: the host has no card."""

    def __init__(self, deck: Sequence[str], error: Exception) -> None:
        super().__init__(deck)
        self.error: Exception | None = error

    def scan(self) -> CardRead:
        if self.error is None:
            return super().scan()
        self.calls.append(("scan", None))
        self.pos += 1  # the card left the stub through the reader
        error, self.error = self.error, None
        raise error


def _to_third_street(desk: RecordingDesk) -> MississippiRun:
    run, _ = drive(MississippiRun.open("T1-20261202T000000Z-abcdef", OPEN), desk)
    assert isinstance(run, MississippiRun)
    desk.run = run
    for action in ("no-more-bets", "deal", "release-stub"):
        drive(run.act(action, rq.Empty(), b"\x01" * 16), desk)
    while (seat := run.r.next_to_decide) is not None:
        drive(run.act("decide", rq.Decide(seat=seat, multiple=1), b"\x01" * 16), desk)
    return run


@pytest.mark.parametrize(
    "error",
    [ShoeIOError("the shoe rebooted with SCAN in flight"), ServiceError("no-card", "no card was read")],
    ids=["link-failed", "no-answer"],
)
def test_a_scan_whose_outcome_is_unknown_is_not_asked_again(error: Exception) -> None:
    """The reader may have taken the card: a second SCAN would read the next one. The shoe is not asked
    again for that card; the dealer enters the card on the table, and the round goes on from it."""
    if isinstance(error, ServiceError):
        error.__cause__ = ShoeTimeout("no reply to SCAN")
    desk = ScanLostDesk(_deck(7), error)
    run = _to_third_street(desk)
    on_table = desk.deck[desk.pos]
    with pytest.raises(type(error)):
        drive(run.act("reveal", rq.Reveal(index=1), b"\x01" * 16), desk)
    with pytest.raises(ServiceError) as refused:
        drive(run.act("reveal", rq.Reveal(index=1), b"\x01" * 16), desk)
    assert refused.value.code == "scan-in-doubt"
    assert [name for name, _ in desk.calls].count("scan") == 1  # the shoe was asked once
    reply = drive(run.act("reveal", rq.Reveal(index=1, card=on_table), b"\x01" * 16), desk)
    assert reply["card"] == on_table and reply["source"] == "dealer"
    announced = [args for name, args in desk.calls if name == "append" and b"scan-for-community" in args[1]]
    assert len(announced) == 1  # journaled before the SCAN, once


def test_a_scan_announced_without_its_card_is_in_doubt_after_a_rebuild() -> None:
    """The service stopped between the SCAN and its card entry: the rebuilt round knows it from the journal."""
    desk = RecordingDesk(_deck(7))
    run = _to_third_street(desk)
    run.note("decision", {"action": "scan-for-community", "community_index": 1})  # the rebuild's replay
    with pytest.raises(ServiceError) as refused:
        drive(run.act("reveal", rq.Reveal(index=1), b"\x01" * 16), desk)
    assert refused.value.code == "scan-in-doubt" and "enter the card" in (refused.value.hint or "")
    run.note("card", {"community_index": 1, "index": 9, "card": "2c"})  # a later card entry clears it
    assert run.scan_in_doubt is None
