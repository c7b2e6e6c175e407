"""A man in the middle on the shoe link, for tests and the lying-shoe soak.

:class:`ManInTheMiddle` wraps the host's :class:`~drivers.transport.Transport`. Every frame the shoe
sends is decoded and handed to the rules in turn; a rule may let it pass, drop it, or replace it with
other **valid** frames (correct COBS and CRC-32C, SPEC §2), so nothing below the protocol layer can
tell the lie from the truth. Runs that do not decode (line noise) pass through byte for byte. The
host's own bytes go to the shoe unchanged; the wrapper reads them to know what is outstanding (the
last request's ``seq``, the last dispense id, the last event number), which is what makes an
injected frame plausible. :class:`Injector` adds frames of random shoe types at random times.

Rules are small callables (``Rule``): ``card_reads_say``, ``started_as``, ``started_nak``,
``boot_id_says``, ``consistent_liar``. Every rule fires a bounded number of times. Card codes are never
logged.

On an authenticated link (SPEC §13) the man in the middle reads the sealed frames (a MAC hides nothing)
and rewrites them the same way, recomputing the CRC and keeping the counter and the MAC it cannot
compute: the best a liar without the key can do. The host refuses every one of them.
"""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from msgspec.structs import replace

from drivers.transport import Transport
from protocols import auth, codec
from protocols import messages as m
from protocols.cards import ALL_CODES
from protocols.codes import DispensePhase, FaultCode, NakCode, ReadStatus, ShoeState
from protocols.fields import CardRead
from protocols.framing import Deframer, Frame, encode_frame

__all__ = [
    "Injector",
    "ManInTheMiddle",
    "MitmState",
    "Rule",
    "TcpMitm",
    "boot_id_says",
    "card_reads_say",
    "consistent_liar",
    "random_shoe_frame",
    "scan_says",
    "started_as",
    "started_nak",
]

Out = list[tuple[m.Message, int]]
"""What a rule sends instead of a frame: (message, seq) pairs; empty drops it."""


@dataclass
class MitmState:
    """What the man in the middle has seen, shared across reopens (a replugged cable, same attacker)."""

    last_seq: int = 0
    last_request: str = ""
    last_dispense_id: int = 0
    last_event_no: int = 0
    boot_id: int = 0
    dispensing: bool = False
    queued: list[tuple[m.Message, int]] = field(default_factory=list)
    rewritten: Counter[str] = field(default_factory=Counter)
    injected: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def note_request(self, message: m.Message, seq: int) -> None:
        if seq:
            self.last_seq, self.last_request = seq, message.TYPE.name
        if isinstance(message, m.Dispense | m.QueryDispense):
            self.last_dispense_id = max(self.last_dispense_id, message.dispense_id)
            self.dispensing = self.dispensing or isinstance(message, m.Dispense)

    def note_shoe(self, message: m.Message) -> None:
        if isinstance(message, m.Event):
            self.last_event_no = max(self.last_event_no, message.event_no)
        if isinstance(message, m.StackReady | m.FaultRaised) and message.dispense_id:
            self.dispensing = False
        if isinstance(message, m.Identity | m.Status) and not self.boot_id:
            self.boot_id = message.boot_id


Rule = Callable[[m.Message, int, MitmState], Out | None]
"""``rule(message, seq, state)``: None lets the frame pass (to the next rule), a list replaces it."""


class ManInTheMiddle(Transport):
    """The host's transport with a liar in the cable. ``state`` says what it saw and did."""

    def __init__(
        self,
        inner: Transport,
        rules: Sequence[Rule] = (),
        *,
        injector: Injector | None = None,
        state: MitmState | None = None,
    ) -> None:
        self.inner = inner
        self.url = inner.url
        self.rules = rules if isinstance(rules, list) else list(rules)  # a list given stays live: add rules later
        self.injector = injector
        self.state = state or MitmState()
        self._from_shoe = bytearray()
        self._to_shoe = Deframer()

    def write(self, data: bytes) -> None:
        for item in self._to_shoe.feed(data):
            if isinstance(item, Frame):
                try:
                    message = codec.decode(_unsealed(item))
                except codec.MessageError:
                    continue
                with self.state.lock:
                    self.state.note_request(message, item.seq)
        self.inner.write(data)

    def read(self, timeout: float) -> bytes:
        data = self.inner.read(timeout)
        out = bytearray()
        if data:
            self._from_shoe += data
            while (end := self._from_shoe.find(0)) >= 0:
                run = bytes(self._from_shoe[: end + 1])
                del self._from_shoe[: end + 1]
                out += self._pass(run)
        with self.state.lock:
            extra, self.state.queued = self.state.queued, []
            if self.injector is not None:
                extra += self.injector.due(self.state)
            for message, seq in extra:
                out += codec.encode(message, seq)
        return bytes(out)

    def inject(self, message: m.Message, seq: int = 0) -> None:
        """Send the host this frame (valid, correct CRC) with the next bytes it reads."""
        with self.state.lock:
            self.state.queued.append((message, seq))
            self.state.injected[message.TYPE.name] += 1

    def _pass(self, run: bytes) -> bytes:
        items = Deframer().feed(run)
        if len(items) != 1 or not isinstance(items[0], Frame):
            return run  # noise, or an empty run: the host sees it as the shoe sent it
        frame = items[0]
        try:
            message = codec.decode(_unsealed(frame))
        except codec.MessageError:
            return run
        with self.state.lock:
            self.state.note_shoe(message)
            for rule in self.rules:
                replaced = rule(message, frame.seq, self.state)
                if replaced is not None:
                    self.state.rewritten[message.TYPE.name] += 1
                    return b"".join(_like(frame, msg, seq) for msg, seq in replaced)
        return run

    def close(self) -> None:
        self.inner.close()

    def reopen(self) -> Transport:
        return ManInTheMiddle(self.inner.reopen(), self.rules, injector=self.injector, state=self.state)


def _unsealed(frame: Frame) -> Frame:
    """A sealed frame's message as a plain frame, read without the key (the MAC is not checked)."""
    if frame.version != auth.FORMAT_AUTH or len(frame.payload) < auth.OVERHEAD:
        return frame
    return Frame(1, frame.msg_type, frame.seq, frame.payload[auth.COUNTER.size : -auth.MAC_SIZE])


def _like(original: Frame, message: m.Message, seq: int) -> bytes:
    """``message`` framed as ``original`` was: sealed frames keep their counter and MAC (the liar has no key)."""
    if original.version != auth.FORMAT_AUTH or len(original.payload) < auth.OVERHEAD:
        return codec.encode(message, seq)
    body = original.payload
    forged = body[: auth.COUNTER.size] + codec.encode_payload(message) + body[-auth.MAC_SIZE :]
    return encode_frame(auth.FORMAT_AUTH, message.TYPE, seq, forged)


# -- rules -------------------------------------------------------------------------------------------


def consistent_liar(stack: Sequence[str] = ("Ah", "Kh"), scans: Sequence[str] = ("Qh", "Jh", "Th")) -> Rule:
    """The lie that agrees with itself: the first dispense it sees is ``stack`` in its CARD_READs, its
    STACK_READY and every DISPENSE_REPORT about it (the read-back included); the SCAN answers are
    ``scans`` in turn, each replay of a scan saying what its answer said. CRCs are recomputed, so on a
    v1.0 link every check of SPEC §6 holds."""
    reads = tuple(CardRead(code) for code in stack)
    target: list[int] = []
    scan_seqs: dict[int, int] = {}

    def rule(message: m.Message, seq: int, state: MitmState) -> Out | None:
        if not target and state.last_dispense_id and state.dispensing:
            target.append(state.last_dispense_id)
        did = target[0] if target else None
        if isinstance(message, m.CardReadEvent) and message.dispense_id == did and message.position <= len(reads):
            return [(replace(message, read=reads[message.position - 1]), seq)]
        if isinstance(message, m.StackReady) and message.dispense_id == did:
            return [(replace(message, cards=reads[: len(message.cards)]), seq)]
        if isinstance(message, m.DispenseReport) and message.dispense_id == did and message.cards:
            return [(replace(message, cards=reads[: len(message.cards)]), seq)]
        if isinstance(message, m.ScanResult) and message.read.card is not None:
            index = scan_seqs.setdefault(seq, len(scan_seqs))
            if index < len(scans):
                return [(m.ScanResult(CardRead(scans[index])), seq)]
        return None

    return rule


def card_reads_say(codes: Sequence[str]) -> Rule:
    """The next ``len(codes)`` CARD_READ events carry these cards instead of the ones read."""
    left = list(codes)

    def rule(message: m.Message, seq: int, state: MitmState) -> Out | None:
        if not isinstance(message, m.CardReadEvent) or not left:
            return None
        return [(replace(message, read=CardRead(left.pop(0))), seq)]

    return rule


def started_as(phase: DispensePhase, codes: Sequence[str] = (), *, times: int = 1) -> Rule:
    """The next ``times`` DISPENSE_REPORTs of phase STARTED say ``phase`` instead, with these cards."""
    left = [times]

    def rule(message: m.Message, seq: int, state: MitmState) -> Out | None:
        if not isinstance(message, m.DispenseReport) or message.phase is not DispensePhase.STARTED or not left[0]:
            return None
        left[0] -= 1
        reads = tuple(CardRead(code) for code in codes)
        return [(replace(message, phase=phase, replayed=phase is DispensePhase.COMPLETE, cards=reads), seq)]

    return rule


def started_nak(code: NakCode = NakCode.BUSY, *, times: int = 1) -> Rule:
    """The next ``times`` DISPENSE_REPORTs of phase STARTED become NAK ``code``: the cards still move."""
    left = [times]

    def rule(message: m.Message, seq: int, state: MitmState) -> Out | None:
        if not isinstance(message, m.DispenseReport) or message.phase is not DispensePhase.STARTED or not left[0]:
            return None
        left[0] -= 1
        return [(m.Nak(code, "busy"), seq)]

    return rule


def boot_id_says(boot_id: int, *, times: int = 2, while_dispensing: bool = True) -> Rule:
    """The next ``times`` STATUS and IDENTITY answers (by default only mid-stack) carry ``boot_id``."""
    left = [times]

    def rule(message: m.Message, seq: int, state: MitmState) -> Out | None:
        if not isinstance(message, m.Status | m.Identity) or not left[0]:
            return None
        if while_dispensing and not state.dispensing:
            return None
        left[0] -= 1
        return [(replace(message, boot_id=boot_id), seq)]

    return rule


def scan_says(code: str, *, times: int = 1) -> Rule:
    """The next ``times`` SCAN_RESULTs carry ``code`` instead of the card read."""
    left = [times]

    def rule(message: m.Message, seq: int, state: MitmState) -> Out | None:
        if not isinstance(message, m.ScanResult) or not left[0]:
            return None
        left[0] -= 1
        return [(m.ScanResult(CardRead(code)), seq)]

    return rule


# -- random valid frames -----------------------------------------------------------------------------


def _read(rng: random.Random) -> CardRead:
    if rng.random() < 0.05:
        return CardRead(None, ReadStatus.SMUDGED)
    return CardRead(rng.choice(ALL_CODES))


def _reads(rng: random.Random) -> tuple[CardRead, ...]:
    return tuple(_read(rng) for _ in range(rng.randrange(0, 3)))


def random_shoe_frame(rng: random.Random, state: MitmState) -> tuple[m.Message, int]:
    """One valid frame of a random shoe type (response or event), with plausible numbers.

    A response echoes the last request's ``seq`` most of the time, so it can be taken for the answer;
    an event carries the next event number or a near one, so it can displace the real event of that
    number; dispense ids are the last one or a neighbour.
    """
    seq = state.last_seq if rng.random() < 0.8 else rng.randrange(1, 0x10000)
    ev = max(1, state.last_event_no + rng.choice((0, 1, 1, 1, 2, 3)))
    did = max(0, state.last_dispense_id + rng.choice((-1, 0, 0, 1)))
    boot = state.boot_id if rng.random() < 0.7 else rng.randrange(1, 1 << 32)
    faults = rng.choice(tuple(FaultCode))
    makers: list[Callable[[], tuple[m.Message, int]]] = [
        lambda: (m.Identity("CS-200", "SN-MITM", "1.4.2", 1, 0x3F, boot), seq),
        lambda: (m.Status(rng.choice(tuple(ShoeState)), 0, rng.randrange(0, 53), did, 0, ev, boot, False, False), seq),
        lambda: (m.DispenseReport(did, rng.choice(tuple(DispensePhase)), rng.random() < 0.5, 0, _reads(rng)), seq),
        lambda: (m.StubReleased(rng.randrange(0, 52)), seq),
        lambda: (m.ScanResult(_read(rng)), seq),
        lambda: (m.Counters(*(rng.randrange(0, 100_000) for _ in range(7))), seq),
        lambda: (m.Ok(), seq),
        lambda: (m.Nak(rng.choice(tuple(NakCode)), "injected"), seq),
        lambda: (m.CardReadEvent(ev, did, rng.randrange(1, 3), _read(rng)), 0),
        lambda: (m.StackReady(ev, did, _reads(rng) or (_read(rng),)), 0),
        lambda: (m.StackTaken(ev, did), 0),
        lambda: (m.FaultRaised(ev, faults, did if rng.random() < 0.5 else 0), 0),
        lambda: (m.FaultCleared(ev, faults), 0),
    ]
    return rng.choice(makers)()


class Injector:
    """Injects a random valid shoe frame every ``every_s`` seconds on average (exponential intervals)."""

    def __init__(self, rng: random.Random, every_s: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        if every_s <= 0:
            raise ValueError(f"every_s {every_s!r} must be positive")
        self.rng, self.every_s, self.clock = rng, every_s, clock
        self._next = clock() + rng.expovariate(1 / every_s)
        self.enabled = True

    def due(self, state: MitmState) -> Out:
        now = self.clock()
        if not self.enabled or now < self._next:
            return []
        self._next = now + self.rng.expovariate(1 / self.every_s)
        message, seq = random_shoe_frame(self.rng, state)
        state.injected[message.TYPE.name] += 1
        return [(message, seq)]


# -- a man in the middle on TCP, for a real shoed -------------------------------------------------------


class TcpMitm:
    """A TCP proxy with the liar in it: ``shoed --port socket://HOST:PORT`` to ``address``, the shoe behind
    it at ``upstream`` (an emulator's TCP server). One host connection at a time; a reconnect gets a new
    upstream connection and the same :class:`MitmState` (the same attacker)."""

    def __init__(self, upstream: str, rules: Sequence[Rule], *, host: str = "127.0.0.1", port: int = 0) -> None:
        import socket

        self.upstream, self.rules, self.state = upstream, list(rules), MitmState()
        self._listener = socket.create_server((host, port))
        self._listener.settimeout(0.2)
        self.address: tuple[str, int] = self._listener.getsockname()[:2]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="tcp-mitm", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self._pump(conn)

    def _pump(self, conn: Any) -> None:
        """Host to shoe on a thread of its own; shoe to host (through the rules) on this one."""
        from drivers.errors import ShoeError
        from drivers.serial_transport import SerialTransport

        try:
            mitm = ManInTheMiddle(SerialTransport(f"socket://{self.upstream}"), self.rules, state=self.state)
        except ShoeError:
            conn.close()
            return
        done = threading.Event()

        def to_shoe() -> None:
            try:
                while not done.is_set():
                    data = conn.recv(65536)
                    if not data:
                        break
                    mitm.write(data)
            except (OSError, ShoeError):
                pass
            done.set()

        threading.Thread(target=to_shoe, name="tcp-mitm-to-shoe", daemon=True).start()
        try:
            while not done.is_set() and not self._stop.is_set():
                out = mitm.read(0.05)
                if out:
                    conn.sendall(out)
        except (OSError, ShoeError):
            pass
        finally:
            done.set()
            with contextlib.suppress(OSError):
                conn.shutdown(2)
            conn.close()
            mitm.close()

    def close(self) -> None:
        self._stop.set()
        self._listener.close()
        self._thread.join(timeout=5)
