"""The link: one reader thread over a transport, serialised requests, and reconnection.

It knows frames and sequence numbers, not what the messages mean. Responses are matched to the one
outstanding request by ``seq`` (a late duplicate is dropped); events go to ``on_event``; link edges
go to ``on_notice``. Both callbacks run on the reader thread and must not make requests.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

import structlog

from drivers.errors import LinkDown, ShoeDiscrepancy, ShoeError, ShoeIOError, ShoeTimeout
from drivers.handoff import AckHold, Pending
from drivers.notices import LinkLost, LinkRestored, Notice
from drivers.timeouts import LinkTimeouts
from drivers.transport import Transport, redact_port
from protocols import codec
from protocols.framing import BadFrame, Deframer
from protocols.messages import Event, EventAck, Message

log = structlog.get_logger("drivers.link")

IDLE_READ_S = 5.0
"""The reader's wait on a transport whose ``close`` wakes it (``wakes_on_close``); else ``read_poll``."""

MAX_LOSSES_PER_REQUEST = 5
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


class _Plan(NamedTuple):  # a tuple: built once a request, a frozen dataclass costs several times more
    """How one request waits: per-try ``timeout``, ``retries`` after ``work`` seconds of expected silence."""

    timeout: float
    retries: int
    work: float
    survive_loss: bool


class Link:
    def __init__(
        self,
        transport: Transport,
        *,
        timeouts: LinkTimeouts,
        on_event: Callable[[Event], None],
        on_notice: Callable[[Notice], None],
        auto_reconnect: bool = True,
    ) -> None:
        self._transport = transport
        self.timeouts = timeouts
        self._on_event = on_event
        self._on_notice = on_notice
        self._auto_reconnect = auto_reconnect
        self._deframer = Deframer()
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
        self._thread: threading.Thread | None = None
        self._batching = False
        self._held_ack: EventAck | None = None
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

    def start(self) -> None:
        self._write(b"\x00")  # flush any partial frame the shoe holds (SPEC §2)
        self._thread = threading.Thread(target=self._run, name=f"shoe-link {self.url}", daemon=True)
        self._thread.start()

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
        plan = _Plan(
            timeout=self.timeouts.reply if timeout is None else timeout,
            retries=self.timeouts.retries if retries is None else retries,
            work=work,
            survive_loss=survive_loss,
        )
        with self._request_lock:
            if not self._connected.is_set():
                raise LinkDown(f"{self.url}: link is down (reconnecting)")
            self._seq = self._seq % 0xFFFF + 1
            pending = Pending(self._seq, defer=self._acks.owner == threading.get_ident())
            self._pending = pending
            try:
                response = self._exchange(message, pending, plan)
                if confirm:
                    pending.rearm()
                    replay = self._exchange(message, pending, _Plan(plan.timeout, plan.retries, 0.0, plan.survive_loss))
                    if replay != response:
                        raise ShoeDiscrepancy(
                            "answer-changed", f"the shoe's replay of its answer to {message.TYPE.name} differs from it"
                        )
                return response
            finally:
                self._pending = None
                self._keep_ack(pending)

    def _exchange(self, message: Message, pending: Pending, plan: _Plan) -> Message:
        wire = codec.encode(message, pending.seq)
        attempt = losses = 0
        generation = self._generation
        working_until = time.monotonic() + plan.work
        first = True
        while True:
            # A re-send starts with a delimiter: if noise ate the last frame's 0x00, the shoe's
            # deframer would otherwise glue this copy onto the broken frame and lose it too.
            try:
                if first:
                    self._keep_ack(pending)  # an answer's ack not yet taken (a replay's, a retry's)
                    held = self._acks.take() if pending.defer else None
                    self._write(wire if held is None else codec.encode(held, 0) + wire)  # one write for both
                else:
                    self._write(b"\x00" + wire)
                first = False
            except ShoeIOError as exc:
                lost: ShoeError = exc
            else:
                if not pending.wait(plan.timeout):
                    if time.monotonic() < working_until:
                        self.stats.polls += 1
                        continue
                    attempt += 1
                    if attempt > plan.retries:
                        self.stats.timeouts += 1
                        tries = f"{plan.retries + 1} tries of {plan.timeout:g} s"
                        raise ShoeTimeout(f"no reply to {message.TYPE.name} from {self.url} after {tries}")
                    self.stats.retries += 1
                    continue
                if pending.error is None:
                    assert pending.response is not None
                    return pending.response
                lost = pending.error
            # The link dropped with this request in flight: the shoe may have acted on it.
            give_up = not plan.survive_loss or not self._auto_reconnect or losses >= MAX_LOSSES_PER_REQUEST
            if give_up or not self._await_new_link(generation):
                raise lost
            losses += 1
            generation = self._generation
            pending.rearm()
            log.info("re-sending request after reconnect", request=message.TYPE.name, seq=pending.seq)

    def _await_new_link(self, generation: int) -> bool:
        """Wait until the reader has reopened the transport since ``generation``; False on give-up."""

        def reopened() -> bool:
            return self._generation != generation and self._connected.is_set()

        with self._reconnected:
            self._reconnected.wait_for(lambda: self._closed.is_set() or reopened(), self.timeouts.reconnect_give_up)
            return reopened() and not self._closed.is_set()

    @contextlib.contextmanager
    def holding_acks(self) -> Iterator[None]:
        """Within: the EVENT_ACK of a read that answered this thread's request goes with its next request.

        The reader would otherwise write it before waking the requester, on the answer's path, and
        the shoe would read it apart from the request that follows at once (a dispense's QUERY after
        its STARTED and events): one write and one wake-up of the shoe for both (issue 16). What is
        held at the end goes out then; one thread holds at a time (another's requests ack as usual).
        """
        if not self._acks_lock.acquire(blocking=False):
            yield
            return
        self._acks.owner = threading.get_ident()
        try:
            yield
        finally:
            self._acks.owner = None
            self.flush_acks()
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

        An EVENT_ACK sent from ``on_event`` while the reader works through one read's frames is held and
        written once after the last of them: EVENT_ACK(boot, n) acknowledges every event up to n (SPEC
        §5), so one per batch, the highest, says what one per event said, with one write instead of four.
        """
        if isinstance(message, EventAck) and self._batching and threading.current_thread() is self._thread:
            held = self._held_ack
            if held is not None and held.boot_id != message.boot_id:
                self._send_now(held)  # a new boot's numbers: the old boot's ack goes first
            elif held is not None and held.event_no > message.event_no:
                return
            self._held_ack = message
            return
        self._send_now(message)

    def _send_now(self, message: Message) -> None:
        if self._connected.is_set():
            # On failure the reader notices the loss; the shoe re-sends and we acknowledge again.
            with contextlib.suppress(ShoeIOError):
                self._write(codec.encode(message, 0))

    def close(self) -> None:
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

    def _run(self) -> None:
        while not self._closed.is_set():
            # A transport that wakes its reader on close may wait long: an idle link then sleeps (issue 16).
            wait = IDLE_READ_S if getattr(self._transport, "wakes_on_close", False) else self.timeouts.read_poll
            try:
                data = self._transport.read(wait)
            except ShoeIOError as exc:
                if self._closed.is_set():
                    return
                self._lost(str(exc))
                if not self._auto_reconnect or not self._reconnect():
                    return
                continue
            if data:
                self._dispatch(data)

    def _dispatch(self, data: bytes) -> None:
        """One read's frames in order; then its one EVENT_ACK, then the requester is woken.

        The answer is handed over last: the requester then runs once, with the events of the same
        read (a dispense's STARTED comes with its CARD_READs and STACK_READY from an instant shoe)
        already delivered, and without taking the GIL back and forth with this thread (issue 16).
        """
        self._batching = True
        try:
            answered = self._dispatch_frames(data)
        finally:
            self._batching = False
            held, self._held_ack = self._held_ack, None
            if held is not None and answered is not None and answered.defer:
                answered.ack = held  # its next request's write takes it (``holding_acks``)
            elif held is not None:
                self._send_now(held)
        if answered is not None:
            answered.deliver()

    def _dispatch_frames(self, data: bytes) -> Pending | None:
        """Deliver the events; keep the answer to the request in flight (returned, woken by ``_dispatch``)."""
        answered: Pending | None = None
        for item in self._deframer.feed(data):
            if isinstance(item, BadFrame):
                self.stats.bad_frames += 1
                log.debug("bad frame discarded", kind=item.kind.value, length=item.length)
                continue
            try:
                message = codec.decode(item)
            except codec.MessageError as exc:
                self.stats.bad_messages += 1
                log.warning("undecodable message", error=str(exc), msg_type=item.msg_type)
                continue
            self.stats.frames_in += 1
            if message.TYPE.is_event:
                assert isinstance(message, Event)
                self._on_event(message)
            elif message.TYPE.is_response:
                pending = self._pending
                if pending is not None and pending.seq == item.seq and not pending.taken and pending.response is None:
                    pending.response = message
                    answered = pending
                else:
                    self.stats.late_responses += 1
        return answered

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
                self._deframer.reset()
                self._transport.write(b"\x00")
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
