"""The shoe side of protocol v1 over the mechanism model: ``EmulatedShoe``.

The host's bytes go in through ``host_write`` and the shoe's come out of ``host_read``; everything in
between follows ``protocols/SPEC.md``. Decisions where the SPEC leaves room (the request handlers'
are in ``handlers.py``, the mechanism's in ``model.py``):

- **Replay (§4)**: the last answered request (version, type, seq, payload) and its response bytes
  are kept; the same request again gets the same bytes without acting. A repeat of a request still
  being worked on (a waiting SCAN) is ignored; other requests that arrive meanwhile wait their turn
  (answers stay in arrival order). EVENT_ACK is never answered and never replaces the stored request.
- **Reboot** (power_cycle, RESET): new random boot id, event numbers restart, unacked events, the
  event log, the stored reply and a waiting SCAN are lost; the dispense results, ``last_dispense_id``
  and counters are kept. A dispense cut by the reboot is stored FAILED with fault 0. Faults still
  active after boot are announced again with FAULT_RAISED (dispense id 0). RESET does not count in
  ``power_cycles``.
- **Events**: unacked events (at most 1,024) are re-sent ``event_resend_s`` after their last
  transmission, oldest first; while unplugged nothing is sent and all of them go out again on replug.
"""

from __future__ import annotations

import errno
import secrets
import threading
import time
from collections import Counter, OrderedDict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from functools import partial

import structlog

from drivers.emulator import model
from drivers.emulator.config import EmulatorConfig, check_deck
from drivers.emulator.deck import DeckLoad
from drivers.emulator.handlers import Dispensing, Key, RequestError, Result, ShoeHandlers, decode_request
from drivers.emulator.impairment import DelayLine, Impairment, random_for
from drivers.emulator.timing import Clock, Timekeeper, profile
from protocols import codec
from protocols import messages as m
from protocols.codes import PROTOCOL_VERSION, DispensePhase, FaultCode, MsgType, NakCode
from protocols.fields import LoggedEvent
from protocols.framing import BadFrame, Deframer, Frame, encode_frame

log = structlog.get_logger(__name__)

LOG_SIZE = 1024
DEFAULT_CONFIG = EmulatorConfig()


class EmulatorUnplugged(OSError):
    """The emulated link is unplugged (or the emulator closed): errno ENODEV."""

    def __init__(self, message: str = "the emulated shoe is unplugged") -> None:
        super().__init__(errno.ENODEV, message)


@dataclass(frozen=True)
class EmulatorStats:
    cards_moved: int = 0  # physical cards that left the shoe
    dispenses_started: int = 0
    replays: int = 0  # stored responses re-sent for a repeated request (§4)
    dispense_replays: int = 0  # stored dispense results reported (§6 rule 4)
    resets: int = 0  # reboots ordered by RESET
    frames_in: int = 0
    frames_in_bad: int = 0  # discarded silently: COBS, length, CRC, oversize
    naks: int = 0
    events_sent: int = 0
    events_resent: int = 0
    acks: int = 0
    bytes_corrupted: int = 0
    bytes_dropped: int = 0


@dataclass
class _Unacked:
    wire: bytes
    last_sent: float


class EmulatedShoe(ShoeHandlers):
    """A shoe speaking protocol v1. Thread-safe; owns a lazily started timer thread (``close()``).

    ``clock`` (keyword, tests): a ``ManualClock``; no thread then, ``tick()`` runs what is due.
    """

    def __init__(self, config: EmulatorConfig = DEFAULT_CONFIG, *, clock: Clock | None = None) -> None:
        self.config = config
        lock = threading.RLock()
        self._cond = threading.Condition(lock)
        """Readers of the shoe's output (``host_read``) wait on it; the timer thread waits on its own."""
        self._time = Timekeeper(lock, clock, self._resend_due, self._resend)
        self._timing = profile(config.timing)
        self._line = Impairment(random_for(config.seed, "line"), config.corrupt_rate, config.drop_rate,
                                config.latency_ms)  # fmt: skip
        self._mech = model.Mechanism(config)
        self._out = DelayLine()
        self._deframer = Deframer()
        self._plugged = True
        self._closed = False
        self._generation = 0
        self._count: Counter[str] = Counter()
        self._results: OrderedDict[int, Result] = OrderedDict()
        self._last_id = 0
        self._boot_id = 0
        self._after: list[Callable[[], None]] = []
        self._listeners: list[Callable[[], None]] = []
        with self._cond:
            self._boot()

    # --- link -----------------------------------------------------------------------------------

    def host_write(self, data: bytes) -> None:
        with self._cond:
            self._check_link()
            for item in self._deframer.feed(self._line.apply(bytes(data))):
                if isinstance(item, BadFrame):
                    self._count["frames_in_bad"] += 1
                else:
                    self._count["frames_in"] += 1
                    self._on_frame(item)

    def host_read(self, timeout: float) -> bytes:
        if timeout <= 0:  # what is ready now (the pty and TCP servers, once a pass)
            with self._cond:
                self._check_link()
                return self._out.pop_ready(self._time.clock())
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                self._check_link()
                data = self._out.pop_ready(self._time.clock())
                remaining = deadline - time.monotonic()
                if data or remaining <= 0:
                    return data
                due = self._out.next_due()
                if due is not None and not self._time.manual:
                    remaining = min(remaining, max(due - self._time.clock(), 0.001))
                self._cond.wait(remaining)

    def _check_link(self) -> None:
        if self._closed:
            raise EmulatorUnplugged("the emulated shoe is closed")
        if not self._plugged:
            raise EmulatorUnplugged()

    @property
    def plugged(self) -> bool:
        return self._plugged

    @property
    def link_generation(self) -> int:
        """Counts unplugs; a server reopens its end when it changes."""
        return self._generation

    @property
    def boot_id(self) -> int:
        return self._boot_id

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` (lock held: it must not block) when output is readable or the link changes.

        Returns the function that unsubscribes. The PTY and TCP servers wait on this instead of polling.
        """
        with self._cond:
            self._listeners.append(callback)
        return lambda: self._unsubscribe(callback)

    def _unsubscribe(self, callback: Callable[[], None]) -> None:
        with self._cond:
            if callback in self._listeners:
                self._listeners.remove(callback)

    def _notify(self) -> None:
        self._cond.notify_all()
        for callback in self._listeners:
            callback()

    def unplug(self) -> None:
        with self._cond:
            if self._plugged:
                self._plugged = False
                self._generation += 1
                self._out.clear()
                self._deframer.reset()
                log.info("emulator_unplugged", serial=self.config.serial, unacked=len(self._unacked))
                self._notify()

    def replug(self) -> None:
        with self._cond:
            if not self._plugged:
                self._plugged = True
                self._deframer.reset()
                log.info("emulator_replugged", serial=self.config.serial, unacked=len(self._unacked))
                self._resend(self._time.clock(), force=True)
                self._notify()
                self._time.wake()

    def power_cycle(self) -> None:
        with self._cond:
            self._mech.counters.power_cycles += 1
            self._reboot(keep_line=False)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._notify()
        self._time.stop()

    @property
    def stats(self) -> EmulatorStats:
        with self._cond:
            counts = {f.name: self._count[f.name] for f in fields(EmulatorStats)}
            counts.update(cards_moved=self._mech.moved, bytes_corrupted=self._line.corrupted,
                          bytes_dropped=self._line.dropped)  # fmt: skip
            return EmulatorStats(**counts)

    # --- test and fault hooks ---------------------------------------------------------------------

    def open_door(self) -> None:
        with self._cond:
            if self._mech.set_door(True):
                self._fault(FaultCode.DOOR_OPEN)

    def close_door(self) -> None:
        with self._cond:
            if self._mech.set_door(False):
                self._emit(lambda n: m.FaultCleared(n, FaultCode.DOOR_OPEN))

    def inject_fault(self, code: FaultCode) -> None:
        """Raise any fault now (TAMPER, INTERNAL_ERROR, ...); a blocking one interrupts a dispense."""
        with self._cond:
            if code is FaultCode.DOOR_OPEN:
                self.open_door()
            elif self._mech.raise_fault(code):
                self._fault(code)

    def inject_jam(self, at_card: int | None = None) -> None:
        with self._cond:
            self._mech.inject_jam(at_card)

    def take_stack(self) -> None:
        with self._cond:
            self._take()

    def load_deck(self, deck: DeckLoad | None = None) -> int:
        """The dealer loads a shuffled deck (SPEC §11): DECK_LOADED follows. Returns the cards held.

        ``deck`` None: a full deck of the configured back, shuffled from the OS. ValueError when a
        dispense is active, or the shoe still holds cards and ``deck.mid_round`` is not set.
        """
        with self._cond:
            return self._load_deck(deck or DeckLoad(back=self._mech.back))

    def load(self, codes: Sequence[str]) -> None:
        """Load ``codes`` in this order, with the current back (``load_deck`` with an explicit order)."""
        deck = tuple(codes)
        check_deck(deck, "load")
        with self._cond:
            self._load_deck(DeckLoad(order=deck, back=self._mech.back))

    def set_impairment(
        self, corrupt_rate: float | None = None, drop_rate: float | None = None, latency_ms: float | None = None
    ) -> None:
        with self._cond:
            self._line.set(corrupt_rate, drop_rate, latency_ms)

    def tick(self) -> None:
        """Run the timed work that is due (the timer thread does this unless a test clock was given)."""
        with self._cond:
            self._time.tick()

    # --- boot, events -----------------------------------------------------------------------------

    def _boot(self) -> None:
        old = self._boot_id
        while self._boot_id in (0, old):
            self._boot_id = secrets.randbits(32)
        self._event_no = 0
        self._unacked: OrderedDict[int, _Unacked] = OrderedDict()
        self._log: deque[tuple[int, LoggedEvent]] = deque(maxlen=LOG_SIZE)
        self._active: Dispensing | None = None
        self._last_key: Key | None = None
        self._last_reply = b""
        self._waiting: Key | None = None  # a SCAN still being worked on
        self._scan_no = 0
        self._queue: deque[Frame] = deque()
        self._time.clear()
        self._deframer.reset()
        self._mech.reboot()
        log.info("emulator_boot", serial=self.config.serial, boot_id=self._boot_id)
        for code in sorted(self._mech.faults):
            self._emit(partial(m.FaultRaised, code=code, dispense_id=0))
        self._schedule_take()

    def _reboot(self, *, keep_line: bool) -> None:
        if self._active is not None:
            self._store(self._active, DispensePhase.FAILED, 0)
        if not keep_line:
            self._out.clear()
        self._boot()

    def _emit(self, make: Callable[[int], m.Event]) -> None:
        self._event_no += 1
        event = make(self._event_no)
        payload = codec.encode_payload(event)  # once, for the wire and the event log (codec.logged's form)
        wire = encode_frame(PROTOCOL_VERSION, event.TYPE, 0, payload)
        self._log.append((self._event_no, LoggedEvent(int(event.TYPE), payload)))
        now = self._time.clock()
        self._unacked[self._event_no] = _Unacked(wire, now)
        while len(self._unacked) > LOG_SIZE:
            self._unacked.popitem(last=False)
        self._count["events_sent"] += 1
        self._send(wire)
        self._time.wake(now + self.config.event_resend_s)  # its re-send; wakes the timer only if earliest

    def _resend(self, now: float, *, force: bool = False) -> None:
        if not self._plugged or self._closed:
            return
        for item in self._unacked.values():
            if force or now - item.last_sent >= self.config.event_resend_s:
                item.last_sent = now
                self._count["events_resent"] += 1
                self._send(item.wire)

    def _ack(self, ack: m.EventAck) -> None:
        if ack.boot_id != self._boot_id:
            return
        self._count["acks"] += 1
        for number in [n for n in self._unacked if n <= ack.event_no]:
            del self._unacked[number]

    def _send(self, wire: bytes) -> None:
        if self._plugged and not self._closed:
            latency = self._line.latency_s
            self._out.push(self._time.clock() + latency, self._line.apply(wire))
            if latency:
                self._later(latency, self._notify)
            else:
                self._notify()

    def _resend_due(self) -> float | None:
        if not self._plugged or not self._unacked:
            return None
        return min(u.last_sent for u in self._unacked.values()) + self.config.event_resend_s

    def _later(self, delay: float, action: Callable[[], None]) -> None:
        self._time.later(delay, action)

    # --- requests ---------------------------------------------------------------------------------

    def _on_frame(self, frame: Frame) -> None:
        key: Key = (frame.version, frame.msg_type, frame.seq, frame.payload)
        if self._waiting is not None and frame.msg_type != MsgType.EVENT_ACK:
            if key != self._waiting:
                self._queue.append(frame)
            return
        if key == self._last_key:
            self._count["replays"] += 1
            self._send(self._last_reply)
            return
        try:
            request = decode_request(frame)
            if isinstance(request, m.EventAck):
                self._ack(request)
                return
            reply = self._dispatch(request)
        except codec.MessageError as exc:
            reply = m.Nak(exc.nak, str(exc))
        except RequestError as exc:
            reply = m.Nak(exc.code, str(exc))
        except model.Refused as exc:
            reply = m.Nak(NakCode.FAULT_ACTIVE if exc.fault else NakCode.BAD_STATE, str(exc))
        if isinstance(reply, m.Nak):
            self._after.clear()
        if reply is None:
            self._waiting = key
            return
        self._answer(key, reply)

    def _answer(self, key: Key, reply: m.Message) -> None:
        if isinstance(reply, m.Nak):
            self._count["naks"] += 1
            log.info("emulator_nak", code=reply.code.name, request=codec.message_type_name(key[1]))
        self._last_key, self._last_reply = key, codec.encode(reply, key[2])
        self._send(self._last_reply)
        after, self._after = self._after, []
        for action in after:
            action()

    def _finish_waiting(self, reply: m.Message) -> None:
        key, self._waiting = self._waiting, None
        if key is None:
            return
        self._answer(key, reply)
        while self._queue and self._waiting is None:
            self._on_frame(self._queue.popleft())
