"""The simulator's shoe: the emulator's device model in process, spoken to frame by frame in one thread.

``SimShoe`` is the host's side of protocol v1 reduced to what one thread needs: each request is encoded
(``protocols.codec``), written into ``EmulatedShoe.host_write`` and its answer read back with
``host_read(0)`` through the real deframer, so CRC, replay (SPEC §4) and the device's stored results
are the emulator's own. The emulator runs on a ``ManualClock`` with instant timing: nothing sleeps, and
time moves only when a re-send waits (``REPLY_TIMEOUT_S``). What the host checks of a dispense is
``drivers.crosscheck`` (events against the stack, the stored result, the counters before and after).

Faults are planted at this boundary by the caller (``fault``: what the next request suffers):

- ``corrupt``: a byte of the answer's frame flipped (the deframer discards it, the host re-sends the
  same frame, the shoe replays its stored answer);
- ``lost``: the answer dropped (re-sent the same way);
- ``unplug``: the link lost with the request in flight (the shoe acted), replugged, and the same frame
  re-sent first (SPEC §4 and §6.7);
- ``link-down``: the same, but the reconnect gives up: the request raises ``ShoeIOError``;
- ``scan-give-up``: a SCAN the shoe answered, its answer lost with the link, and the reconnect giving up:
  the reveal fails and the dealer asks again (a new SCAN);
- ``scan-reboot``: a SCAN answered, the answer lost with the link, the shoe rebooted meanwhile: the new
  session names another boot, so the request fails as unknown instead of being re-sent (as drivers/link.py);
- ``lie``: the answer to QUERY_DISPENSE replaced by a valid frame naming other cards (a man in the middle);
- ``phantom``: the mechanism moves one card more than it reports (a shoe that moved cards it did not report).

``moved`` is the mechanism's own count of cards that left the shoe: the truth the invariants use.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec

from drivers.crosscheck import Position, counters_agree, reads_agree, stored_agrees
from drivers.emulator.config import EmulatorConfig
from drivers.emulator.device import EmulatedShoe, EmulatorUnplugged
from drivers.emulator.timing import ManualClock
from drivers.errors import ShoeDiscrepancy, ShoeIOError, ShoeProtocolError, ShoeTimeout
from drivers.stacks import DispenseFailed, Stack
from protocols import codec
from protocols import messages as m
from protocols.codes import DispensePhase, FaultCode
from protocols.fields import CardRead
from protocols.framing import BadFrame, Deframer

__all__ = ["SHOE_FAULTS", "SimShoe"]

T = TypeVar("T", bound=m.Message)

SHOE_FAULTS = ("corrupt", "lost", "unplug", "link-down", "lie", "phantom", "scan-reboot", "scan-give-up")
REPLY_TIMEOUT_S = 0.5  # SPEC §4's reply_timeout: the simulated clock moves by it at each re-send
RETRIES = 3
SERIAL = "SIM00001"


@dataclass
class _Timeouts:
    """What ``rounds.recovery`` asks of a client's timeouts."""

    def dispense(self, cards: int) -> float:
        return 0.0


@dataclass(frozen=True)
class _Identity:
    serial: str


class SimShoe:
    """One emulated shoe and the host's side of its link, in one thread (see the module docstring)."""

    def __init__(self, seed: int) -> None:
        self.clock = ManualClock()
        self.device = EmulatedShoe(EmulatorConfig(seed=seed, serial=SERIAL), clock=self.clock)
        self.identity = _Identity(SERIAL)
        self.timeouts = _Timeouts()
        self.fault: Callable[[str], str | None] = lambda what: None
        """Asked before each request (``what``: dispense, query, scan, release, status...): the fault it suffers."""
        self.fired: Callable[[str], None] = lambda kind: None
        """Told each fault that took effect (its kind)."""
        self.corrupt_rng = random.Random(seed ^ 0x5EED)
        self.reconnect()

    # -- the link --------------------------------------------------------------------------------

    def reconnect(self) -> None:
        """A new host side (after a restart of the table PC, or a new link): fresh sequence and deframer."""
        self._seq = 0
        self._deframer = Deframer()
        self._last_event = 0
        self._reads: dict[int, dict[int, CardRead]] = {}
        self._ready: dict[int, tuple[CardRead, ...]] = {}
        if not self.device.plugged:
            self.device.replug()
        self.boot_id = self._call(m.Identify(), m.Identity, "identify").boot_id
        self._next_id = self._call(m.GetStatus(), m.Status, "status").last_dispense_id + 1

    @property
    def moved(self) -> int:
        """Physical cards that left the shoe (the mechanism's count, not a protocol counter)."""
        return self.device._mech.moved

    def _exchange(self, wire: bytes, seq: int, fault: str | None) -> m.Message | None:
        """Write one request frame and read what the shoe answers now: the answer (``None``: none arrived)."""
        self.device.host_write(wire)
        data = self.device.host_read(0)
        if fault in ("unplug", "link-down", "scan-give-up", "scan-reboot"):
            self.device.unplug()  # the answer is lost with the link; the shoe acted
            return None
        if fault == "lost":
            data = b""
        elif fault == "corrupt":
            data = self._corrupt_answer(data, seq)
        reply = None
        for frame in self._deframer.feed(data):
            if isinstance(frame, BadFrame):
                continue
            message = codec.decode(frame)
            if isinstance(message, m.Event):
                self._event(message)
            elif frame.seq == seq:
                reply = message
        return reply

    def _corrupt_answer(self, data: bytes, seq: int) -> bytes:
        """One byte flipped inside the answer's frame (the events around it arrive intact)."""
        parts = data.split(b"\x00")
        for i, part in enumerate(parts):
            if not part:
                continue
            frames = [f for f in Deframer().feed(part + b"\x00") if not isinstance(f, BadFrame)]
            if frames and frames[0].seq == seq:
                flipped = bytearray(part)
                flipped[self.corrupt_rng.randrange(len(flipped))] ^= 1 << self.corrupt_rng.randrange(8)
                parts[i] = bytes(flipped).replace(b"\x00", b"\x01")
                return b"\x00".join(parts)
        return data

    def _call(self, message: m.Message, expected: type[T], what: str) -> T:
        """One request, re-sent with the same bytes on silence (SPEC §4); a Nak is ShoeProtocolError."""
        fault = self.fault(what)
        self._seq = self._seq % 0xFFFF + 1
        seq = self._seq
        wire = codec.encode(message, seq)
        reply = None
        for attempt in range(RETRIES + 1):
            try:
                reply = self._exchange(wire, seq, fault if attempt == 0 else None)
            except EmulatorUnplugged as exc:
                raise ShoeIOError(f"link lost: {exc}") from exc
            if attempt == 0 and fault is not None:
                self.fired(fault)
                if fault in ("link-down", "scan-give-up"):
                    raise ShoeIOError("link lost during request (the reconnect gave up)")
                if fault == "scan-reboot":
                    self.device.power_cycle()
                if fault in ("unplug", "scan-reboot"):
                    self.device.replug()  # the reconnect; the same frame is re-sent first (SPEC §4)
                if fault == "scan-reboot" and isinstance(message, m.Scan | m.ReleaseStub):
                    # As drivers/link.py does: the new session names another boot, whose shoe has no stored
                    # answer and would act again; the request's outcome is unknown (SPEC §4), never re-sent.
                    name = message.TYPE.name
                    raise ShoeIOError(f"the shoe rebooted with {name} in flight: whether it acted is unknown")
            if reply is not None:
                break
            self.clock.advance(REPLY_TIMEOUT_S)
            self.device.tick()
        if reply is None:
            raise ShoeTimeout(f"no reply to {message.TYPE.name} after {RETRIES + 1} tries")
        if isinstance(reply, m.Nak):
            raise ShoeProtocolError(f"{message.TYPE.name} refused: {reply.code.name}: {reply.detail}")
        if fault == "lie" and isinstance(reply, m.DispenseReport) and reply.cards:
            reply = self._forged(reply)
        if not isinstance(reply, expected):
            raise ShoeProtocolError(f"{message.TYPE.name} answered by {reply.TYPE.name}")
        if isinstance(reply, m.Identity | m.Status):
            self.boot_id = reply.boot_id
        return reply

    def _forged(self, report: m.DispenseReport) -> m.DispenseReport:
        """A valid frame with the first card swapped for another: what a device in the cable would send."""
        first = report.cards[0]
        other = "2c" if first.card != "2c" else "3d"
        return msgspec.structs.replace(report, cards=(CardRead(other), *report.cards[1:]))

    def _event(self, event: m.Event) -> None:
        if event.event_no <= self._last_event:
            return  # a re-sent event already handled
        self._last_event = event.event_no
        if isinstance(event, m.CardReadEvent):
            self._reads.setdefault(event.dispense_id, {})[event.position] = event.read
        elif isinstance(event, m.StackReady):
            self._ready[event.dispense_id] = event.cards
        self.device.host_write(codec.encode(m.EventAck(self.boot_id, event.event_no), 0))

    # -- what the desk asks ----------------------------------------------------------------------

    def status(self) -> m.Status:
        return self._call(m.GetStatus(), m.Status, "status")

    def counters(self) -> m.Counters:
        return self._call(m.GetCounters(), m.Counters, "counters")

    def query_dispense(self, dispense_id: int) -> m.DispenseReport:
        return self._call(m.QueryDispense(dispense_id), m.DispenseReport, "query")

    def event_log(self, first: int = 1, count: int = 64) -> tuple[int, list[m.Event], bool]:
        log = self._call(m.ReadEventLog(first, count), m.EventLog, "event-log")
        events = [codec.decode_payload(e.msg_type, e.payload) for e in log.events]
        return log.boot_id, [e for e in events if isinstance(e, m.Event)], log.more

    def release_stub(self) -> int:
        return self._call(m.ReleaseStub(), m.StubReleased, "release").count

    def scan(self) -> CardRead:
        return self._call(m.Scan(0), m.ScanResult, "scan").read

    def deck_check(self) -> m.DeckReport:
        return self._call(m.DeckCheck(), m.DeckReport, "deck-check")

    def load(self, codes: list[str]) -> None:
        """The dealer loads a deck by hand (the shoe announces it with DECK_LOADED)."""
        self.device.load(codes)

    def dispense(self, cards: int) -> Stack:
        """One stack, exactly once and cross-checked (SPEC §6): the report's position before and after,
        its events, its stored result. A fault ends it with :class:`DispenseFailed`."""
        did = self._next_id
        phantom = self.fault("phantom-arm") == "phantom"
        started = self._call(m.Dispense(did, cards), m.DispenseReport, "dispense")
        self._next_id = did + 1
        if phantom:
            self.fired("phantom")
        before = Position.carried(started)
        if started.phase is not DispensePhase.STARTED or before is None:
            raise ShoeDiscrepancy("phase-not-started", f"dispense {did} answered {started.phase.name}", dispense_id=did)
        if phantom:
            self._move_unreported()
        stored = self.query_dispense(did)
        failed = stored.phase is DispensePhase.FAILED
        events = self._reads.pop(did, {})
        ready = self._ready.pop(did, None)
        cards_read = stored.cards if ready is None else ready
        reads_agree(did, events, cards_read, every_card=ready is not None, what="STACK_READY")
        stored_agrees(did, stored, cards_read, failed=failed)
        after = Position.carried(stored)
        assert after is not None
        counters_agree(did, before, after, len(cards_read), failed=failed)
        if failed:
            raise DispenseFailed(FaultCode(stored.fault or FaultCode.INTERNAL_ERROR), did, cards_read)
        return Stack(did, cards_read, counters=(before.cards, after.cards))

    def _move_unreported(self) -> None:
        """A card leaves the shoe with no event and no report; the counters still see it (SPEC §6 check 4)."""
        mech = self.device._mech
        if mech.deck:
            mech.deck.popleft()
            mech.counters.cards += 1
            mech.moved += 1

    def shoe_state(self) -> dict[str, Any]:
        """What the simulator's report shows of the shoe (no card identity)."""
        mech = self.device._mech
        return {"moved": mech.moved, "remaining": len(mech.deck), "stub_released": mech.stub_released}
