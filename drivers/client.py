"""``ShoeClient``: the hardware abstraction layer. One shoe, any transport, commands and events.

- Commands are request/response with sequence numbers, timeouts and bounded re-sends (``Link``).
- Events are sequenced (no duplicates, in order), acknowledged, and handed to subscribers.
- A dispense happens exactly once (SPEC §6): after any timeout, link loss or reboot the client reads
  STATUS and asks the shoe about its last dispense id before it will send a new one.
- With a pairing ``key`` every frame is authenticated (SPEC §13, ``Link``). A refused frame is a
  :class:`~drivers.notices.Discrepancy` (cause ``refused-frame``) and fails a dispense in flight; a shoe
  that is paired while this host has no key is refused at connect (``ShoeAuthError``).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar, cast

import structlog

from drivers.affinity import pin_this_thread
from drivers.crosscheck import BootWatch
from drivers.dispensing import Dispenser
from drivers.errors import (
    LinkDown,
    ShoeAuthError,
    ShoeError,
    ShoeFault,
    ShoeInitError,
    ShoeIOError,
    ShoeProtocolError,
    ShoeTimeout,
)
from drivers.firmware import ask_firmware_digest
from drivers.link import Link
from drivers.nak_hints import nak_hint
from drivers.notices import Discrepancy, FrameRefused, LinkLost, LinkRestored, Notice, Resynced, ShoeRebooted
from drivers.sequencer import EventSequencer
from drivers.stacks import Stack, StackTracker
from drivers.timeouts import LinkTimeouts
from drivers.transport import Transport, open_transport
from protocols import codec
from protocols import messages as m
from protocols.codes import FAULT_INFO, PROTOCOL_VERSION, Capability, FaultCode, NakCode, faults_from_flags
from protocols.fields import CardRead

log = structlog.get_logger("drivers.client")

T = TypeVar("T", bound=m.Message)
FINISHED_KEPT = 16  # stacks remembered after their dispense returned, to check late events against
REFUSED_QUIET_S = 10.0
DUPLICATE_RUN_RESYNC = 3
"""This many duplicate events in a row make the client re-read STATUS (has the shoe rebooted?)."""
# How long the mechanism may work before it answers (SPEC §4): the host polls with the same frame meanwhile.
STUB_RELEASE_WORK_S = 5.0
SELF_TEST_WORK_S = 5.0
DECK_CHECK_WORK_S = 10.0
_DISPENSE_POSITION = int(Capability.DISPENSE_POSITION)
_NAME_THE_BOOT = frozenset({m.Identity, m.Status})
_TRACKED = (m.CardReadEvent, m.StackReady, m.FaultRaised)
_CARD_READ = m.CardReadEvent
Subscriber = Callable[[m.Event | Notice], None]


class ShoeClient:
    def __init__(
        self,
        transport: Transport,
        *,
        timeouts: LinkTimeouts | None = None,
        auto_reconnect: bool = True,
        resume: tuple[int, int] | None = None,
        key: bytes | None = None,
    ) -> None:
        """``resume=(boot_id, last_event_no)`` continues an event stream a journal already holds."""
        self.timeouts = timeouts or LinkTimeouts()
        self._subscribers: list[Subscriber] = []
        self._sequencer = EventSequencer()
        self._resume = resume
        self._trackers: dict[int, StackTracker] = {}
        self._dispense_lock = threading.Lock()
        self._resync_lock = threading.Lock()
        self._event_lock = threading.RLock()
        self._duplicate_run = 0
        self._needs_resync = True
        self._next_dispense_id = 1
        self._resynced_once = False
        self._finished: OrderedDict[int, tuple[CardRead, ...]] = OrderedDict()
        self._boots = BootWatch()
        self._delivered_by_boot: dict[int, int] = {}
        self._dispenser = Dispenser(self)
        self.identity: m.Identity | None = None
        self._positioned_of: m.Identity | None = None
        self._positioned = False
        self.link = Link(
            transport,
            timeouts=self.timeouts,
            on_events=self._on_events,
            on_notice=self._on_notice,
            auto_reconnect=auto_reconnect,
            key=key,
        )
        self.cpu: int | None = None
        """The CPU this client's requesting thread and link reader share (``connect(one_cpu=True)``), or None."""
        self._refused_told = 0.0  # when the last refused-frame discrepancy was published (one per quiet spell)
        self._refused_since = 0

    @classmethod
    def open(cls, url: str, **kwargs: object) -> ShoeClient:
        """Open the port a URL names, start the link and resynchronise. The caller closes it."""
        return cls.open_transport(open_transport(url), **kwargs)

    @classmethod
    def open_transport(cls, transport: Transport, **kwargs: object) -> ShoeClient:
        """Start a client on an already open transport and resynchronise. The caller closes it."""
        client = cls(transport, **kwargs)  # type: ignore[arg-type]
        try:
            client.connect()
        except BaseException:
            client.close()
            raise
        return client

    def connect(self, *, one_cpu: bool = False) -> None:
        """Start the link and resynchronise.

        ``one_cpu``: first pin this thread, the one that will make the requests, to one CPU; the link's reader
        thread, started next, inherits it (``drivers.affinity``: a dispense's hand-offs then stay in one core's
        caches, about a third of the client's CPU). So do threads and processes this thread starts later.
        ``self.cpu`` says which (None: not pinned).
        """
        if one_cpu:
            self.cpu = pin_this_thread()
        self.link.start()
        # The first resynchronisation reads only: on a noisy line it is asked again (until reconnect_give_up)
        # rather than failing the connection for a few lost frames (an authenticated frame is 12 bytes longer).
        deadline = time.monotonic() + self.timeouts.reconnect_give_up
        while True:
            try:
                self.resync()
                return
            except ShoeTimeout:
                if time.monotonic() >= deadline:
                    raise

    def close(self) -> None:
        self.link.close()

    def __enter__(self) -> ShoeClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Receive every shoe event (in order, once) and link notice. Runs on the link's thread."""
        self._subscribers.append(callback)
        return lambda: self._subscribers.remove(callback)

    # --- commands ---------------------------------------------------------------------------------

    def identify(self) -> m.Identity:
        return self._call(m.Identify(), m.Identity)

    def status(self, *, confirm: bool = False) -> m.Status:  # confirm: as scan, by the shoe's replay
        return self._call(m.GetStatus(), m.Status, confirm=confirm)

    def counters(self) -> m.Counters:
        return self._call(m.GetCounters(), m.Counters)

    def self_test(self) -> m.SelfTestReport:
        return self._call(m.SelfTest(), m.SelfTestReport, work=SELF_TEST_WORK_S)

    def deck_check(self) -> m.DeckReport:
        return self._call(m.DeckCheck(), m.DeckReport, work=DECK_CHECK_WORK_S)

    def release_stub(self) -> int:
        return self._call(m.ReleaseStub(), m.StubReleased, work=STUB_RELEASE_WORK_S).count

    def scan(self, timeout: float | None = None) -> CardRead:
        """Read one card the dealer passes across the reader.

        A lost answer is recovered by re-sending the same request (same sequence number): the shoe
        replays its stored answer (SPEC §4); a replay confirms each answer (one that differs: ShoeDiscrepancy).
        A new SCAN instead would read, and lose, the next card.
        """
        wait = self.timeouts.scan if timeout is None else timeout
        result = self._call(m.Scan(int(wait * 1000)), m.ScanResult, work=wait, confirm=True)
        return result.read

    def clear_fault(self, code: FaultCode | None = None) -> None:
        self._call(m.ClearFault(int(code) if code else 0), m.Ok)

    def reset(self) -> None:
        """Reboot the shoe and resynchronise with its new boot.

        RESET is sent once, never re-sent (SPEC §4): a reboot forgets the stored reply, so a copy would
        reboot the shoe again. Without an answer (lost, or the link dropped as the shoe rebooted) the boot
        id read back tells whether it happened.
        """
        before = self.identity.boot_id if self.identity else None
        try:
            self._call(m.Reset(), m.Ok, retries=0, survive_loss=False)
        except (ShoeIOError, ShoeTimeout) as exc:
            log.warning("no answer to RESET; reading the boot id to see whether the shoe rebooted", error=str(exc))
            if not self._await_link():
                raise
            self._needs_resync = True
            if self.resync().boot_id == before:
                raise ShoeTimeout("the shoe did not answer RESET and did not reboot; send it again") from exc
            return
        self._needs_resync = True
        self.resync()

    def event_log(self, first_event: int = 1, max_events: int = 64) -> tuple[int, list[m.Event], bool]:
        """Read back logged events: (boot id, events, more)."""
        log_msg = self._call(m.ReadEventLog(first_event, max_events), m.EventLog)
        events = [codec.decode_payload(e.msg_type, e.payload) for e in log_msg.events]
        return log_msg.boot_id, [e for e in events if isinstance(e, m.Event)], log_msg.more

    def query_dispense(self, dispense_id: int) -> m.DispenseReport:
        """What became of ``dispense_id`` (SPEC §6 rule 6): never moves a card.

        The shoe keeps dispense results in non-volatile memory, so this answers across shoe reboots
        where the event log (per boot) cannot.
        """
        return self._call(m.QueryDispense(dispense_id), m.DispenseReport)

    def firmware_digest(self, seed: bytes) -> m.FirmwareDigestReport | None:  # SPEC §12; None: not supported
        return ask_firmware_digest(self._call, seed)

    def dispense(self, cards: int = 2) -> Stack:
        """One stack of ``cards`` cards, exactly once and cross-checked (``drivers.dispensing``): its reads."""
        with self._dispense_lock:
            return self._dispenser.dispense(cards)

    # --- reconciliation ------------------------------------------------------------------------

    def resync(self) -> Resynced:
        """Identify, read STATUS, fill event gaps from the shoe's log, and set the dispense id floor."""
        with self._resync_lock:
            return self._resync()

    @property
    def authenticated(self) -> bool:
        return self.link.authenticated

    @property
    def positioned(self) -> bool:
        """The shoe's dispense reports carry its counters (SPEC §6 check 4, v1.1): two exchanges a dispense."""
        identity = self.identity
        if identity is not self._positioned_of:  # asked several times a dispense: once per IDENTITY read
            self._positioned_of = identity
            self._positioned = identity is not None and bool(int(identity.capabilities) & _DISPENSE_POSITION)
        return self._positioned

    def _resync(self) -> Resynced:
        try:
            identity = self.identify()
        except ShoeProtocolError as exc:
            if exc.nak is NakCode.AUTH_REQUIRED:
                raise ShoeAuthError(
                    "host-not-paired", f"{self.link.url}: the shoe is paired, this host has no key"
                ) from exc
            raise
        if identity.protocol_version != PROTOCOL_VERSION:
            raise ShoeInitError(
                f"shoe {identity.serial} speaks protocol {identity.protocol_version}, this host {PROTOCOL_VERSION}"
            )
        if self.link.key_id is None and identity.auth == m.Identity.AUTH_PAIRED:
            raise ShoeAuthError("host-not-paired", f"shoe {identity.serial} is paired, this host has no key")
        if self.link.key_id is not None and identity.key_id != self.link.key_id:
            raise ShoeAuthError("key-mismatch", f"shoe {identity.serial} names another key than this host's")
        self.identity = identity
        with self._event_lock:
            # What was delivered before STATUS was asked: the shoe numbered all of it before it answered. An
            # event it sends just after its answer may be delivered first (the reader hands the answer over
            # and goes on), so the events delivered by the time the answer is read are not the ones to check.
            before = (self._sequencer.boot_id, self._sequencer.last_delivered)
        status = self.status()
        if identity.boot_id != status.boot_id:
            self._contradiction("boot-id-mismatch", "IDENTITY and STATUS name different boot ids")
        seq = self._sequencer
        with self._event_lock:
            if seq.boot_id is None:
                resume = self._resume
                start = resume[1] if resume and resume[0] == status.boot_id else status.event_counter
                seq.new_boot(status.boot_id, start)
                ahead = start
            elif seq.boot_id != status.boot_id:
                old = seq.boot_id
                self._delivered_by_boot[old] = seq.last_delivered
                # A boot id seen before (a lie, or a lying answer in between): continue where it was.
                seq.new_boot(status.boot_id, self._delivered_by_boot.pop(status.boot_id, 0))
                log.warning("shoe rebooted", old_boot_id=old, new_boot_id=status.boot_id)
                self._publish(ShoeRebooted(old, status.boot_id))
                ahead = seq.last_delivered
            else:
                ahead = before[1] if before[0] == status.boot_id else 0
            if ahead > status.event_counter:
                # Events this host delivered that the shoe never numbered: injected, or a broken shoe.
                self._contradiction(
                    "events-ahead",
                    f"events up to {ahead} were delivered, the shoe counts {status.event_counter}",
                )
                seq.new_boot(status.boot_id, status.event_counter)
        refilled = self._refill(status)
        self._next_dispense_id = max(self._next_dispense_id, status.last_dispense_id + 1, status.active_dispense_id + 1)
        self._needs_resync = False
        self._resynced_once = True
        notice = Resynced(status.boot_id, status.event_counter, status.last_dispense_id, refilled)
        self._publish(notice)
        return notice

    def _refill(self, status: m.Status) -> int:
        refilled = 0
        while self._sequencer.last_delivered < status.event_counter:
            first = self._sequencer.last_delivered + 1
            boot, events, more = self.event_log(first, 32)
            if boot != status.boot_id or not events:
                break
            refilled += len(events)
            self._on_events(events)
            if not more:
                break
        return refilled

    # --- plumbing --------------------------------------------------------------------------------

    def _call(
        self,
        message: m.Message,
        expected: type[T],
        *,
        timeout: float | None = None,
        retries: int | None = None,
        work: float = 0.0,
        survive_loss: bool = True,
        confirm: bool = False,
    ) -> T:
        """One request and its typed response.

        A link that drops under the request is the link's business: it re-sends the same frame after
        the reconnect (SPEC §4). Only a link that was already down (nothing sent) is waited for here
        and asked anew.
        """
        try:
            response = self.link.request(message, timeout=timeout, retries=retries, work=work,
                                         survive_loss=survive_loss, confirm=confirm)  # fmt: skip
        except LinkDown:
            if not self._await_link():
                raise
            response = self.link.request(message, timeout=timeout, retries=retries, work=work,
                                         survive_loss=survive_loss, confirm=confirm)  # fmt: skip
        kind = type(response)
        if kind is not expected:  # the answer asked for (an exact class: messages are not subclassed)
            if isinstance(response, m.Nak):
                raise self._nak_error(message, response)
            if not isinstance(response, expected):
                raise ShoeProtocolError(f"{message.TYPE.name} answered by {response.TYPE.name}")
        if kind in _NAME_THE_BOOT:
            assert isinstance(response, m.Identity | m.Status)
            self._watch_boot(response.boot_id, response.TYPE.name)
        return cast(T, response)

    def _watch_boot(self, boot_id: int, what: str) -> None:
        """Every IDENTITY and STATUS names the boot: a new one is a reboot, a retired one a contradiction."""
        seen = self._boots.see(boot_id)
        if seen == "same":
            return
        self._needs_resync = True
        for tracker in list(self._trackers.values()):
            tracker.interrupt()  # a reboot cuts a dispense: reconcile it (SPEC §6)
        if seen == "flapped":
            self._contradiction("boot-id-flapped", f"{what} names boot {boot_id} again after a later one")
        elif not self._resync_lock.locked():
            log.warning("a new boot id outside a resynchronisation: re-reading the shoe", source=what)
            self._start_background_resync()

    def _contradiction(self, cause: str, detail: str, dispense_id: int | None = None) -> None:
        """Something the shoe said contradicts something else it said: a notice, and trackers in flight fail."""
        log.error("shoe discrepancy", cause=cause, dispense_id=dispense_id)
        self._needs_resync = True
        for tracker in list(self._trackers.values()):
            tracker.contradict(f"{cause}: {detail}")
        self._publish(Discrepancy(cause, detail, dispense_id))

    def _remember(self, stack: Stack) -> None:
        self._finished[stack.dispense_id] = stack.cards
        while len(self._finished) > FINISHED_KEPT:
            self._finished.popitem(last=False)

    def _await_link(self) -> bool:
        return self.link.wait_connected(self.timeouts.reconnect_give_up)

    def _nak_error(self, message: m.Message, nak: m.Nak) -> ShoeError:
        what = f"{message.TYPE.name} refused: {nak.code.name}" + (f" ({nak.detail})" if nak.detail else "")
        if nak.code is NakCode.FAULT_ACTIVE:
            faults = faults_from_flags(self.link.request(m.GetStatus()).faults)  # type: ignore[attr-defined]
            if faults:
                text = FAULT_INFO[faults[0]].text
                return ShoeFault(faults[0], f"{message.TYPE.name} refused: shoe fault {faults[0].name}: {text}")
        # BAD_STATE only says "not now": STATUS says why, and so the hint (drivers/nak_hints.py)
        return ShoeProtocolError(what, nak=nak.code, hint=nak_hint(message, nak.code, self.link))

    def _on_events(self, events: list[m.Event]) -> None:
        """The events of one read (or one page of the event log), in order: delivered, then one EVENT_ACK."""
        ack: int | None = None
        resync = False
        trackers = self._trackers
        with self._event_lock:
            sequencer = self._sequencer
            for event in events:
                if sequencer.next_in_order(event):  # the usual case, without the ``Accepted`` an offer builds
                    if type(event) is _CARD_READ and (tracker := trackers.get(event.dispense_id)) is not None:
                        tracker.card_read(event.position, event.read)  # ``_track``'s most frequent case, inline
                    else:
                        self._track(event)
                    if self._subscribers:
                        self._publish(event)
                    ack = event.event_no
                    self._duplicate_run = 0
                    continue
                accepted = sequencer.offer(event)
                for delivered in accepted.deliver:
                    self._track(delivered)
                    self._publish(delivered)
                if accepted.ack is not None:
                    ack = accepted.ack  # never lower than one before it: it is the last delivered number
                # A shoe that rebooted without dropping the link restarts its event numbers: they look like
                # duplicates and our acks (old boot id) are ignored. A run of duplicates means: check the boot.
                self._duplicate_run = self._duplicate_run + 1 if accepted.duplicate else 0
                resync = resync or self._duplicate_run == DUPLICATE_RUN_RESYNC
            boot_id = sequencer.boot_id
        if ack is not None and boot_id is not None:
            self.link.acknowledge(boot_id, ack)  # EVENT_ACK(boot, n) acknowledges every event up to n (SPEC §5)
        if resync:
            self._start_background_resync()

    def _track(self, event: m.Event) -> None:
        if isinstance(event, _TRACKED):  # a tuple built once: ``A | B | C`` builds a union per event
            tracker = self._trackers.get(event.dispense_id)
            if tracker is None:
                self._untracked(event)
                return
            if isinstance(event, m.CardReadEvent):
                tracker.card_read(event.position, event.read)
            elif isinstance(event, m.StackReady):
                tracker.ready(event.cards)
            else:
                tracker.failed(event.code)

    def _untracked(self, event: m.CardReadEvent | m.StackReady | m.FaultRaised) -> None:
        """An event of no dispense in flight: a late one must agree with its stack, none be for a new id."""
        did, known = event.dispense_id, self._finished.get(event.dispense_id)
        if isinstance(event, m.FaultRaised) or not did:
            return
        if known is not None:
            said = event.cards if isinstance(event, m.StackReady) else (event.read,)
            if said != (known if isinstance(event, m.StackReady) else known[event.position - 1 : event.position]):
                self._contradiction("late-event-mismatch", f"a late event disagrees with stack {did}", did)
        elif self._resynced_once and did >= self._next_dispense_id:
            self._contradiction("unasked-cards", f"card events for dispense {did}, never asked for", did)

    def _on_notice(self, notice: Notice) -> None:
        if isinstance(notice, FrameRefused):
            self._refused(notice)
            return
        if isinstance(notice, LinkLost):
            self._needs_resync = True
            for tracker in list(self._trackers.values()):
                tracker.interrupt()
        elif isinstance(notice, LinkRestored):
            self._start_background_resync()
        self._publish(notice)

    def _refused(self, notice: FrameRefused) -> None:
        """A refused frame fails every dispense in flight (never a guess at what it said) and is an alarm:
        published at once, then at most once per ``REFUSED_QUIET_S`` with the count since (a forger who
        keeps rewriting every re-sent event must not flood the journal)."""
        detail = f"refused {notice.msg_type} frame ({notice.reason}); {notice.refused} refused on this link"
        for tracker in list(self._trackers.values()):
            tracker.contradict(f"refused-frame: {detail}")
        self._refused_since += 1
        now = time.monotonic()
        if now - self._refused_told >= REFUSED_QUIET_S:
            self._refused_told, count, self._refused_since = now, self._refused_since, 0
            log.error("shoe frames refused", reason=notice.reason, msg_type=notice.msg_type, count=count)
            self._publish(Discrepancy("refused-frame", detail))
        self._publish(notice)

    def _start_background_resync(self) -> None:
        threading.Thread(target=self._background_resync, name="shoe-resync", daemon=True).start()

    def _background_resync(self) -> None:
        try:
            self.resync()
        except ShoeError as exc:
            self._needs_resync = True
            log.warning("background resync failed; the next command retries", error=str(exc))

    def _publish(self, item: m.Event | Notice) -> None:
        if not self._subscribers:
            return
        for callback in list(self._subscribers):
            try:
                callback(item)
            except Exception:
                log.exception("event subscriber failed", item=type(item).__name__)
