"""A lying or broken shoe is not believed (SPEC §6 "What the host checks").

Each test puts a man in the middle (``drivers.emulator.mitm``) between the client and an emulated shoe:
valid frames, correct CRCs, rewritten or injected. What the shoe really did is read from the emulator
and from a sniffer on the shoe's side of the liar.
"""

from __future__ import annotations

import itertools
import random
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from drivers.client import ShoeClient
from drivers.emu_transport import EmulatorTransport
from drivers.emulator import EmulatedShoe, EmulatorConfig
from drivers.emulator.mitm import (
    Injector,
    ManInTheMiddle,
    Rule,
    boot_id_says,
    card_reads_say,
    scan_says,
    started_as,
    started_nak,
)
from drivers.errors import ShoeDiscrepancy, ShoeError
from drivers.notices import Discrepancy
from drivers.transport import Transport
from protocols import codec
from protocols import messages as m
from protocols.codes import DispensePhase, NakCode
from protocols.fields import CardRead
from protocols.framing import Deframer, Frame
from tests.drivers.conftest import FAST
from tests.drivers.test_reliability import shuffled


class TruthTap(Transport):
    """The shoe's side of the liar: every CARD_READ the shoe really sent, (dispense id, position) -> card."""

    def __init__(self, inner: Transport, truth: dict[tuple[int, int], str | None]) -> None:
        self.inner, self.url, self.truth = inner, inner.url, truth
        self._deframer = Deframer()

    def write(self, data: bytes) -> None:
        self.inner.write(data)

    def read(self, timeout: float) -> bytes:
        data = self.inner.read(timeout)
        for item in self._deframer.feed(data) if data else ():
            if isinstance(item, Frame):
                message = codec.decode(item)
                if isinstance(message, m.CardReadEvent):
                    self.truth[(message.dispense_id, message.position)] = message.read.card
        return data

    def close(self) -> None:
        self.inner.close()

    def reopen(self) -> Transport:
        return TruthTap(self.inner.reopen(), self.truth)


class Liar:
    def __init__(self, shoe: EmulatedShoe, client: ShoeClient, mitm: ManInTheMiddle, truth: dict[Any, Any]) -> None:
        self.shoe, self.client, self.mitm, self.truth = shoe, client, mitm, truth
        self.notices: list[Any] = []
        client.subscribe(self.notices.append)

    def discrepancies(self) -> list[Discrepancy]:
        return [n for n in self.notices if isinstance(n, Discrepancy)]


@pytest.fixture
def liar() -> Iterator[Any]:
    made: list[Liar] = []

    def build(*rules: Rule, injector: Injector | None = None, **config: Any) -> Liar:
        config.setdefault("deck", shuffled(21))
        shoe = EmulatedShoe(EmulatorConfig(**config))
        truth: dict[tuple[int, int], str | None] = {}
        mitm = ManInTheMiddle(TruthTap(EmulatorTransport(shoe), truth), rules, injector=injector)
        client = ShoeClient(mitm, timeouts=FAST)
        made.append(Liar(shoe, client, mitm, truth))
        client.connect()
        return made[-1]

    yield build
    for one in made:
        one.client.close()
        one.shoe.close()


def test_card_reads_that_contradict_the_stack_are_a_discrepancy(liar: Any) -> None:
    """CARD_READ said 2s 6s, STACK_READY 2c Kh: the client returned 2c Kh with no warning."""
    rig = liar(card_reads_say(["2s", "6s"]), deck=("2c", "Kh", *shuffled(3)[:10]))
    with pytest.raises(ShoeDiscrepancy) as caught:
        rig.client.dispense(2)
    assert caught.value.cause == "card-read-mismatch"
    assert (caught.value.dispense_id, caught.value.moved) == (1, 2)
    assert "2c" not in str(caught.value) and "2s" not in str(caught.value)  # no card codes in the message


def test_a_new_dispense_answered_complete_is_a_discrepancy(liar: Any) -> None:
    """A brand-new id answered COMPLETE with cards (SPEC §6 rule 2 says STARTED) was believed."""
    rig = liar(started_as(DispensePhase.COMPLETE, ["As", "Ad"]))
    with pytest.raises(ShoeDiscrepancy) as caught:
        rig.client.dispense(2)
    assert caught.value.cause == "phase-not-started"
    assert caught.value.moved == 2 == rig.shoe.stats.cards_moved  # settled: what really moved


def test_a_refusal_although_the_card_moved_is_a_discrepancy(liar: Any) -> None:
    """Stud: DISPENSE answered NAK BUSY although the card moved; the host went on as if nothing had."""
    rig = liar(started_nak(NakCode.BUSY))
    with pytest.raises(ShoeDiscrepancy) as caught:
        rig.client.dispense(1)
    assert caught.value.cause == "refused-but-moved"
    assert caught.value.moved == 1 == rig.shoe.stats.cards_moved


def test_a_refusal_after_the_dispense_went_out_is_a_discrepancy_not_a_plain_error(liar: Any) -> None:
    """Found by the lying soak: the reply lost, then the resync's IDENTIFY answered NAK. The plain error let the
    dealer deal again with a new id while the first stack's cards had moved (2 cards never journaled)."""
    step = [0]

    def rule(message: m.Message, seq: int, state: Any) -> Any:
        if isinstance(message, m.DispenseReport) and message.phase is DispensePhase.STARTED and step[0] == 0:
            step[0] = 1
            return []  # the reply is lost on the line
        if isinstance(message, m.Identity) and step[0] == 1:
            step[0] = 2
            return [(m.Nak(NakCode.BAD_STATE, "injected"), seq)]
        return None

    rig = liar(rule)
    with pytest.raises(ShoeDiscrepancy) as caught:
        rig.client.dispense(2)
    assert (caught.value.cause, caught.value.moved) == ("unexpected-answer", 2)


def test_an_honest_refusal_stays_a_refusal(liar: Any) -> None:
    """A NAK that the shoe's stored results confirm (the id is UNKNOWN) is a refusal, not an alarm."""
    rig = liar(door_open=True)
    with pytest.raises(ShoeError) as caught:
        rig.client.dispense(2)
    assert not isinstance(caught.value, ShoeDiscrepancy)
    assert rig.shoe.stats.cards_moved == 0


def test_a_new_boot_id_mid_stack_then_the_old_one_again_is_a_discrepancy(liar: Any) -> None:
    """STATUS and IDENTITY named a new boot id mid-stack: no pause, no warning. A boot id never comes back."""
    rig = liar(boot_id_says(0xDEADBEEF, times=2), timing="realistic")
    errors: list[BaseException] = []

    def deal() -> None:
        try:
            rig.client.dispense(3)
        except BaseException as exc:
            errors.append(exc)

    dealer = threading.Thread(target=deal)
    dealer.start()
    time.sleep(0.3)  # the first card is on its way
    rig.client.status()  # answered with the lie
    dealer.join(15)
    assert isinstance(errors[0] if errors else None, ShoeDiscrepancy), errors
    causes = {d.cause for d in rig.discrepancies()}
    assert "boot-id-flapped" in causes or "boot-id-mismatch" in causes, causes


def test_a_scan_answer_that_its_replay_contradicts_is_a_discrepancy(liar: Any) -> None:
    """A community card read by SCAN: the answer is confirmed by the shoe's replay of it (same seq, SPEC §4)."""
    rig = liar(scan_says("As"), deck=("2c", *shuffled(4)[:20]))
    rig.client.release_stub()
    with pytest.raises(ShoeDiscrepancy) as caught:
        rig.client.scan(2.0)
    assert caught.value.cause == "answer-changed"
    assert rig.client.scan(2.0).card == shuffled(4)[:20][0]  # the next card: no card read twice


def test_card_events_for_a_dispense_never_asked_for_are_a_notice(liar: Any) -> None:
    rig = liar()
    rig.client.dispense(2)
    rig.mitm.inject(m.CardReadEvent(rig.client.status().event_counter + 1, 9, 1, CardRead("As")))
    deadline = time.monotonic() + 5
    while not rig.discrepancies() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert [(d.cause, d.dispense_id) for d in rig.discrepancies()] == [("unasked-cards", 9)]


READS_PER_LIE = 4.0
"""How many of the link's reads pass, on average, between two injected frames."""


@pytest.mark.parametrize("seed", [5, 6, 7])
def test_random_valid_frames_never_make_a_lie_believed(liar: Any, seed: int) -> None:
    """Valid frames of random types injected at random: every stack the client returns is what the shoe read,
    and every card the shoe moved is either in a returned stack or named by a ShoeDiscrepancy."""
    deck = shuffled(31) * 4  # 208 cards: the emulator takes any sequence
    # The injector's clock is the count of the link's reads, not the wall clock: a lie every four reads on
    # average, whatever the machine's speed (on a fast one, 100 dispenses took less than 20 lies of 3 ms).
    reads = itertools.count()
    injector = Injector(random.Random(seed), every_s=READS_PER_LIE, clock=lambda: float(next(reads)))
    rig = liar(injector=injector, deck=deck)
    returned: dict[int, tuple[str | None, ...]] = {}
    alarmed: set[int] = set()
    deadline = time.monotonic() + 40
    for _ in range(100):
        if time.monotonic() > deadline:
            break
        try:
            stack = rig.client.dispense(2)
        except ShoeDiscrepancy as exc:
            if exc.dispense_id is not None:
                alarmed.add(exc.dispense_id)
            continue
        except ShoeError:
            continue
        returned[stack.dispense_id] = stack.codes
    time.sleep(0.5)
    assert returned, "some stacks must get through"
    assert sum(rig.mitm.state.injected.values()) > 20
    for did, codes in returned.items():
        assert codes == tuple(rig.truth.get((did, p)) for p in range(1, len(codes) + 1)), f"stack {did} believed a lie"
    moved_dids = {did for did, _ in rig.truth}
    unexplained = moved_dids - set(returned) - alarmed
    assert not unexplained, f"cards moved for dispenses nobody was told about: {sorted(unexplained)}"
