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
- **v1.1 (SPEC §13)**: the pairing key lives in "non-volatile memory" (kept across reboots and unplugs,
  set by PAIR or by ``pair``, the technician's hook); the session ends with the boot. Every frame the shoe
  sends is sealed when the request (or, for events, the session) is authenticated: a stored reply or
  an event re-sent is sealed anew with the next counter. Refused frames (MAC, counter) are counted in
  ``frames_refused`` and never answered. ``protocol="1.0"`` in the config emulates a v1.0 shoe.
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
from protocols import auth, codec
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
    frames_refused: int = 0  # authenticated frames whose MAC or counter failed (SPEC §13.4)
    sessions: int = 0  # HELLOs answered


@dataclass
class _Unacked:
    msg_type: int
    payload: bytes
    last_sent: float


_PLAIN_WHEN_PAIRED = frozenset((MsgType.IDENTIFY, MsgType.HELLO, MsgType.PAIR))
"""The plain requests a paired shoe still answers (SPEC §13.3)."""


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
        self._key: bytes | None = None  # the pairing key: non-volatile, survives reboots
        self._session: auth.Session | None = None
        self._hello_answered: tuple[tuple[int, bytes], bytes] | None = None  # the HELLO of the session, its reply
        self._batching = False  # inside host_write: output wakes the readers once, at its end
        self._batched = False
        with self._cond:
            self._boot()

    # --- link -----------------------------------------------------------------------------------

    def host_write(self, data: bytes) -> None:
        with self._cond:
            self._check_link()
            # The frames this write makes (an answer and a dispense's events) wake the readers once, at the
            # end: the lock is held throughout, so none of them could read before that anyway.
            self._batching = True
            try:
                for item in self._deframer.feed(self._line.apply(bytes(data))):
                    if isinstance(item, BadFrame):
                        self._count["frames_in_bad"] += 1
                    else:
                        self._count["frames_in"] += 1
                        self._receive(item)
            finally:
                self._batching = False
                if self._batched:
                    self._batched = False
                    self._notify()

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

    @property
    def v11(self) -> bool:
        return self.config.protocol != "1.0"

    @property
    def key_id(self) -> int | None:
        """The name of the pairing key (SPEC §13.2), None while unpaired."""
        return None if self._key is None else auth.key_id(self._key)

    def pair(self, key: bytes | None) -> None:
        """The technician's pairing at the shoe itself (its service menu): store ``key``, end any session.

        None unpairs (a factory reset). A v1.0 emulator cannot be paired."""
        if not self.v11:
            raise ValueError("a v1.0 shoe cannot be paired")
        with self._cond:
            self._key = None if key is None else auth.check_key(key)
            self._session = None

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
        self._last_reply: m.Message | None = None
        self._waiting: Key | None = None  # a SCAN still being worked on
        self._scan_no = 0
        self._queue: deque[tuple[Frame, bool]] = deque()
        self._session = None
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
        self._log.append((self._event_no, LoggedEvent(int(event.TYPE), payload)))
        now = self._time.clock()
        self._unacked[self._event_no] = _Unacked(int(event.TYPE), payload, now)
        while len(self._unacked) > LOG_SIZE:
            self._unacked.popitem(last=False)
        self._count["events_sent"] += 1
        self._send_event(self._unacked[self._event_no])
        self._time.wake(now + self.config.event_resend_s)  # its re-send; wakes the timer only if earliest

    def _resend(self, now: float, *, force: bool = False) -> None:
        if not self._plugged or self._closed:
            return
        for item in self._unacked.values():
            if force or now - item.last_sent >= self.config.event_resend_s:
                item.last_sent = now
                self._count["events_resent"] += 1
                self._send_event(item)

    def _send_event(self, item: _Unacked) -> None:
        """Sealed under the session; plain when unpaired; held (until a session) when paired (SPEC §13.3)."""
        if self._session is not None:
            self._send(self._session.out.seal(item.msg_type, 0, payload=item.payload))
        elif self._key is None:
            self._send(encode_frame(PROTOCOL_VERSION, item.msg_type, 0, item.payload))

    def _wire(self, reply: m.Message, seq: int, *, sealed: bool) -> bytes:
        if sealed and self._session is not None:
            return codec.encode_sealed(reply, seq, self._session.out)
        return codec.encode(reply, seq)

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
            elif self._batching:
                self._batched = True
            else:
                self._notify()

    def _resend_due(self) -> float | None:
        if not self._plugged or not self._unacked:
            return None
        return min(u.last_sent for u in self._unacked.values()) + self.config.event_resend_s

    def _later(self, delay: float, action: Callable[[], None]) -> None:
        self._time.later(delay, action)

    # --- requests ---------------------------------------------------------------------------------

    def _receive(self, frame: Frame) -> None:
        """Authentication first (SPEC §13.3, §13.4), then the request as v1.0 handles it."""
        if not self.v11:
            self._on_frame(frame)
            return
        if frame.version == auth.FORMAT_AUTH:
            if self._session is None:
                self._send(codec.encode(m.Nak(NakCode.AUTH_REQUIRED, "no session: send HELLO"), frame.seq))
                return
            try:
                plain = self._session.into.open(frame)
            except auth.AuthError as exc:
                self._count["frames_refused"] += 1
                log.warning("emulator_frame_refused", reason=exc.refusal.value, msg_type=frame.msg_type)
                return
            self._on_frame(plain, sealed=True)
            return
        if frame.version == PROTOCOL_VERSION and frame.msg_type == MsgType.HELLO:
            self._hello(frame)
            return
        if self._key is not None and frame.version == PROTOCOL_VERSION and frame.msg_type not in _PLAIN_WHEN_PAIRED:
            if frame.msg_type != MsgType.EVENT_ACK and frame.seq:
                self._send(codec.encode(m.Nak(NakCode.AUTH_REQUIRED, "this shoe is paired: authenticate"), frame.seq))
            return
        self._on_frame(frame)

    def _hello(self, frame: Frame) -> None:
        """A new session (SPEC §13.3). It never replaces the stored reply: the host re-sends its request next."""
        try:
            hello = codec.decode(frame)
        except codec.MessageError as exc:
            self._send(codec.encode(m.Nak(exc.nak, str(exc)), frame.seq))
            return
        assert isinstance(hello, m.Hello)
        if self._key is None:
            self._send(codec.encode(m.Nak(NakCode.NOT_PAIRED, "this shoe is not paired"), frame.seq))
            return
        if len(hello.host_nonce) != auth.NONCE_SIZE:
            self._send(codec.encode(m.Nak(NakCode.BAD_ARGUMENT, "a nonce is 16 bytes"), frame.seq))
            return
        answered = self._hello_answered
        if self._session is not None and answered is not None and answered[0] == (frame.seq, frame.payload):
            # The same HELLO again (SPEC §4, §13.3): the host re-sent it because the reply was late or lost.
            # Answer with the same reply and keep the session: a new one would leave the host on the first.
            self._send(answered[1])
            return
        nonce = secrets.token_bytes(auth.NONCE_SIZE)
        self._session = auth.Session.start(self._key, hello.host_nonce, nonce, self._boot_id, host=False)
        self._count["sessions"] += 1
        reply = m.HelloReply(self._boot_id, nonce, auth.key_id(self._key))
        wire = self._wire(reply, frame.seq, sealed=True)
        self._hello_answered = ((frame.seq, frame.payload), wire)
        self._send(wire)
        self._resend(self._time.clock(), force=True)  # the events held while there was no session

    def _pair(self, request: m.Pair, *, sealed: bool) -> m.Message:
        """PAIR (SPEC §13.2): plain only while unpaired or with the door open; authenticated: a rotation."""
        if not sealed and self._key is not None and not self._mech.door_open:
            return m.Nak(NakCode.AUTH_REQUIRED, "paired: rotate under the current key, or open the door to re-pair")
        if len(request.key) != auth.KEY_SIZE or not any(request.key):
            return m.Nak(NakCode.BAD_ARGUMENT, "a pairing key is 32 bytes, not all zero")
        key = request.key

        def store() -> None:
            self._key, self._session = key, None
            log.info("emulator_paired", serial=self.config.serial, key_id=auth.key_id(key), rotated=sealed)

        self._after.append(store)  # after the OK went out (sealed under the old session when rotating)
        return m.Ok()

    def _on_frame(self, frame: Frame, *, sealed: bool = False) -> None:
        key: Key = (auth.FORMAT_AUTH if sealed else frame.version, frame.msg_type, frame.seq, frame.payload)
        if self._waiting is not None and frame.msg_type != MsgType.EVENT_ACK:
            if key != self._waiting:
                self._queue.append((frame, sealed))
            return
        if key == self._last_key and self._last_reply is not None:
            self._count["replays"] += 1
            self._send(self._wire(self._last_reply, key[2], sealed=sealed))
            return
        try:
            request = decode_request(frame)
            if isinstance(request, m.EventAck):
                self._ack(request)
                return
            reply = self._pair(request, sealed=sealed) if isinstance(request, m.Pair) else self._dispatch(request)
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
        self._last_key, self._last_reply = key, reply
        self._send(self._wire(reply, key[2], sealed=key[0] == auth.FORMAT_AUTH))
        after, self._after = self._after, []
        for action in after:
            action()

    def _finish_waiting(self, reply: m.Message) -> None:
        key, self._waiting = self._waiting, None
        if key is None:
            return
        self._answer(key, reply)
        while self._queue and self._waiting is None:
            frame, sealed = self._queue.popleft()
            self._on_frame(frame, sealed=sealed)
