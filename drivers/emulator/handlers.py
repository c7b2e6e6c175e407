"""What the emulated shoe does for each request, and the timed flows behind them (dispense, scan).

``ShoeHandlers`` is the base of ``EmulatedShoe`` (``device.py``), which owns the link, the event
stream and the boot; this half owns the dispense result store (SPEC §6) and the requests.
Decisions where the SPEC leaves room:

- **SCAN with nothing to read** waits ``timeout_ms`` and answers **NAK BAD_STATE** ("no card passed
  the reader"); READER_FAULT is kept for a reader that is broken. SCAN when no stub was released
  answers NAK BAD_STATE at once.
- **DISPENSE** checks in this order: the active id (IN_PROGRESS), a stored id (replayed result), a
  lower or equal unstored id (STALE_DISPENSE_ID), then id 0 or ``cards`` outside 1..4
  (BAD_ARGUMENT), another dispense active (BAD_STATE), a blocking fault (FAULT_ACTIVE), then tray
  occupied, stub released or too few cards (BAD_STATE). The result store keeps the last 256 dispenses.
- **UNREADABLE_CARD** is raised (FAULT_RAISED with the dispense id) after the STACK_READY of every
  stack holding an unreadable card, even if the fault was already active.
- **Auto take**: the dealer takes whatever lies in the tray (a complete stack or the cards of a failed
  one) ``take_delay_s`` after it lands; in instant timing with no delay STACK_TAKEN follows at once.
- **Seq 0** is never a request (§2): NAK MALFORMED, except EVENT_ACK (never answered anyway).
- **CLEAR_FAULT** of a fault that is not active answers OK; of DOOR_OPEN or INTERNAL_ERROR while
  active, NAK BAD_STATE (they clear by closing the door, by RESET); of an unknown code, NAK MALFORMED.
- **DECK_CHECK, SELF_TEST, RELEASE_STUB** are refused with BAD_STATE while a dispense is active.
- **Loading** (SPEC §11, ``_load_deck``): DECK_LOADED with the total the shoe now holds and the back,
  then FAULT_CLEARED SHOE_EMPTY if that fault was active. With ``autoload`` the dealer takes the stub
  away right after RELEASE_STUB and loads the next deck (so SCAN has nothing to read then).
"""

from __future__ import annotations

import logging
from collections import Counter, OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import structlog
from msgspec.structs import replace

from drivers.emulator import firmware, model
from drivers.emulator.config import MAX_DECK, EmulatorConfig
from drivers.emulator.deck import DeckLoad
from drivers.emulator.timing import TimingProfile
from protocols import auth, codec
from protocols import messages as m
from protocols.codes import PROTOCOL_MINOR, PROTOCOL_VERSION, Capability, DispensePhase, FaultCode, NakCode, ReadStatus
from protocols.fields import CardRead, LoggedEvent
from protocols.framing import MAX_PAYLOAD, Frame

log = structlog.get_logger(__name__)
_debug = logging.getLogger(__name__).isEnabledFor  # per-dispense lines: built only when shown

CAPABILITIES = int(Capability.DISPENSE | Capability.SCAN | Capability.DECK_CHECK | Capability.TRAY_SENSOR
                   | Capability.EVENT_LOG | Capability.SELF_TEST | Capability.FAULT_INJECTION
                   | Capability.DECK_LOADED | Capability.FIRMWARE_DIGEST)  # fmt: skip
V11_CAPABILITIES = int(Capability.AUTH | Capability.DISPENSE_POSITION)
RESULTS_KEPT = 256
UNKNOWN_REMAINING = 0xFFFF
Key = tuple[int, int, int, bytes]
"""A request as compared for replay: version, type, seq, payload."""
Result = tuple[DispensePhase, int, tuple[CardRead, ...]]


class RequestError(Exception):
    """Refuse the request with NAK ``code``."""

    def __init__(self, code: NakCode, detail: str) -> None:
        super().__init__(detail)
        self.code = code


@dataclass
class Dispensing:
    dispense_id: int
    cards: int
    reads: list[CardRead] = field(default_factory=list)


def decode_request(frame: Frame) -> m.Message:
    """A request, or MessageError/RequestError carrying the NAK to answer."""
    if frame.version == PROTOCOL_VERSION and not 0 < frame.msg_type < 0x40:
        raise RequestError(NakCode.UNKNOWN_MESSAGE, f"message type 0x{frame.msg_type:02X} is not a request")
    request = codec.decode(frame)
    if frame.seq == 0 and not isinstance(request, m.EventAck):
        raise RequestError(NakCode.MALFORMED, "sequence 0 is never a request")
    return request


class ShoeHandlers:
    config: EmulatorConfig
    _mech: model.Mechanism
    _timing: TimingProfile
    _count: Counter[str]
    _results: OrderedDict[int, Result]
    _last_id: int
    _boot_id: int
    _event_no: int
    _log: deque[tuple[int, LoggedEvent]]
    _active: Dispensing | None
    _waiting: Key | None
    _scan_no: int
    _after: list[Callable[[], None]]
    _key: bytes | None
    dispensed: dict[tuple[int, int], str | None] | None = None
    """When a dict: every card the mechanism read in a dispense, (dispense id, position) -> card (opt-in)."""

    # provided by EmulatedShoe
    def _emit(self, make: Callable[[int], m.Event]) -> None:
        raise NotImplementedError

    def _later(self, delay: float, action: Callable[[], None]) -> None:
        raise NotImplementedError

    def _finish_waiting(self, reply: m.Message) -> None:
        raise NotImplementedError

    def _reboot(self, *, keep_line: bool) -> None:
        raise NotImplementedError

    def _dispatch(self, request: m.Message) -> m.Message | None:
        """The response, or None when it comes later (a SCAN waiting for a card)."""
        cfg, mech = self.config, self._mech
        match request:
            case m.Identify():
                return self._identity()
            case m.GetStatus():
                return self._status()
            case m.Dispense():
                return self._positioned(self._dispense(request))
            case m.QueryDispense():
                did = request.dispense_id
                return self._positioned(self._known(did) or m.DispenseReport(did, DispensePhase.UNKNOWN, False, 0, ()))
            case m.ReleaseStub():
                self._not_dispensing("RELEASE_STUB")
                count = mech.release_stub()
                log.info("emulator_stub_released", cards=count)
                if cfg.autoload:
                    self._after.append(self._autoload)
                return m.StubReleased(min(count, 255))
            case m.Scan():
                return self._scan(request.timeout_ms)
            case m.DeckCheck():
                self._not_dispensing("DECK_CHECK")
                return m.DeckReport(*mech.deck_check())
            case m.SelfTest():
                self._not_dispensing("SELF_TEST")
                results = mech.self_test()
                return m.SelfTestReport(all(ok for _, ok in results), results)
            case m.GetCounters():
                return m.Counters(*mech.counters.values())
            case m.ReadEventLog():
                return self._event_log(request.first_event, request.max_events)
            case m.ClearFault():
                return self._clear_fault(request.code)
            case m.Reset():
                self._count["resets"] += 1
                self._after.append(lambda: self._reboot(keep_line=True))
                return m.Ok()
            case m.FirmwareDigest():
                return firmware.digest(cfg, request.seed)
        raise RequestError(NakCode.NOT_SUPPORTED, f"{type(request).__name__} is not supported")

    def _identity(self) -> m.Identity:
        cfg = self.config
        if cfg.protocol == "1.0":
            return m.Identity(cfg.model, cfg.serial, cfg.firmware, PROTOCOL_VERSION,
                              firmware.capabilities(cfg, CAPABILITIES), self._boot_id)  # fmt: skip
        key = self._key
        return m.Identity(cfg.model, cfg.serial, cfg.firmware, PROTOCOL_VERSION,
                          firmware.capabilities(cfg, CAPABILITIES | V11_CAPABILITIES), self._boot_id, PROTOCOL_MINOR,
                          m.Identity.AUTH_UNPAIRED if key is None else m.Identity.AUTH_PAIRED,
                          0 if key is None else auth.key_id(key))  # fmt: skip

    def _positioned(self, report: m.DispenseReport) -> m.DispenseReport:
        """v1.1: the report carries the counters and cards remaining as they are now (SPEC §6 check 4)."""
        if self.config.protocol == "1.0":
            return report
        status, counters = self._status(), self._mech.counters
        return replace(report, cards_total=counters.cards, stacks=counters.stacks,
                       cards_remaining=status.cards_remaining, last_dispense_id=status.last_dispense_id,
                       active_dispense_id=status.active_dispense_id)  # fmt: skip

    def _status(self) -> m.Status:
        mech = self._mech
        remaining = mech.cards_remaining()
        return m.Status(
            mech.state(dispensing=self._active is not None, scanning=self._waiting is not None),
            mech.fault_flags(),
            UNKNOWN_REMAINING if remaining is None else min(remaining, UNKNOWN_REMAINING - 1),
            self._last_id,
            self._active.dispense_id if self._active else 0,
            self._event_no,
            self._boot_id,
            mech.tray_occupied,
            mech.door_open,
        )

    def _not_dispensing(self, what: str) -> None:
        if self._active is not None:
            raise model.Refused(f"{what} refused: dispense {self._active.dispense_id} is active")

    # --- dispensing (SPEC §6) ---------------------------------------------------------------------

    def _known(self, did: int) -> m.DispenseReport | None:
        """Rules 3-5: the active id, a stored id, or a stale one; None for an id never seen."""
        active = self._active
        if active is not None and active.dispense_id == did:
            return m.DispenseReport(did, DispensePhase.IN_PROGRESS, False, 0, tuple(active.reads))
        stored = self._results.get(did)
        if stored is not None:
            self._count["dispense_replays"] += 1
            phase, fault, reads = stored
            return m.DispenseReport(did, phase, True, fault, reads)
        bound = max(self._last_id, active.dispense_id if active else 0)
        if 0 < did <= bound:
            raise RequestError(
                NakCode.STALE_DISPENSE_ID, f"dispense id {did} is not above {bound} and has no stored result"
            )
        return None

    def _dispense(self, request: m.Dispense) -> m.DispenseReport:
        did, cards = request.dispense_id, request.cards
        known = self._known(did)
        if known is not None:
            return known
        if did == 0:
            raise RequestError(NakCode.BAD_ARGUMENT, "dispense id 0 means 'none'; ids start at 1")
        if not 1 <= cards <= 4:
            raise RequestError(NakCode.BAD_ARGUMENT, f"cards {cards} is outside 1..4")
        self._not_dispensing("DISPENSE")
        self._mech.verify_dispense(cards)
        self._active = Dispensing(did, cards)
        self._mech.begin_stack(did)
        self._count["dispenses_started"] += 1
        if _debug(logging.DEBUG):
            log.debug("emulator_dispense_started", dispense_id=did, cards=cards)
        if self._timing.instant:
            self._after.append(lambda: self._run_instant(did))
        else:
            self._later(self._timing.card_s, lambda: self._step(did))
        return m.DispenseReport(did, DispensePhase.STARTED, False, 0, ())

    def _run_instant(self, did: int) -> None:
        while self._active is not None and self._active.dispense_id == did:
            self._step(did)

    def _step(self, did: int) -> None:
        active = self._active
        if active is None or active.dispense_id != did:
            return
        feed = self._mech.feed()
        read = feed.read
        if read is None:
            self._end_dispense(DispensePhase.FAILED, feed.fault or FaultCode.INTERNAL_ERROR)
            return
        active.reads.append(read)
        position = len(active.reads)
        if self.dispensed is not None:  # the ground truth a test or soak compares the host's records with
            self.dispensed[(did, position)] = read.card
        self._emit(lambda n: m.CardReadEvent(n, did, position, read))
        if position == active.cards:
            self._end_dispense(DispensePhase.COMPLETE, 0)
        elif not self._timing.instant:
            self._later(self._timing.card_s, lambda: self._step(did))

    def _store(self, active: Dispensing, phase: DispensePhase, fault: int) -> tuple[CardRead, ...]:
        reads = tuple(active.reads)
        self._results[active.dispense_id] = (phase, fault, reads)
        while len(self._results) > RESULTS_KEPT:
            self._results.popitem(last=False)
        self._last_id = max(self._last_id, active.dispense_id)
        self._active = None
        return reads

    def _end_dispense(self, phase: DispensePhase, fault: int) -> None:
        assert self._active is not None
        did = self._active.dispense_id
        reads = self._store(self._active, phase, fault)
        if _debug(logging.DEBUG):
            log.debug("emulator_dispense_ended", dispense_id=did, phase=phase.name, cards=len(reads), fault=fault)
        if phase is DispensePhase.COMPLETE:
            self._mech.counters.stacks += 1
            self._emit(lambda n: m.StackReady(n, did, reads))
            if any(read.status is not ReadStatus.OK for read in reads):
                self._mech.raise_fault(FaultCode.UNREADABLE_CARD)
                self._emit(lambda n: m.FaultRaised(n, FaultCode.UNREADABLE_CARD, did))
        elif fault:
            self._emit(lambda n: m.FaultRaised(n, FaultCode(fault), did))
        self._schedule_take()

    # --- tray, faults -----------------------------------------------------------------------------

    def _schedule_take(self) -> None:
        if not self.config.auto_take or not self._mech.tray_occupied:
            return
        if self._timing.instant and self.config.take_delay_s == 0:
            self._take()
        else:
            self._later(self.config.take_delay_s, self._take)

    def _take(self) -> None:
        did = self._mech.take()
        if did is not None:
            self._emit(lambda n: m.StackTaken(n, did))

    def _fault(self, code: FaultCode) -> None:
        """A fault the mechanism has just raised: announce it, interrupt what it stops."""
        log.info("emulator_fault_raised", code=code.name)
        blocking = code in model.BLOCKING
        if blocking and self._active is not None:
            self._end_dispense(DispensePhase.FAILED, code)  # announces the fault with the dispense id
        else:
            self._emit(lambda n: m.FaultRaised(n, code, 0))
        if blocking and self._waiting is not None:
            self._scan_no += 1
            self._finish_waiting(m.Nak(NakCode.FAULT_ACTIVE, f"SCAN interrupted: fault {code.name}"))

    def _clear_fault(self, code: int) -> m.Ok:
        faults = self._mech.faults
        if code == 0:
            targets = sorted(faults & model.CLEARABLE)
        else:
            try:
                fault = FaultCode(code)
            except ValueError:
                raise RequestError(NakCode.MALFORMED, f"{code} is not a fault code") from None
            if fault in faults and fault not in model.CLEARABLE:
                how = "closing the door" if fault is FaultCode.DOOR_OPEN else "RESET"
                raise model.Refused(f"{fault.name} is cleared by {how}, not CLEAR_FAULT")
            targets = [fault] if fault in faults else []
        for fault in targets:
            self._mech.clear_fault(fault)
            log.info("emulator_fault_cleared", code=fault.name)
            self._emit(partial(m.FaultCleared, code=fault))
        return m.Ok()

    # --- the deck cycle (SPEC §11) ----------------------------------------------------------------

    def _load_deck(self, spec: DeckLoad) -> int:
        """The dealer loads ``spec``: the cards the shoe holds afterwards. ValueError when it cannot."""
        if self._active is not None:
            raise ValueError(f"dispense {self._active.dispense_id} is active: load after it ends")
        cards = spec.cards()
        held = len(self._mech.deck) if spec.mid_round and not self._mech.stub_released else 0
        if len(cards) + held > MAX_DECK:
            raise ValueError(f"{len(cards) + held} cards exceed the {MAX_DECK}-card limit of the protocol")
        cleared = self._mech.load_cards([(c.code, c.foreign) for c in cards], spec.back, mid_round=spec.mid_round)
        count = len(self._mech.deck)
        sensed = count if self._mech.count_known else m.DeckLoaded.UNKNOWN_COUNT
        self._emit(lambda n: m.DeckLoaded(n, sensed, spec.back))
        if cleared:
            self._emit(lambda n: m.FaultCleared(n, FaultCode.SHOE_EMPTY))
        self._count["decks_loaded"] += 1
        log.info("emulator_deck_loaded", cards=count, back=spec.back)  # never the order or the faults (§9)
        return count

    def _autoload(self) -> None:
        if not self._mech.stub_released:
            return
        number = self._count["decks_loaded"] + 1
        seed = None if self.config.seed is None else self.config.seed * 1_000_003 + number
        self._load_deck(DeckLoad(seed=seed, back=self.config.back))

    # --- scan, event log --------------------------------------------------------------------------

    def _scan(self, timeout_ms: int) -> m.Message | None:
        self._not_dispensing("SCAN")
        self._mech.verify_scan()
        self._scan_no += 1
        token = self._scan_no
        if self._mech.stub:
            if self._timing.instant:
                return self._scan_result()
            self._later(self._timing.scan_s, lambda: self._scan_done(token, None))
        elif timeout_ms == 0:
            raise model.Refused("no card passed the reader (timeout 0 ms)")
        else:
            nak = m.Nak(NakCode.BAD_STATE, f"no card passed the reader within {timeout_ms} ms")
            self._later(timeout_ms / 1000.0, lambda: self._scan_done(token, nak))
        return None

    def _scan_result(self) -> m.Message:
        read = self._mech.scan()
        if read is None:
            return m.Nak(NakCode.BAD_STATE, "no card passed the reader")
        return m.ScanResult(read)

    def _scan_done(self, token: int, nak: m.Message | None) -> None:
        if token == self._scan_no and self._waiting is not None:
            self._finish_waiting(nak or self._scan_result())

    def _event_log(self, first: int, max_events: int) -> m.EventLog:
        items = [event for number, event in self._log if number >= max(first, 1)]
        chosen: list[LoggedEvent] = []
        size = 4 + 1 + 1  # boot_id, more, count
        for event in items[:max_events]:
            size += 1 + 2 + len(event.payload)
            if size > MAX_PAYLOAD:
                break
            chosen.append(event)
        return m.EventLog(self._boot_id, len(chosen) < len(items), tuple(chosen))
