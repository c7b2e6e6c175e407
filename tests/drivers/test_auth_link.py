"""The authenticated link (SPEC §13) through the real client and the emulator, and the two-exchange dispense.

Every access path (in-process, pty, TCP, fake USB) is paired and driven; a consistent liar in the cable is
believed on a v1.0 link and refused on a v1.1 one; a missing or wrong key is an error, never plain frames.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from msgspec.structs import replace

from drivers.client import ShoeClient
from drivers.emu_transport import EmulatorTransport
from drivers.emulator import EmulatedShoe, EmulatorConfig
from drivers.emulator.mitm import ManInTheMiddle, MitmState, Rule, consistent_liar
from drivers.errors import ShoeAuthError, ShoeDiscrepancy, ShoeIOError, ShoeTimeout
from drivers.notices import Discrepancy, FrameRefused
from drivers.transport import Transport
from protocols import auth, codec
from protocols import messages as m
from protocols.codes import MsgType
from protocols.framing import Deframer, Frame
from tests.drivers.conftest import FAST, make_transport

DECK = ("3s", "Kc", "Qs", "2s", "Td", "9h", "4c", "5d", "6h", "7c", "8d", "Jh")


class Requests(Transport):
    """Counts the host's requests (EVENT_ACK and HELLO aside) and keeps its raw frames (for a replay)."""

    def __init__(self, inner: Transport, counts: list[int], frames: list[bytes]) -> None:
        self.inner, self.url, self.counts, self.frames = inner, inner.url, counts, frames
        self._deframer = Deframer()

    def write(self, data: bytes) -> None:
        for item in self._deframer.feed(data):
            if isinstance(item, Frame) and item.msg_type not in (MsgType.EVENT_ACK, MsgType.HELLO):
                self.counts[0] += 1
                self.frames.append(codec.encode_frame(item.version, item.msg_type, item.seq, item.payload))
        self.inner.write(data)

    def read(self, timeout: float) -> bytes:
        return self.inner.read(timeout)

    def close(self) -> None:
        self.inner.close()

    def reopen(self) -> Transport:
        return Requests(self.inner.reopen(), self.counts, self.frames)


@pytest.fixture
def made() -> Iterator[list[Callable[[], None]]]:
    cleanups: list[Callable[[], None]] = []
    yield cleanups
    for cleanup in reversed(cleanups):
        cleanup()


def _shoe(made: list[Callable[[], None]], key: bytes | None = None, **config: Any) -> EmulatedShoe:
    config.setdefault("deck", DECK)
    shoe = EmulatedShoe(EmulatorConfig(**config))
    made.append(shoe.close)
    if key is not None:
        shoe.pair(key)
    return shoe


def _client(made: list[Callable[[], None]], transport: Transport, key: bytes | None) -> ShoeClient:
    client = ShoeClient(transport, timeouts=FAST, key=key)
    made.append(client.close)
    return client


@pytest.mark.parametrize("kind", ["emu", "pty", "tcp", "usb"])
def test_every_access_path_is_authenticated(made: list[Callable[[], None]], kind: str) -> None:
    key = secrets.token_bytes(32)
    shoe = _shoe(made, key)
    transport, stop = make_transport(kind, shoe)
    made.append(stop)
    client = _client(made, transport, key)
    client.connect()
    assert client.authenticated and client.identity is not None and client.identity.key_id == auth.key_id(key)
    assert [r.card for r in client.dispense(2).cards] == ["3s", "Kc"]
    if kind != "usb":  # the fake bus does not re-enumerate a replugged shoe
        shoe.unplug()
        deadline = time.monotonic() + 5
        while client.link.connected and time.monotonic() < deadline:
            time.sleep(0.02)  # the reader notices the unplug
        shoe.replug()
        assert client.link.wait_connected(5)
    assert [r.card for r in client.dispense(1).cards] == ["Qs"]
    sessions = 1 if kind == "usb" else 2
    assert client.link.stats.sessions >= sessions and client.link.stats.refused == 0
    assert shoe.stats.frames_refused == 0 and shoe.stats.sessions >= sessions


def _liar(
    made: list[Callable[[], None]], key: bytes | None, rules: list[Rule]
) -> tuple[EmulatedShoe, ShoeClient, list[Any]]:
    shoe = _shoe(made, key)
    client = _client(made, ManInTheMiddle(EmulatorTransport(shoe), rules, state=MitmState()), key)
    notices: list[Any] = []
    client.subscribe(notices.append)
    client.connect()
    return shoe, client, notices


def test_the_consistent_liar_is_believed_on_a_v10_link(made: list[Callable[[], None]]) -> None:
    """What the issue measured: on plain frames the lie that agrees with itself passes every check."""
    _, client, _ = _liar(made, None, [consistent_liar()])
    assert [r.card for r in client.dispense(2).cards] == ["Ah", "Kh"]  # the mechanism dealt 3s Kc


def test_the_consistent_liar_is_refused_on_an_authenticated_link(made: list[Callable[[], None]]) -> None:
    """The same liar with the key in place: its frames fail the MAC, the dispense is a discrepancy, never a guess.

    Seen failing before the link checked MACs: the client returned Ah Kh."""
    key = secrets.token_bytes(32)
    shoe, client, notices = _liar(made, key, [consistent_liar()])
    with pytest.raises(ShoeDiscrepancy) as caught:
        client.dispense(2)
    assert caught.value.cause == "refused-frame" and "refused" in caught.value.detail
    refused = [n for n in notices if isinstance(n, FrameRefused)]
    assert refused and {n.msg_type for n in refused} & {"CARD_READ", "STACK_READY", "DISPENSE_REPORT"}
    assert any(isinstance(n, Discrepancy) and n.cause == "refused-frame" for n in notices)
    assert client.link.stats.refused >= 1
    assert shoe.stats.cards_moved == 2


def test_a_replayed_host_frame_is_refused_by_the_shoe(made: list[Callable[[], None]]) -> None:
    """A recorded DISPENSE frame sent again (the counter is spent) moves nothing and gets no answer."""
    key = secrets.token_bytes(32)
    shoe = _shoe(made, key)
    counts, frames = [0], []
    client = _client(made, Requests(EmulatorTransport(shoe), counts, frames), key)
    client.connect()
    client.dispense(2)
    dispense = next(f for f in frames if Deframer().feed(f)[0].msg_type == MsgType.DISPENSE)  # type: ignore[union-attr]
    moved = shoe.stats.cards_moved
    shoe.host_write(dispense)
    assert shoe.stats.frames_refused == 1 and shoe.stats.cards_moved == moved


def test_a_missing_or_wrong_key_is_an_error_never_plain(made: list[Callable[[], None]]) -> None:
    key = secrets.token_bytes(32)
    cases: list[tuple[EmulatedShoe, bytes | None, str]] = [
        (_shoe(made), key, "shoe-not-paired"),
        (_shoe(made, secrets.token_bytes(32)), key, "key-mismatch"),
        (_shoe(made, protocol="1.0"), key, "shoe-unauthenticated"),
        (_shoe(made, key), None, "host-not-paired"),
    ]
    for shoe, host_key, cause in cases:
        client = _client(made, EmulatorTransport(shoe), host_key)
        with pytest.raises(ShoeAuthError) as caught:
            client.connect()
        assert caught.value.cause == cause, cause
        assert shoe.stats.cards_moved == 0


def test_a_shoe_reboot_starts_a_new_session(made: list[Callable[[], None]]) -> None:
    """The reboot forgets the session: AUTH_REQUIRED, a new HELLO, and the dispense goes on."""
    key = secrets.token_bytes(32)
    shoe = _shoe(made, key)
    client = _client(made, EmulatorTransport(shoe), key)
    client.connect()
    client.dispense(1)
    shoe.power_cycle()
    assert len(client.dispense(1).cards) == 1
    assert shoe.stats.sessions >= 2 and client.link.stats.refused == 0


def test_pairing_over_the_wire_and_rotation(made: list[Callable[[], None]]) -> None:
    """PAIR plain on an unpaired shoe; PAIR plain on a paired one refused unless the door is open; rotation sealed."""
    from drivers.pairing import pair_shoe

    shoe = _shoe(made)
    first, second, third = (secrets.token_bytes(32) for _ in range(3))
    assert pair_shoe(EmulatorTransport(shoe), first, old_key=None, timeouts=FAST) == auth.key_id(first)
    with pytest.raises(ShoeAuthError):
        pair_shoe(EmulatorTransport(shoe), second, old_key=None, timeouts=FAST)
    assert shoe.key_id == auth.key_id(first)
    pair_shoe(EmulatorTransport(shoe), second, old_key=first, timeouts=FAST)
    assert shoe.key_id == auth.key_id(second)
    shoe.open_door()
    pair_shoe(EmulatorTransport(shoe), third, old_key=None, timeouts=FAST)
    shoe.close_door()
    assert shoe.key_id == auth.key_id(third)
    client = _client(made, EmulatorTransport(shoe), third)
    client.connect()
    assert client.authenticated


# -- two exchanges, the same checks -------------------------------------------------------------------


def test_a_dispense_is_two_exchanges_on_a_positioned_shoe(made: list[Callable[[], None]]) -> None:
    key = secrets.token_bytes(32)
    for protocol, most in (("1.1", 2), ("1.0", 6)):
        shoe = _shoe(made, key if protocol == "1.1" else None, protocol=protocol)
        counts: list[int] = [0]
        client = _client(made, Requests(EmulatorTransport(shoe), counts, []), key if protocol == "1.1" else None)
        client.connect()
        client.dispense(1)  # the first reads its "before" position
        for _ in range(3):
            counts[0] = 0
            client.dispense(2)
            assert counts[0] == most, protocol


def _report_rule(change: Callable[[m.DispenseReport], m.DispenseReport], phase_readback: bool) -> Rule:
    """Rewrite the position in the read-back (COMPLETE) or the STARTED report of the second dispense on."""
    seen = [0]

    def rule(message: m.Message, seq: int, state: MitmState) -> list[tuple[m.Message, int]] | None:
        if not isinstance(message, m.DispenseReport) or not message.positioned or message.dispense_id < 2:
            return None
        if (message.phase.name == "COMPLETE") != phase_readback or seen[0]:
            return None
        seen[0] += 1
        return [(change(message), seq)]

    return rule


def _plus(name: str, by: int) -> Callable[[m.DispenseReport], m.DispenseReport]:
    return lambda r: replace(r, **{name: getattr(r, name) + by})


@pytest.mark.parametrize(
    ("name", "by", "readback", "cause"),
    [
        ("cards_total", 1, True, "counters-mismatch"),  # the COUNTERS after the stack (removed exchange 5)
        ("stacks", 1, True, "counters-mismatch"),
        ("cards_remaining", -1, True, "counters-mismatch"),  # STATUS after the stack (removed exchange 6)
        ("last_dispense_id", 1, True, "counters-mismatch"),
        ("active_dispense_id", 9, True, "counters-mismatch"),
        ("cards_total", 1, False, "unasked-cards"),  # COUNTERS before the stack (removed exchange 1)
        ("stacks", 1, False, "unasked-cards"),
    ],
)
def test_each_removed_exchange_still_checks(
    made: list[Callable[[], None]], name: str, by: int, readback: bool, cause: str
) -> None:
    """The position carried in the reports is checked as COUNTERS and STATUS were: a lie in any field is caught."""
    _, client, _ = _liar(made, None, [_report_rule(_plus(name, by), readback)])
    client.dispense(1)
    with pytest.raises(ShoeDiscrepancy) as caught:
        client.dispense(2)
    assert caught.value.cause == cause


def test_cards_moved_between_dispenses_are_caught_without_asking_counters(made: list[Callable[[], None]]) -> None:
    """A card leaves the shoe between two dispenses (the counter moves): the next STARTED report shows it
    (removed exchange 1, "between two dispenses cards does not move")."""
    shoe, client, _ = _liar(made, None, [])
    client.dispense(1)
    shoe._mech.counters.cards += 1
    with pytest.raises(ShoeDiscrepancy) as caught:
        client.dispense(1)
    assert caught.value.cause == "unasked-cards"


def test_a_v10_shoe_is_still_checked_with_counters_and_status(made: list[Callable[[], None]]) -> None:
    _, client, _ = _liar(made, None, [])
    assert client.positioned
    v10 = _shoe(made, protocol="1.0")
    old = _client(made, EmulatorTransport(v10), None)
    old.connect()
    assert not old.positioned and not old.authenticated
    old.dispense(1)
    v10._mech.counters.cards += 1
    with pytest.raises(ShoeDiscrepancy):
        old.dispense(1)


class EchoedHellos(Transport):
    """The host's HELLO reaches the shoe twice: what a re-send does when the reply was only late."""

    def __init__(self, inner: Transport) -> None:
        self.inner, self.url = inner, inner.url
        self._deframer = Deframer()

    def write(self, data: bytes) -> None:
        self.inner.write(data)
        for item in self._deframer.feed(data):
            if isinstance(item, Frame) and item.msg_type == MsgType.HELLO:
                self.inner.write(b"\x00" + codec.encode_frame(item.version, item.msg_type, item.seq, item.payload))

    def read(self, timeout: float) -> bytes:
        return self.inner.read(timeout)

    def close(self) -> None:
        self.inner.close()

    def reopen(self) -> Transport:
        return EchoedHellos(self.inner.reopen())


def test_a_re_sent_hello_keeps_the_session(made: list[Callable[[], None]]) -> None:
    """A HELLO re-sent because its reply was late gets the same reply, and the session stands on both sides.

    Found by the 2,000-round soak: the shoe started a second session for the copy, the host kept the
    first reply's, and the next frame from the shoe (the second reply, an event) was refused: a misdeal
    with a security alarm on a line that only answered late."""
    key = secrets.token_bytes(32)
    shoe = _shoe(made, key)
    client = _client(made, EchoedHellos(EmulatorTransport(shoe)), key)
    notices: list[Any] = []
    client.subscribe(notices.append)
    client.connect()
    assert [r.card for r in client.dispense(2).cards] == ["3s", "Kc"]
    shoe.power_cycle()  # a new boot: a new HELLO, echoed again
    assert len(client.dispense(1).cards) == 1
    assert shoe.stats.sessions == 2
    assert client.link.stats.refused == 0 and not [n for n in notices if isinstance(n, FrameRefused)]
    assert client.link.stats.late_responses >= 2  # each copy's reply, discarded as a late duplicate


class StaleReplyFirst(Transport):
    """After a reopen, the first read carries the reply to an earlier HELLO (still in a buffer on the line)."""

    def __init__(self, inner: Transport, stale: list[bytes]) -> None:
        self.inner, self.url, self.stale = inner, inner.url, stale
        self._deframer = Deframer()

    def write(self, data: bytes) -> None:
        self.inner.write(data)

    def read(self, timeout: float) -> bytes:
        data = self.inner.read(timeout)
        if not self.stale:  # the first connection: keep the shoe's HELLO_REPLY for the next one
            for item in self._deframer.feed(data):
                if isinstance(item, Frame) and item.msg_type == MsgType.HELLO_REPLY:
                    self.stale.append(b"\x00" + codec.encode_frame(item.version, item.msg_type, item.seq, item.payload))
            return data
        if self.stale[0]:
            stale, self.stale[0] = self.stale[0], b""
            return stale + data
        return data

    def close(self) -> None:
        self.inner.close()

    def reopen(self) -> Transport:
        return StaleReplyFirst(self.inner.reopen(), self.stale)


def test_a_stale_reply_to_an_earlier_hello_is_passed_over(made: list[Callable[[], None]]) -> None:
    """A reply to another HELLO is not this handshake's: never a key mismatch, never an alarm."""
    key = secrets.token_bytes(32)
    shoe = _shoe(made, key)
    client = _client(made, StaleReplyFirst(EmulatorTransport(shoe), []), key)
    notices: list[Any] = []
    client.subscribe(notices.append)
    client.connect()
    client.dispense(1)
    shoe.unplug()
    deadline = time.monotonic() + 5
    while client.link.connected and time.monotonic() < deadline:
        time.sleep(0.02)
    shoe.replug()
    assert client.link.wait_connected(5)
    assert len(client.dispense(1).cards) == 1
    assert not [n for n in notices if isinstance(n, FrameRefused)], notices
    assert client.link.stats.refused == 0


def test_a_reply_that_does_not_verify_is_still_a_key_mismatch(made: list[Callable[[], None]]) -> None:
    """Waiting past a reply that fails its MAC does not hide another key: at the end it is the refusal."""
    shoe = _shoe(made, secrets.token_bytes(32))
    client = _client(made, EmulatorTransport(shoe), secrets.token_bytes(32))
    with pytest.raises(ShoeAuthError) as caught:
        client.connect()
    assert caught.value.cause == "key-mismatch"


def test_an_event_sent_just_after_the_status_answer_is_not_ahead(made: list[Callable[[], None]]) -> None:
    """The shoe answers STATUS, then sends an event; the reader delivers it before the resync compares.

    Found by the 2,000-round soak (two false "events-ahead" alarms, each after a deck load): the resync
    compared the events delivered by the time it read the answer with the count the answer gave."""
    key = secrets.token_bytes(32)
    shoe = _shoe(made, key)
    client = _client(made, EmulatorTransport(shoe), key)
    notices: list[Any] = []
    client.subscribe(notices.append)
    client.connect()
    client.dispense(2)
    client.release_stub()
    asked = client.status

    def status_then_an_event() -> m.Status:
        answer = asked()
        delivered = client._sequencer.last_delivered
        shoe.load(DECK)  # the dealer loads a deck: DECK_LOADED, numbered after the answer
        deadline = time.monotonic() + 5
        while client._sequencer.last_delivered == delivered and time.monotonic() < deadline:
            time.sleep(0.005)
        assert client._sequencer.last_delivered > answer.event_counter  # the race, made certain
        return answer

    client.status = status_then_an_event  # type: ignore[method-assign]
    client.resync()
    assert not [n for n in notices if isinstance(n, Discrepancy)], notices


def test_events_the_shoe_never_numbered_are_ahead(made: list[Callable[[], None]]) -> None:
    """A shoe (or a cable, on a plain link) whose STATUS counts fewer events than it delivered: the alarm."""

    def fewer(message: m.Message, seq: int, state: MitmState) -> list[tuple[m.Message, int]] | None:
        if isinstance(message, m.Status) and message.event_counter > 0:
            return [(replace(message, event_counter=message.event_counter - 1), seq)]
        return None

    _, client, notices = _liar(made, None, [fewer])
    client.dispense(1)
    client.resync()
    assert [n.cause for n in notices if isinstance(n, Discrepancy)] == ["events-ahead"], notices


class RebootBeforeTheScanAnswer(Transport):
    """The shoe answers a SCAN; the answer is lost with the link, and the shoe reboots before the replug."""

    def __init__(self, inner: Transport, shoe: EmulatedShoe, done: list[bool]) -> None:
        self.inner, self.url, self.shoe, self.done = inner, inner.url, shoe, done
        self._deframer = Deframer()

    def write(self, data: bytes) -> None:
        self.inner.write(data)

    def read(self, timeout: float) -> bytes:
        data = self.inner.read(timeout)
        if self.done[0] or not data:
            return data
        frames = [f for f in self._deframer.feed(data) if isinstance(f, Frame)]
        if any(f.msg_type == MsgType.SCAN_RESULT for f in frames):
            self.done[0] = True
            self.shoe.unplug()
            self.shoe.power_cycle()
            threading.Timer(0.2, self.shoe.replug).start()
            return b""  # the answer never reaches the host
        return data

    def close(self) -> None:
        self.inner.close()

    def reopen(self) -> Transport:
        return RebootBeforeTheScanAnswer(self.inner.reopen(), self.shoe, self.done)


def test_a_scan_in_flight_across_a_reboot_is_not_sent_again(made: list[Callable[[], None]]) -> None:
    """The re-send after a reconnect is safe only to the same boot: a rebooted shoe has no stored answer, and
    the same SCAN frame would read the stub's next card. The host sees the new boot in the HELLO_REPLY and
    fails the request instead (the service then asks the dealer for the card; docs/service.md)."""
    key = secrets.token_bytes(32)
    shoe = _shoe(made, key)
    client = _client(made, RebootBeforeTheScanAnswer(EmulatorTransport(shoe), shoe, [False]), key)
    client.connect()
    client.dispense(2)
    client.release_stub()
    stub = len(shoe._mech.stub)
    with pytest.raises(ShoeIOError, match="rebooted with SCAN in flight"):
        client.scan(timeout=1.0)
    assert len(shoe._mech.stub) == stub - 1  # one card read, by the SCAN before the reboot; none after


def test_a_paired_shoe_that_says_nothing_is_a_timeout_not_a_refusal(made: list[Callable[[], None]]) -> None:
    """A shoe switched off (or a line that loses every HELLO) answers nothing: that is a ShoeTimeout, as on a plain
    link, which the service retries quietly; only an answer can refuse (a NAK, a reply under another key)."""
    key = secrets.token_bytes(32)
    shoe = _shoe(made, key, drop_rate=1.0)  # every byte either way is lost: the shoe is as good as off
    client = _client(made, EmulatorTransport(shoe), key)
    with pytest.raises(ShoeTimeout, match="no reply to HELLO") as caught:
        client.connect()
    assert not isinstance(caught.value, ShoeAuthError)
    shoe.set_impairment(drop_rate=0.0)  # switched on: the next connect makes the session
    again = _client(made, EmulatorTransport(shoe), key)
    again.connect()
    assert again.authenticated and [r.card for r in again.dispense(2).cards] == ["3s", "Kc"]
