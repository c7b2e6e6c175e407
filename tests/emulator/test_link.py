"""The protocol engine: NAK rules (§4, §7), replay by seq (§4), events re-sent until acknowledged (§5),
event log, boot id, unplug and replug, power cycle and RESET."""

from __future__ import annotations

import errno
import time

import pytest

from drivers.emulator import EmulatorUnplugged
from drivers.emulator.timing import ManualClock
from protocols import codec
from protocols import messages as m
from protocols.codes import Capability, DispensePhase, FaultCode, MsgType, NakCode, ShoeState
from protocols.framing import Deframer, Frame, encode_frame
from tests.emulator import DECK, Factory, shoe_factory

new = pytest.fixture(shoe_factory)
STATUS = m.Status(ShoeState.IDLE, 0, 0, 0, 0, 0, 1, False, False)


def test_identify_and_status_of_a_fresh_shoe(new: Factory) -> None:
    shoe, host = new(deck=DECK, model="M", serial="S1", firmware="F")
    identity = host.call(m.Identify(), m.Identity)
    assert (identity.model, identity.serial, identity.firmware, identity.protocol_version) == ("M", "S1", "F", 1)
    assert identity.capabilities & Capability.FAULT_INJECTION and identity.capabilities & Capability.DISPENSE
    assert identity.boot_id == shoe.boot_id != 0
    assert host.status() == m.Status(ShoeState.IDLE, 0, len(DECK), 0, 0, 0, shoe.boot_id, False, False)


def test_same_seq_and_bytes_get_the_stored_response_without_acting_again(new: Factory) -> None:
    shoe, host = new(deck=DECK)
    first = host.call(m.Dispense(1, 2), m.DispenseReport, seq=10)
    host.pump()
    events = len(host.events)
    again = host.call(m.Dispense(1, 2), seq=10)
    assert again == first  # the stored STARTED, not a replayed COMPLETE: the request was not acted on
    assert again.phase is DispensePhase.STARTED and not again.replayed
    host.pump()
    assert len(host.events) == events
    assert shoe.stats.replays == 1 and shoe.stats.dispense_replays == 0 and shoe.stats.cards_moved == 2


def test_same_seq_with_other_bytes_is_a_new_request(new: Factory) -> None:
    _shoe, host = new(deck=DECK)
    host.call(m.GetStatus(), m.Status, seq=5)
    assert isinstance(host.call(m.Identify(), seq=5), m.Identity)


def test_replayed_nak_is_byte_identical(new: Factory) -> None:
    shoe, _host = new(deck=DECK, door_open=True)
    wire = codec.encode(m.Dispense(1, 1), 7)
    shoe.host_write(wire)
    shoe.host_read(0.1)
    shoe.host_write(wire)
    assert shoe.host_read(0.1) == codec.encode(
        m.Nak(NakCode.FAULT_ACTIVE, "DISPENSE refused: fault DOOR_OPEN is active"), 7
    )


@pytest.mark.parametrize(
    ("wire", "code"),
    [
        (encode_frame(2, MsgType.IDENTIFY, 3), NakCode.UNSUPPORTED_VERSION),
        (encode_frame(1, 0x3E, 3), NakCode.UNKNOWN_MESSAGE),
        (encode_frame(1, MsgType.STATUS, 3, codec.encode_payload(STATUS)), NakCode.UNKNOWN_MESSAGE),
        (encode_frame(1, MsgType.CARD_READ, 3, b"\x01"), NakCode.UNKNOWN_MESSAGE),
        (encode_frame(1, MsgType.DISPENSE, 3, b"\x01\x00"), NakCode.MALFORMED),
        (encode_frame(1, MsgType.SCAN, 3, b"\x01"), NakCode.MALFORMED),
        (encode_frame(1, MsgType.GET_STATUS, 0), NakCode.MALFORMED),
    ],
    ids=["version-2", "unknown-type", "response-type", "event-type", "short-dispense", "short-scan", "seq-0"],
)
def test_naks_per_spec(new: Factory, wire: bytes, code: NakCode) -> None:
    shoe, host = new(deck=DECK)
    shoe.host_write(wire)
    (reply,) = host.pump(0.1)
    assert isinstance(reply, m.Nak) and reply.code is code
    (frame,) = Deframer().feed(wire)
    assert isinstance(frame, Frame) and host.responses[0][0] == frame.seq  # the NAK echoes the seq
    assert shoe.stats.naks == 1 and shoe.stats.cards_moved == 0


def test_nak_echoes_the_seq_and_is_a_version_1_frame(new: Factory) -> None:
    shoe, host = new(deck=DECK)
    shoe.host_write(encode_frame(9, MsgType.IDENTIFY, 321))
    host.pump(0.1)
    seq, reply = host.responses[0]
    assert seq == 321 and isinstance(reply, m.Nak)  # decoded as v1 by the codec


def test_bytes_after_the_known_fields_are_ignored(new: Factory) -> None:
    shoe, host = new(deck=DECK)
    shoe.host_write(encode_frame(1, MsgType.DISPENSE, 4, codec.encode_payload(m.Dispense(1, 1)) + b"future"))
    assert host.wait_response(4) == m.DispenseReport(1, DispensePhase.STARTED, False, 0, ())


def test_bad_frames_are_discarded_silently_and_counted(new: Factory) -> None:
    shoe, host = new(deck=DECK)
    wire = bytearray(codec.encode(m.Identify(), 1))
    wire[3] ^= 0x40  # CRC mismatch
    shoe.host_write(bytes(wire) + b"\x00\x00" + b"\x07" * 2000 + b"\x00" + b"\x01\x02\x00")
    assert host.pump(0.05) == []
    assert shoe.stats.frames_in_bad == 3  # CRC, oversize, short
    assert isinstance(host.call(m.Identify()), m.Identity)  # resynchronised at the next delimiter


def test_events_are_resent_until_acknowledged_then_never_again(new: Factory) -> None:
    clock = ManualClock()
    shoe, host = new(clock, deck=DECK)
    host.call(m.Dispense(1, 2), m.DispenseReport)
    host.pump()
    assert [e.event_no for e in host.events] == [1, 2, 3, 4]
    clock.advance(0.1)
    shoe.tick()
    assert host.pump() == []  # not yet: 0.2 s after the last transmission
    clock.advance(0.1)
    shoe.tick()
    assert [e.event_no for e in host.pump() if isinstance(e, m.Event)] == [1, 2, 3, 4]  # oldest first
    host.ack(event_no=2)  # a partial, cumulative acknowledgement
    clock.advance(0.2)
    shoe.tick()
    assert [e.event_no for e in host.pump() if isinstance(e, m.Event)] == [3, 4]
    host.ack(boot_id=shoe.boot_id ^ 1, event_no=4)  # another boot's ack is ignored
    clock.advance(0.2)
    shoe.tick()
    assert [e.event_no for e in host.pump() if isinstance(e, m.Event)] == [3, 4]
    host.ack(event_no=4)
    for _ in range(5):
        clock.advance(0.2)
        shoe.tick()
    assert host.pump() == []
    assert shoe.stats.events_sent == 4 and shoe.stats.events_resent == 4 + 2 + 2 and shoe.stats.acks == 2


def test_resend_runs_on_the_timer_thread_with_the_real_clock(new: Factory) -> None:
    shoe, host = new(deck=DECK, event_resend_s=0.05)
    host.call(m.Dispense(1, 1), m.DispenseReport)
    time.sleep(0.3)
    host.pump()
    assert shoe.stats.events_resent >= 3
    host.ack()
    host.pump(0.1)
    resent = shoe.stats.events_resent
    time.sleep(0.2)
    assert shoe.stats.events_resent == resent


def test_unplug_keeps_state_and_replug_resends_unacked_events(new: Factory) -> None:
    clock = ManualClock()
    shoe, host = new(clock, deck=DECK, auto_take=False)
    host.call(m.Dispense(1, 2), m.DispenseReport)
    host.pump()
    host.ack()
    boot = shoe.boot_id
    shoe.unplug()
    assert not shoe.plugged
    with pytest.raises(EmulatorUnplugged) as raised:
        shoe.host_read(0)
    assert raised.value.errno == errno.ENODEV
    with pytest.raises(EmulatorUnplugged):
        shoe.host_write(b"\x00")
    shoe.take_stack()  # the dealer takes the stack while the cable is out: the event waits
    clock.advance(1.0)
    shoe.tick()
    shoe.replug()
    assert [type(e) for e in host.pump()] == [m.StackTaken]
    assert host.status().boot_id == boot
    assert host.status().last_dispense_id == 1
    assert host.call(m.Dispense(1, 2), m.DispenseReport).replayed


def test_unplug_loses_bytes_in_flight(new: Factory) -> None:
    shoe, host = new(deck=DECK)
    host.send(m.Identify())
    shoe.unplug()
    shoe.replug()
    assert host.pump(0.05) == []


def test_power_cycle_changes_boot_restarts_events_and_keeps_counters(new: Factory) -> None:
    shoe, host = new(deck=DECK)
    host.call(m.Dispense(1, 2), m.DispenseReport)
    old_boot = shoe.boot_id
    shoe.power_cycle()
    status = host.status()
    assert status.boot_id == shoe.boot_id != old_boot
    assert status.event_counter == 0 and status.last_dispense_id == 1
    counters = host.call(m.GetCounters(), m.Counters)
    assert (counters.cards, counters.stacks, counters.power_cycles) == (2, 1, 1)
    assert host.call(m.ReadEventLog(1, 50), m.EventLog).events == ()  # the log is of this boot
    host.events.clear()
    host.call(m.Dispense(2, 1), m.DispenseReport)
    host.pump()
    assert host.events[0].event_no == 1


def test_reset_answers_ok_then_reboots(new: Factory) -> None:
    shoe, host = new(deck=DECK)
    old_boot = shoe.boot_id
    assert host.call(m.Reset(), m.Ok) == m.Ok()
    assert shoe.boot_id != old_boot
    assert host.call(m.Identify(), m.Identity).boot_id == shoe.boot_id
    assert host.call(m.GetCounters(), m.Counters).power_cycles == 0


def test_event_log_pages_and_keeps_the_last_1024(new: Factory) -> None:
    shoe, host = new(deck=DECK)
    for _ in range(520):
        shoe.open_door()
        shoe.close_door()
    page = host.call(m.ReadEventLog(1, 255), m.EventLog)
    assert page.boot_id == shoe.boot_id and page.more
    numbers = [int.from_bytes(e.payload[:4], "little") for e in page.events]
    assert numbers[0] == 1040 - 1024 + 1  # the oldest kept
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
    assert sum(3 + len(e.payload) for e in page.events) + 6 <= 1024  # fits one payload
    last = host.call(m.ReadEventLog(1039, 10), m.EventLog)
    assert [int.from_bytes(e.payload[:4], "little") for e in last.events] == [1039, 1040] and not last.more
    assert last.events[1] == codec.logged(m.FaultCleared(1040, FaultCode.DOOR_OPEN))
    two = host.call(m.ReadEventLog(1000, 2), m.EventLog)
    assert len(two.events) == 2 and two.more
    assert host.call(m.ReadEventLog(2000, 5), m.EventLog) == m.EventLog(shoe.boot_id, False, ())


def test_requests_wait_in_order_behind_a_waiting_scan(new: Factory) -> None:
    clock = ManualClock()
    shoe, host = new(clock, deck=DECK)
    host.call(m.ReleaseStub(), m.StubReleased)
    for _ in DECK:
        host.call(m.Scan(100), m.ScanResult)
    scan = host.send(m.Scan(500))
    shoe.host_write(codec.encode(m.Scan(500), scan))  # a repeat while it waits is ignored
    status = host.send(m.GetStatus())
    assert host.pump() == []
    clock.advance(0.5)
    shoe.tick()
    replies = host.pump()
    assert [type(r) for r in replies] == [m.Nak, m.Status]
    assert [seq for seq, _ in host.responses] == [scan, status]
