"""The link: one reader thread over a transport, serialised requests, and reconnection.

It knows frames and sequence numbers, not what the messages mean. Responses are matched to the one
outstanding request by ``seq`` (a late duplicate is dropped); events go to ``on_events``, the events of one
read in one call, in order; link edges go to ``on_notice``. Both callbacks run on the reader thread and
must not make requests.

With a pairing ``key`` (SPEC §13) the link starts a session (HELLO) at every open, before any request,
and seals every frame it sends and opens every frame it receives; a frame that fails the MAC or the
counter, or a plain frame where a sealed one was due, is **refused**: never delivered, counted in
``stats.refused`` and told to ``on_notice`` as :class:`~drivers.notices.FrameRefused`. A handshake that
fails (a v1.0 shoe, an unpaired one, another key) raises :class:`~drivers.errors.ShoeAuthError`: never a
fall-back to plain frames. A plain NAK AUTH_REQUIRED (the shoe rebooted and lost the session) makes the
link reopen and start a new session, as after a lost link.
"""

from __future__ import annotations

import contextlib
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import structlog

from drivers.errors import LinkDown, ShoeAuthError, ShoeDiscrepancy, ShoeError, ShoeIOError, ShoeTimeout
from drivers.handoff import AckHold, Pending
from drivers.notices import FrameRefused, LinkLost, LinkRestored, Notice
from drivers.timeouts import LinkTimeouts
from drivers.transport import Transport, redact_port
from protocols import auth, codec
from protocols.codes import PROTOCOL_VERSION, MsgType, NakCode
from protocols.framing import BadFrame, Frame
from protocols.messages import Event, EventAck, Hello, HelloReply, Message, Nak
from protocols.reader import MessageReader, Read

log = structlog.get_logger("drivers.link")

IDLE_READ_S = 5.0
"""The reader's wait on a transport whose ``close`` wakes it (``wakes_on_close``); else ``read_poll``."""

MAX_LOSSES_PER_REQUEST = 5
_ACTS_AGAIN_AFTER_REBOOT = frozenset({MsgType.SCAN, MsgType.RELEASE_STUB})
"""Requests a rebooted shoe would act on again if re-sent (a DISPENSE is not: its id is kept in
non-volatile memory, SPEC §6); seen by the boot id of the new session's HELLO_REPLY."""
"""A request that sees the link drop this many times in a row gives up with ShoeIOError."""


@dataclass
class LinkStats:
    frames_in: int = 0
    frames_out: int = 0
    bad_frames: int = 0
    bad_messages: int = 0
    late_responses: int = 0
    retries: int = 0
    polls: int = 0
    """Re-sends while the shoe was allowed to be working (SCAN, stub release): not failures."""
    timeouts: int = 0
    link_losses: int = 0
    reconnects: int = 0
    refused: int = 0
    """Frames refused by authentication (MAC, counter, a plain frame on an authenticated link)."""
    sessions: int = 0


class _HoldingAcks:
    """``Link.holding_acks``: a plain context manager (entered once a dispense: a generator-based one costs a
    generator and its frame)."""

    __slots__ = ("_held", "_link")

    def __init__(self, link: Link) -> None:
        self._link = link
        self._held = False

    def __enter__(self) -> None:
        self._held = self._link.hold_acks()

    def __exit__(self, *exc: object) -> None:
        if self._held:
            self._held = False
            self._link.release_acks()


class Link:
    def __init__(
        self,
        transport: Transport,
        *,
        timeouts: LinkTimeouts,
        on_events: Callable[[list[Event]], None],
        on_notice: Callable[[Notice], None],
        auto_reconnect: bool = True,
        key: bytes | None = None,
    ) -> None:
        self._transport = transport
        self._key = None if key is None else auth.check_key(key)
        self._session: auth.Session | None = None
        self._hello_reply: tuple[int, bytes] | None = None  # (seq, payload) of the reply that started the session
        self._session_boot: int | None = None  # the boot id the shoe named in the session's HELLO_REPLY
        self._leftover: list[Read | Frame | BadFrame] = []  # frames read with the HELLO_REPLY, dispatched next
        self._restart_session = False
        self.timeouts = timeouts
        self._on_events = on_events
        self._on_notice = on_notice
        self._auto_reconnect = auto_reconnect
        self._reader = MessageReader()  # the reader's one pass (``read``); the handshake's ``feed``
        self._write_lock = threading.Lock()
        self._request_lock = threading.Lock()
        self._pending: Pending | None = None
        self._seq = 0
        self._connected = threading.Event()
        self._connected.set()
        self._generation = 0
        """Incremented at every reconnect; a request in flight re-sends only on a new transport."""
        self._reconnected = threading.Condition()
        self._closed = threading.Event()
        self._closing = False  # ``_closed`` as a bool, for the reader's loop (an Event's ``is_set`` is a Python call)
        self._thread: threading.Thread | None = None
        self._reader_ident: int | None = None
        self._batching = False
        self._held_ack: tuple[int, int] | None = None  # (boot id, event number) of the EVENT_ACK held
        self._acks = AckHold()  # the EVENT_ACK a ``holding_acks`` thread was handed with an answer
        self._acks_lock = threading.Lock()
        """The highest EVENT_ACK asked for while the reader dispatches one read (reader thread only)."""
        self.stats = LinkStats()

    @property
    def url(self) -> str:
        return redact_port(self._transport.url)  # for messages and logs: never the port's options

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    @property
    def authenticated(self) -> bool:
        """Every frame both ways is sealed under a session of the pairing key (SPEC §13)."""
        return self._session is not None

    @property
    def key_id(self) -> int | None:
        return None if self._key is None else auth.key_id(self._key)

    def start(self) -> None:
        self._write(b"\x00")  # flush any partial frame the shoe holds (SPEC §2)
        if self._key is not None:
            self._handshake()
        self._thread = threading.Thread(target=self._run, name=f"shoe-link {self.url}", daemon=True)
        self._thread.start()
        self._reader_ident = self._thread.ident

    def wait_connected(self, timeout: float) -> bool:
        return self._connected.wait(timeout)

    def request(
        self,
        message: Message,
        *,
        timeout: float | None = None,
        retries: int | None = None,
        work: float = 0.0,
        survive_loss: bool = True,
        confirm: bool = False,
    ) -> Message:
        """Send one request and return its response, re-sending the same bytes on silence.

        ``confirm``: then send the same frame once more and compare the shoe's replay of its stored
        answer (SPEC §4; it does not act again): a replay that differs is a :class:`ShoeDiscrepancy`
        (an answer injected or altered on the way, or a broken shoe).

        ``timeout`` is the wait for an answer before re-sending; ``work`` is how long the shoe may
        take before answering (a SCAN waiting for the dealer, a stub release in motion). Re-sends
        during ``work`` are polls: the shoe ignores a repeat of a request it is still working on
        and replays its answer once it has one (SPEC §4), so a lost answer costs one ``timeout``,
        not the whole ``work``. After ``work``, ``retries`` further re-sends, then ShoeTimeout.

        If the link drops with the request in flight and ``survive_loss`` is set, the request waits
        for the reconnect (up to ``reconnect_give_up``) and re-sends the **same** frame before any
        other request may go out (SPEC §4): the shoe replays its stored answer if it acted, so a
        SCAN never reads a second card and a RELEASE_STUB is never refused as a repeat. Raises
        :class:`LinkDown` (nothing was sent) when the link was already down.
        """
        timeouts = self.timeouts
        wait = timeouts.reply if timeout is None else timeout
        tries = timeouts.retries if retries is None else retries
        with self._request_lock:
            if not self._connected.is_set():
                raise LinkDown(f"{self.url}: link is down (reconnecting)")
            self._seq = seq = self._seq % 0xFFFF + 1
            pending = Pending(seq, defer=self._acks.owner == threading.get_ident())
            self._pending = pending
            try:
                response = self._exchange(message, pending, wait, tries, work=work, survive_loss=survive_loss)
                if confirm:
                    pending.rearm()
                    replay = self._exchange(message, pending, wait, tries, work=0.0, survive_loss=survive_loss)
                    if replay != response:
                        raise ShoeDiscrepancy(
                            "answer-changed", f"the shoe's replay of its answer to {message.TYPE.name} differs from it"
                        )
                return response
            finally:
                self._pending = None
                if pending.ack is not None:
                    self._keep_ack(pending)

    def _exchange(
        self, message: Message, pending: Pending, timeout: float, retries: int, *, work: float, survive_loss: bool
    ) -> Message:
        """``request``'s tries of one frame (its arguments as it resolved them), until an answer or the give-up."""
        attempt = losses = 0
        generation = self._generation
        boot = self._session_boot
        working_until = time.monotonic() + work if work else 0.0  # no clock read for the usual request
        first = True
        while True:
            # A re-send starts with a delimiter: if noise ate the last frame's 0x00, the shoe's
            # deframer would otherwise glue this copy onto the broken frame and lose it too.
            try:
                if first:
                    if pending.ack is not None:
                        self._keep_ack(pending)  # an answer's ack not yet taken (a replay's, a retry's)
                    held = self._acks.take() if pending.defer else None
                    self._write_frames(held, message, pending.seq)  # one write for both
                else:
                    self._write_frames(None, message, pending.seq, flush=True)
                first = False
            except ShoeIOError as exc:
                lost: ShoeError = exc
            else:
                if not pending.wait(timeout):
                    if time.monotonic() < working_until:
                        self.stats.polls += 1
                        continue
                    attempt += 1
                    if attempt > retries:
                        self.stats.timeouts += 1
                        tries = f"{retries + 1} tries of {timeout:g} s"
                        raise ShoeTimeout(f"no reply to {message.TYPE.name} from {self.url} after {tries}")
                    self.stats.retries += 1
                    continue
                if pending.error is None:
                    assert pending.response is not None
                    return pending.response
                lost = pending.error
            # The link dropped with this request in flight: the shoe may have acted on it.
            give_up = not survive_loss or not self._auto_reconnect or losses >= MAX_LOSSES_PER_REQUEST
            if give_up or not self._await_new_link(generation):
                raise lost
            losses += 1
            generation = self._generation
            if message.TYPE in _ACTS_AGAIN_AFTER_REBOOT and boot is not None and self._session_boot != boot:
                # The stored answer does not survive a reboot (SPEC §4): the same frame would be a new request,
                # and a new SCAN reads the next card. Whether the first one acted is unknown: say so.
                raise ShoeIOError(
                    f"{self.url}: the shoe rebooted with {message.TYPE.name} in flight: whether it acted is unknown"
                ) from lost
            pending.rearm()
            log.info("re-sending request after reconnect", request=message.TYPE.name, seq=pending.seq)

    def _await_new_link(self, generation: int) -> bool:
        """Wait until the reader has reopened the transport since ``generation``; False on give-up."""

        def reopened() -> bool:
            return self._generation != generation and self._connected.is_set()

        with self._reconnected:
            self._reconnected.wait_for(lambda: self._closed.is_set() or reopened(), self.timeouts.reconnect_give_up)
            return reopened() and not self._closed.is_set()

    def holding_acks(self) -> contextlib.AbstractContextManager[None]:
        """Within: the EVENT_ACK of a read that answered this thread's request goes with its next request.

        The reader would otherwise write it before waking the requester, on the answer's path, and
        the shoe would read it apart from the request that follows at once (a dispense's QUERY after
        its STARTED and events): one write and one wake-up of the shoe for both. What is
        held at the end goes out then; one thread holds at a time (another's requests ack as usual).
        """
        return _HoldingAcks(self)

    def hold_acks(self) -> bool:
        """``holding_acks`` without its object: True if this thread now holds (then ``release_acks`` after)."""
        if not self._acks_lock.acquire(blocking=False):
            return False
        self._acks.owner = threading.get_ident()
        return True

    def release_acks(self) -> None:
        self._acks.owner = None
        try:
            self.flush_acks()
        finally:
            self._acks_lock.release()

    def flush_acks(self) -> None:
        """Send the EVENT_ACK this thread holds now (before a wait for events with no request to carry it)."""
        held = self._acks.take() if self._acks.owner in (None, threading.get_ident()) else None
        if held is not None:
            self._send_now(held)

    def _keep_ack(self, pending: Pending) -> None:
        """The requester: hold the EVENT_ACK the reader handed over with its answer (an older boot's: now)."""
        ack, pending.ack = pending.ack, None
        if ack is not None:
            older = self._acks.keep(ack)
            if older is not None:
                self._send_now(older)

    def send(self, message: Message) -> None:
        """Send a message that has no response (EVENT_ACK). Silently skipped while the link is down.

        An EVENT_ACK sent from ``on_events`` while the reader works through one read's frames is held and
        written once after the last of them: EVENT_ACK(boot, n) acknowledges every event up to n (SPEC
        §5), so one per batch, the highest, says what one per event said, with one write instead of four.
        """
        if isinstance(message, EventAck):
            self.acknowledge(message.boot_id, message.event_no)
        else:
            self._send_now(message)

    def acknowledge(self, boot_id: int, event_no: int) -> None:
        """Send EVENT_ACK(boot_id, event_no) (SPEC §5), held as ``send`` holds one while the reader dispatches a
        read: the numbers are kept, and the message built once, for the one that goes out."""
        if self._batching and threading.get_ident() == self._reader_ident:
            held = self._held_ack
            if held is not None and held[0] != boot_id:
                self._send_now(EventAck(*held))  # a new boot's numbers: the old boot's ack goes first
            elif held is not None and held[1] > event_no:
                return
            self._held_ack = (boot_id, event_no)
            return
        self._send_now(EventAck(boot_id, event_no))

    def _send_now(self, message: Message) -> None:
        if self._connected.is_set():
            # On failure the reader notices the loss; the shoe re-sends and we acknowledge again.
            with contextlib.suppress(ShoeIOError):
                self._write_frames(message, None, 0)

    def close(self) -> None:
        self._closing = True
        self._closed.set()
        self._connected.set()  # release waiters; requests then fail on the closed transport
        with self._reconnected:
            self._reconnected.notify_all()
        self._transport.close()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    # --- internals -----------------------------------------------------------------------------

    def _write(self, data: bytes) -> None:
        with self._write_lock:
            self._transport.write(data)
        self.stats.frames_out += 1

    def _write_frames(self, ack: Message | None, message: Message | None, seq: int, *, flush: bool = False) -> None:
        """An EVENT_ACK and/or a request, sealed and written under the write lock: counters go out in order.

        Each is encoded (and sealed) again per write, a re-send too: a sealed copy of the same request carries
        a new counter (SPEC §13.5), and the shoe still knows it by its sequence number (SPEC §4). Sealed under the
        session (its next counter), or plain without one."""
        with self._write_lock:
            data = b"\x00" if flush else b""
            session = self._session
            if session is None:
                if ack is not None:
                    data += codec.encode(ack, 0)
                if message is not None:
                    data += codec.encode(message, seq)
            else:
                if ack is not None:
                    data += codec.encode_sealed(ack, 0, session.out)
                if message is not None:
                    data += codec.encode_sealed(message, seq, session.out)
            self._transport.write(data)
        self.stats.frames_out += 1

    # --- sessions (SPEC §13.3) ---------------------------------------------------------------------

    def _handshake(self) -> None:
        """HELLO, and the sealed HELLO_REPLY that proves the shoe holds the key. ShoeAuthError otherwise.

        Runs before the reader thread starts, or on it (after a reopen): it reads the transport itself.
        Frames before the reply (sealed under an older session) are dropped: the shoe re-sends its events.
        A reply to another HELLO (an earlier attempt's, still on the line after a reopen) is not this one's
        and is passed over; a reply that does not verify is remembered and waited past, so a stale or
        injected frame cannot end the handshake: only the end of every re-send without a verified reply
        makes the refusal (``key-mismatch``) final.
        """
        assert self._key is not None
        self._session = None
        self._hello_reply = None
        nonce = secrets.token_bytes(auth.NONCE_SIZE)
        seq = secrets.randbelow(0xFFFF) + 1
        hello = codec.encode(Hello(nonce), seq)
        refused: ShoeAuthError | None = None
        for _ in range(self.timeouts.retries + 1):
            self._write(b"\x00" + hello)
            deadline = time.monotonic() + self.timeouts.reply
            while (left := deadline - time.monotonic()) > 0:
                data = self._transport.read(min(left, self.timeouts.read_poll))
                items = self._reader.feed(data) if data else []
                for index, item in enumerate(items):
                    if not isinstance(item, Frame) or item.seq != seq:
                        continue
                    try:
                        answered = self._hello_answer(item, nonce)
                    except ShoeAuthError as exc:
                        if exc.cause != "key-mismatch":
                            raise
                        refused = exc
                        continue
                    if answered:
                        self._leftover = list(items[index + 1 :])
                        self.stats.sessions += 1
                        return
        if refused is not None:
            raise refused
        # Silence is not a refusal: a shoe that is off, unplugged, or on a line that ate every try says
        # nothing to any request. Every refusal has an answer (a NAK, a reply under another key), so this
        # is the timeout a plain link's first request would give, retried as such, never a security alarm.
        tries = f"{self.timeouts.retries + 1} tries of {self.timeouts.reply:g} s"
        raise ShoeTimeout(f"no reply to HELLO from {self.url} after {tries}")

    def _hello_answer(self, frame: Frame, nonce: bytes) -> bool:
        """True once the session stands; ShoeAuthError for a refusal or a reply sealed under another key."""
        assert self._key is not None
        if frame.version == PROTOCOL_VERSION and frame.msg_type == MsgType.NAK:
            try:
                nak = codec.decode(frame)
            except codec.MessageError:
                return False
            assert isinstance(nak, Nak)
            if nak.code is NakCode.NOT_PAIRED:
                raise ShoeAuthError("shoe-not-paired", f"{self.url}: the shoe is not paired")
            if nak.code in (NakCode.UNKNOWN_MESSAGE, NakCode.UNSUPPORTED_VERSION, NakCode.NOT_SUPPORTED):
                raise ShoeAuthError("shoe-unauthenticated", f"{self.url}: the shoe does not speak v1.1 (HELLO refused)")
            return False
        if frame.version != auth.FORMAT_AUTH or frame.msg_type != MsgType.HELLO_REPLY:
            return False  # an older session's frame: the shoe re-sends what matters
        try:
            reply = codec.decode_payload(frame.msg_type, frame.payload[auth.COUNTER.size : -auth.MAC_SIZE])
        except codec.MessageError:
            return False
        assert isinstance(reply, HelloReply)
        if len(reply.shoe_nonce) != auth.NONCE_SIZE:
            return False
        session = auth.Session.start(self._key, nonce, reply.shoe_nonce, reply.boot_id, host=True)
        try:
            session.into.open(frame)
        except auth.AuthError as exc:
            self.stats.refused += 1
            raise ShoeAuthError(
                "key-mismatch",
                f"{self.url}: the shoe's HELLO_REPLY does not verify under this host's key "
                f"(shoe key id 0x{reply.key_id:08X}, host 0x{auth.key_id(self._key):08X}): {exc}",
            ) from exc
        self._session = session
        self._hello_reply = (frame.seq, frame.payload)
        self._session_boot = reply.boot_id
        return True

    def _idle_wait(self) -> float:
        """The reader's wait: long on a transport whose close wakes its reader (an idle link then sleeps)."""
        return IDLE_READ_S if getattr(self._transport, "wakes_on_close", False) else self.timeouts.read_poll

    def _run(self) -> None:
        if self._leftover:
            self._dispatch(b"")
        read, wait = self._transport.read, self._idle_wait()  # both change only with the transport (a reopen)
        while not self._closing:
            if self._restart_session:
                self._restart_session = False
                self._lost("the shoe has no session for this link (AUTH_REQUIRED): starting a new one")
                if not self._auto_reconnect or not self._reconnect():
                    return
                if self._leftover:
                    self._dispatch(b"")
                read, wait = self._transport.read, self._idle_wait()
                continue
            try:
                data = read(wait)
            except ShoeIOError as exc:
                if self._closed.is_set():
                    return
                self._lost(str(exc))
                if not self._auto_reconnect or not self._reconnect():
                    return
                if self._leftover:
                    self._dispatch(b"")
                read, wait = self._transport.read, self._idle_wait()
                continue
            if data:
                self._dispatch(data)

    def _dispatch(self, data: bytes) -> None:
        """One read's frames in order; then its one EVENT_ACK, then the requester is woken.

        The answer is handed over last: the requester then runs once, with the events of the same
        read (a dispense's STARTED comes with its CARD_READs and STACK_READY from an instant shoe)
        already delivered, and without taking the GIL back and forth with this thread.
        """
        self._batching = True
        try:
            answered = self._dispatch_frames(data)
        finally:
            self._batching = False
            numbers, self._held_ack = self._held_ack, None
            if numbers is not None:
                held = EventAck(*numbers)
                if answered is not None and answered.defer:
                    answered.ack = held  # its next request's write takes it (``holding_acks``)
                else:
                    self._send_now(held)
        if answered is not None:
            answered.deliver()

    def _dispatch_frames(self, data: bytes) -> Pending | None:
        """Deliver the events; keep the answer to the request in flight (returned, woken by ``_dispatch``).

        A frame that passed every check in the reader's one pass (``MessageReader.read``) comes as
        ``(msg_type, seq, message)``; any other as the deframer gives it, for the separate steps here. The
        events go out in one ``on_events`` call a read, and before any notice a later frame causes (a
        refusal): the order the shoe sent them in."""
        answered: Pending | None = None
        items = self._leftover  # frames read with the HELLO_REPLY: before this read's
        if items:
            self._leftover = []
        if data:
            session = self._session
            read = self._reader.read(data, None if session is None else session.into)
            items = items + read if items else read
        events: list[Event] = []
        taken = 0
        for item in items:
            if type(item) is tuple:
                kind, seq, message = item
            elif isinstance(item, BadFrame):
                self.stats.bad_frames += 1
                log.debug("bad frame discarded", kind=item.kind.value, length=item.length)
                continue
            else:
                assert isinstance(item, Frame)
                if events:
                    self._on_events(events)  # before the notice a refusal of this frame sends
                    events = []
                frame = self._open(item)
                if frame is None:
                    continue
                try:
                    message = codec.decode(frame)
                except codec.MessageError as exc:
                    self.stats.bad_messages += 1
                    log.warning("undecodable message", error=str(exc), msg_type=frame.msg_type)
                    continue
                kind, seq = frame.msg_type, frame.seq
            taken += 1
            # the ranges of MsgType.is_event / is_response, without two enum properties a frame
            if 0x80 <= kind < 0xC0:
                assert isinstance(message, Event)
                events.append(message)
            elif 0x40 <= kind < 0x80:
                pending = self._pending
                if pending is not None and pending.seq == seq and not pending.taken and pending.response is None:
                    pending.response = message
                    answered = pending
                else:
                    self.stats.late_responses += 1
        self.stats.frames_in += taken
        if events:
            self._on_events(events)
        return answered

    def _open(self, frame: Frame) -> Frame | None:
        """The frame as v1.0 would have carried it, or None: refused (counted, told) or a session to restart."""
        session = self._session
        if session is not None and frame.version == auth.FORMAT_AUTH:
            if frame.msg_type == MsgType.HELLO_REPLY and (frame.seq, frame.payload) == self._hello_reply:
                # The shoe's answer again to a HELLO this host re-sent (its reply was late): a late duplicate
                # response (SPEC §4, §13.3), the same bytes as the reply that started this session.
                self.stats.late_responses += 1
                return None
            try:
                return session.into.open(frame)
            except auth.AuthError as exc:
                self._refuse(frame, exc.refusal.value)
                return None
        if session is None and frame.version != auth.FORMAT_AUTH:
            return frame
        if session is not None and frame.msg_type == MsgType.NAK:
            with contextlib.suppress(codec.MessageError):
                nak = codec.decode(frame)
                if isinstance(nak, Nak) and nak.code is NakCode.AUTH_REQUIRED:
                    # Forgeable, but all it can do is make the link start a new session (the same as a cut cable).
                    self._restart_session = True
                    return None
        self._refuse(frame, "plain" if session is not None else "unexpected-sealed")
        return None

    def _refuse(self, frame: Frame, reason: str) -> None:
        self.stats.refused += 1
        name = codec.message_type_name(frame.msg_type)
        log.warning("frame refused", reason=reason, msg_type=name, seq=frame.seq)
        self._notify(FrameRefused(reason, name, self.stats.refused))

    def _lost(self, reason: str) -> None:
        self.stats.link_losses += 1
        self._connected.clear()
        pending = self._pending
        if pending is not None and not pending.taken:
            pending.error = ShoeIOError(f"{self.url}: link lost during request ({reason})")
            pending.deliver()
        log.warning("shoe link lost", port=self.url, reason=reason)
        self._notify(LinkLost(reason))
        self._transport.close()

    def _reconnect(self) -> bool:
        delay = self.timeouts.reconnect_initial
        attempts = 0
        while not self._closed.is_set():
            attempts += 1
            try:
                self._transport = self._transport.reopen()
                self._reader.reset()
                self._transport.write(b"\x00")
                if self._key is not None:
                    self._handshake()
            except ShoeAuthError as exc:
                # A refusal or another key is told (the client alarms), never a fall-back to plain frames; no
                # answer to HELLO (a noisy or half-plugged line) is a ShoeTimeout, a failed attempt like any other.
                log.error("shoe link: no session", port=self.url, cause=exc.cause, error=str(exc))
                self._notify(FrameRefused(exc.cause, "HELLO_REPLY", self.stats.refused))
                with contextlib.suppress(ShoeError):
                    self._transport.close()
                if self._closed.wait(delay):
                    return False
                delay = min(delay * 2, self.timeouts.reconnect_max)
                continue
            except ShoeError as exc:
                log.debug("reconnect attempt failed", port=self.url, attempt=attempts, error=str(exc))
                if self._closed.wait(delay):
                    return False
                delay = min(delay * 2, self.timeouts.reconnect_max)
                continue
            self.stats.reconnects += 1
            with self._reconnected:
                self._generation += 1
                self._connected.set()
                self._reconnected.notify_all()
            log.info("shoe link restored", port=self.url, attempts=attempts)
            self._notify(LinkRestored(attempts))
            return True
        return False

    def _notify(self, notice: Notice) -> None:
        try:
            self._on_notice(notice)
        except Exception:  # a subscriber's bug must not kill the reader
            log.exception("notice handler failed", notice=type(notice).__name__)
