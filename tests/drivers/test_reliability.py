"""Reliability: corrupted and dropped bytes, lost acknowledgements, duplicated events, unplug mid-stack,
timeouts during a dispense. Each ends with zero double dispenses and zero lost card events, counted:

- double dispenses = cards the emulated mechanism physically moved - cards the host asked for;
- lost card events = card reads the host asked for - distinct card-read events delivered to subscribers.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from drivers.client import ShoeClient
from drivers.emu_transport import EmulatorTransport
from drivers.emulator import EmulatedShoe, EmulatorConfig, serve_pty
from drivers.errors import ShoeIOError
from drivers.serial_transport import SerialTransport
from protocols import messages as m
from protocols.cards import ALL_CODES
from protocols.codes import MsgType
from protocols.framing import Deframer, Frame, encode_frame
from tests.drivers.conftest import FAST, Rig

Factory = Callable[..., Rig]


def shuffled(seed: int) -> tuple[str, ...]:
    deck = list(ALL_CODES)
    random.Random(seed).shuffle(deck)
    return tuple(deck)


def assert_exactly_once(rig: Rig, deck: tuple[str, ...], stacks: list[tuple[str | None, ...]], size: int) -> None:
    dealt = [c for s in stacks for c in s]
    assert dealt == list(deck[: len(dealt)]), "stacks must be the deck in order"
    double_dispenses = rig.shoe.stats.cards_moved - len(dealt)
    reads = {(e.dispense_id, e.position) for e in rig.events(m.CardReadEvent)}
    lost_card_events = len(dealt) - len(reads)
    assert (double_dispenses, lost_card_events) == (0, 0)
    numbers = [e.event_no for e in rig.received if isinstance(e, m.Event)]
    assert len(numbers) == len(set(numbers)), "an event was delivered twice"


def wait_quiet(rig: Rig, stacks: int) -> None:
    deadline = time.monotonic() + 10
    while len(rig.events(m.CardReadEvent)) < stacks * 2 and time.monotonic() < deadline:
        time.sleep(0.02)


@pytest.mark.parametrize("kind", ["emu", "pty"])
def test_corrupted_bytes(rig_factory: Factory, kind: str) -> None:
    deck = shuffled(11)
    rig = rig_factory(kind, deck=deck, corrupt_rate=0.01, seed=11)
    stacks = [rig.client.dispense(2).codes for _ in range(26)]
    wait_quiet(rig, 26)
    assert_exactly_once(rig, deck, stacks, 2)
    assert rig.client.link.stats.bad_frames > 0, "the impairment must actually have hit frames"


@pytest.mark.parametrize("kind", ["emu", "tcp"])
def test_dropped_bytes_lose_acks_and_duplicate_events(rig_factory: Factory, kind: str) -> None:
    deck = shuffled(12)
    rig = rig_factory(kind, deck=deck, drop_rate=0.01, seed=12)
    stacks = [rig.client.dispense(2).codes for _ in range(13)]
    wait_quiet(rig, 13)
    time.sleep(0.5)  # let re-sends of events whose ack was dropped arrive
    assert_exactly_once(rig, deck, stacks, 2)
    sequencer = rig.client._sequencer
    assert sequencer.duplicates > 0, "dropped acks must have caused re-sent (duplicate) events"


def test_timeout_during_dispense_reconciles_without_doubling(rig_factory: Factory) -> None:
    deck = shuffled(13)
    rig = rig_factory("emu", deck=deck, latency_ms=450)
    stacks = [rig.client.dispense(2).codes for _ in range(4)]
    wait_quiet(rig, 4)
    assert_exactly_once(rig, deck, stacks, 2)
    assert rig.client.link.stats.timeouts + rig.client.link.stats.retries > 0


def test_unplug_in_the_middle_of_a_stack(tmp_path: Path) -> None:
    deck = shuffled(14)
    shoe = EmulatedShoe(EmulatorConfig(deck=deck, timing="realistic"))
    link = tmp_path / "shoe0"
    server = serve_pty(shoe, link=str(link))
    client = ShoeClient(SerialTransport(str(link)), timeouts=FAST)
    rig = Rig(shoe, client)
    unplugged = threading.Event()

    def on_item(item: object) -> None:
        rig.received.append(item)  # type: ignore[arg-type]
        first_card_of_stack_2 = isinstance(item, m.CardReadEvent) and (item.dispense_id, item.position) == (2, 1)
        if first_card_of_stack_2 and not unplugged.is_set():
            unplugged.set()
            threading.Thread(target=_pull_and_replug, args=(shoe,), daemon=True).start()

    client.subscribe(on_item)
    try:
        client.connect()
        stacks = [client.dispense(2).codes for _ in range(3)]
        wait_quiet(rig, 3)
        assert unplugged.is_set()
        assert client.link.stats.link_losses >= 1 and client.link.stats.reconnects >= 1
        assert_exactly_once(rig, deck, stacks, 2)
    finally:
        client.close()
        server.close()
        shoe.close()


def _pull_and_replug(shoe: EmulatedShoe) -> None:
    shoe.unplug()
    time.sleep(0.4)
    shoe.replug()


def test_power_cycle_mid_round_keeps_dispense_results(rig_factory: Factory) -> None:
    deck = shuffled(15)
    rig = rig_factory("emu", deck=deck)
    first = rig.client.dispense(2).codes
    rig.shoe.power_cycle()
    second = rig.client.dispense(2).codes  # the client notices the new boot and resynchronises
    wait_quiet(rig, 2)
    assert [first, second] == [deck[:2], deck[2:4]]
    assert rig.shoe.stats.cards_moved == 4


class _DropFirstReply(EmulatorTransport):
    """A line that loses the shoe's first frame of each listed type (a manipulator hook on the in-process link)."""

    def __init__(self, shoe: EmulatedShoe, types: set[MsgType]) -> None:
        super().__init__(shoe)
        self._deframer = Deframer()
        self._types = set(types)
        self.dropped = 0

    def read(self, timeout: float) -> bytes:
        out = bytearray()
        for item in self._deframer.feed(super().read(timeout)):
            if isinstance(item, Frame):
                if item.msg_type in self._types:
                    self._types.discard(MsgType(item.msg_type))
                    self.dropped += 1
                    continue
                out += encode_frame(item.version, item.msg_type, item.seq, item.payload)
        return bytes(out)


def test_a_lost_scan_answer_is_replayed_not_read_again() -> None:
    """SCAN moves a card past the reader: a lost answer must be recovered by replay (same seq), or a card is lost."""
    deck = ("As", "Kd", "7c", "2h", "Td", "9s")
    shoe = EmulatedShoe(EmulatorConfig(deck=deck))
    transport = _DropFirstReply(shoe, {MsgType.SCAN_RESULT})
    client = ShoeClient(transport, timeouts=FAST)
    try:
        client.connect()
        client.dispense(2)
        time.sleep(0.1)
        client.release_stub()
        assert [client.scan(0.5).card for _ in range(3)] == ["7c", "2h", "Td"]
        assert transport.dropped == 1 and client.link.stats.polls + client.link.stats.retries >= 1
    finally:
        client.close()
        shoe.close()


class _UnplugOnFirstReply(EmulatorTransport):
    """A cable pulled just as the shoe answers: the first reply of each listed type never arrives.

    The shoe acted on the request and stored its answer; the host only sees the link drop under it.
    """

    def __init__(
        self, shoe: EmulatedShoe, types: set[MsgType], pulled: list[MsgType] | None = None, replug_s: float | None = 0.3
    ) -> None:
        super().__init__(shoe)
        self._deframer = Deframer()
        self._types = types  # shared with the transports reopen() makes
        self.pulled: list[MsgType] = [] if pulled is None else pulled
        self.replug_s = replug_s  # None: the cable stays out

    def reopen(self) -> _UnplugOnFirstReply:
        return _UnplugOnFirstReply(self.shoe, self._types, self.pulled, self.replug_s)

    def read(self, timeout: float) -> bytes:
        out = bytearray()
        for item in self._deframer.feed(super().read(timeout)):
            if isinstance(item, Frame):
                kind = MsgType(item.msg_type)
                if kind in self._types:
                    self._types.discard(kind)
                    self.pulled.append(kind)
                    self.shoe.unplug()
                    if self.replug_s is not None:
                        threading.Timer(self.replug_s, self.shoe.replug).start()
                    continue
                out += encode_frame(item.version, item.msg_type, item.seq, item.payload)
        return bytes(out)


def test_requests_cut_by_an_unplug_are_replayed_after_the_reconnect() -> None:
    """RELEASE_STUB and SCAN act on the mechanism: after a reconnect the host re-sends the same frame (same seq)
    before anything else, so the shoe replays its answer instead of refusing a second release or reading the
    next card (SPEC §4)."""
    deck = ("As", "Kd", "7c", "2h", "Td", "9s")
    shoe = EmulatedShoe(EmulatorConfig(deck=deck))
    transport = _UnplugOnFirstReply(shoe, {MsgType.STUB_RELEASED, MsgType.SCAN_RESULT})
    client = ShoeClient(transport, timeouts=FAST)
    try:
        client.connect()
        client.dispense(2)
        time.sleep(0.1)
        assert client.release_stub() == 4
        assert [client.scan(0.5).card for _ in range(3)] == ["7c", "2h", "Td"]
        assert transport.pulled == [MsgType.STUB_RELEASED, MsgType.SCAN_RESULT]
        assert client.link.stats.link_losses == 2 and client.link.stats.reconnects == 2
        assert shoe.stats.replays >= 2
    finally:
        client.close()
        shoe.close()


@pytest.mark.parametrize("lost", ["with the link", "on the line"])
def test_a_reset_whose_answer_is_lost_is_not_sent_again(lost: str) -> None:
    """A reboot forgets the stored reply, so a re-sent RESET would reboot the shoe a second time."""
    shoe = EmulatedShoe(EmulatorConfig(deck=("As", "Kd", "7c", "2h")))
    transport: _UnplugOnFirstReply | _DropFirstReply = (
        _UnplugOnFirstReply(shoe, {MsgType.OK}) if lost == "with the link" else _DropFirstReply(shoe, {MsgType.OK})
    )
    client = ShoeClient(transport, timeouts=FAST)
    try:
        client.connect()
        boot = client.identity.boot_id if client.identity else None
        client.reset()
        answers_lost = len(transport.pulled) if isinstance(transport, _UnplugOnFirstReply) else transport.dropped
        assert answers_lost == 1 and shoe.stats.resets == 1
        assert client.identity is not None and client.identity.boot_id != boot
    finally:
        client.close()
        shoe.close()


def test_a_request_cut_by_a_link_that_never_comes_back_fails_after_the_give_up_time() -> None:
    shoe = EmulatedShoe(EmulatorConfig(deck=("As", "Kd", "7c", "2h", "Td", "9s")))
    transport = _UnplugOnFirstReply(shoe, {MsgType.STUB_RELEASED}, replug_s=None)
    client = ShoeClient(transport, timeouts=replace(FAST, reconnect_give_up=0.5))
    try:
        client.connect()
        client.dispense(2)
        time.sleep(0.1)
        with pytest.raises(ShoeIOError, match="link lost"):
            client.release_stub()
        assert client.link.stats.link_losses == 1 and not client.link.connected
    finally:
        client.close()
        shoe.close()


class _DropIdentities(EmulatorTransport):
    """A line that loses the shoe's next ``armed`` IDENTITY answers, once armed (more than one request's tries)."""

    def __init__(self, shoe: EmulatedShoe) -> None:
        super().__init__(shoe)
        self._deframer = Deframer()
        self.armed = 0
        self.dropped = 0

    def read(self, timeout: float) -> bytes:
        out = bytearray()
        for item in self._deframer.feed(super().read(timeout)):
            if isinstance(item, Frame):
                if item.msg_type == MsgType.IDENTITY and self.armed:
                    self.armed -= 1
                    self.dropped += 1
                    continue
                out += encode_frame(item.version, item.msg_type, item.seq, item.payload)
        return bytes(out)


def test_a_resync_before_a_dispense_outlasts_more_lost_answers_than_one_request_tries() -> None:
    """The resync a dispense starts with moves nothing: on a noisy line it is asked again, as the other
    read-only asks are, instead of failing a dispense that was never sent."""
    deck = ("As", "Kd", "7c", "2h", "Td", "9s")
    shoe = EmulatedShoe(EmulatorConfig(deck=deck))
    transport = _DropIdentities(shoe)
    client = ShoeClient(transport, timeouts=FAST)
    try:
        client.connect()
        assert client.dispense(2).codes == ("As", "Kd")
        client._needs_resync = True  # as after a discrepancy or a lost link
        transport.armed = FAST.retries + 2  # every try of one IDENTIFY, and the first of the next ask
        assert client.dispense(2).codes == ("7c", "2h")
        assert transport.dropped == FAST.retries + 2
        assert shoe.stats.cards_moved == 4
    finally:
        client.close()
        shoe.close()
