"""Rows 1-3 of the performance goals' table (``bench/goals.py``, docs/performance.md): the link's dispense
and the codec's decode, each against what the same bytes cost without our code, measured in the same run, interleaved.

- dispense round trip: ``ShoeClient.dispense(2)`` against the instant emulator in its own process on a
  pty, vs plain pyserial making the same writes (each whole: a request, its MAC, the EVENT_ACK riding
  with it) to a pty peer (``bench/_echo.py``) that answers each with the very bytes the emulator
  answered (recorded from a real dispense);
- client CPU per dispense: this process's CPU (every thread) per dispense, vs the same request and
  reply bytes through our ``SerialTransport`` and a reader thread that only counts them;
- both interleaved per dispense (one of ours, then each reference once), so that load from other
  processes hits all three alike;
- frame decode: the link's read path (``protocols.reader.MessageReader.read``: deframe, CRC, decode in one
  pass) of CARD_READ frames, vs ``cobs.decode`` and ``crc32c`` alone on the same frames
  (the C work every decode must do);
- frame encode: ``codec.encode`` of a CARD_READ event, vs ``crc32c`` and ``cobs.encode`` alone on its body;
- the MAC's cost per frame (SPEC §13): sealing and opening an authenticated CARD_READ against encoding and
  decoding it plain, interleaved, thread CPU time.

The dispense rows run on an **authenticated** link (the emulator paired with a fresh key, SPEC §13) and
report the exchanges a dispense took (requests that get an answer; EVENT_ACKs ride along).
"""

from __future__ import annotations

import contextlib
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import serial
from cobs import cobs

from bench import _report as report
from bench._shoed import EmulatorProcess
from drivers.client import ShoeClient
from drivers.keyfile import create_key
from drivers.serial_transport import SerialTransport
from protocols import auth, codec
from protocols import messages as m
from protocols.codes import MsgType
from protocols.crc import crc32c
from protocols.fields import CardRead
from protocols.framing import Deframer, Frame
from protocols.reader import MessageReader

BENCH = Path(__file__).resolve().parent
STACKS_PER_DECK = 26


class _Recording(SerialTransport):
    """Our transport, keeping every write of a dispense whole and the bytes read after it (its exchanges).

    A write is replayed as written: an EVENT_ACK riding with a request (``Link.holding_acks``) and its MAC
    are bytes ours moves, so the references move them too; a write with no answer (an ack flushed at the
    end) is replayed with an empty answer."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.requests: list[bytes] = []
        self.replies: list[bytearray] = []

    def write(self, data: bytes) -> None:
        self.requests.append(bytes(data))
        self.replies.append(bytearray())
        super().write(data)

    def read(self, timeout: float) -> bytes:
        data = super().read(timeout)
        if self.replies:
            self.replies[-1] += data
        return data

    def asked(self) -> int:
        """Writes that carry a request (an answer is due): the exchanges."""
        count = 0
        for data in self.requests:
            frames = [f for f in Deframer().feed(data) if isinstance(f, Frame)]
            count += any(MsgType(f.msg_type).is_request and f.msg_type != MsgType.EVENT_ACK for f in frames)
        return count


class _Echo:
    """``bench/_echo.py`` in a child process: a pty answering the i-th write (by its length) with ``replies[i]``."""

    def __init__(self, requests: list[bytes], replies: list[bytes]) -> None:
        spec = ",".join(f"{len(q)}:{r.hex()}" for q, r in zip(requests, replies, strict=True))
        self.proc = subprocess.Popen([sys.executable, str(BENCH / "_echo.py"), spec],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # fmt: skip
        assert self.proc.stdout is not None
        self.path = self.proc.stdout.readline().strip()
        if not self.path:
            raise RuntimeError("bench/_echo.py did not start")

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _elsewhere(pid: int, cpu: int | None) -> None:
    """A peer process off the CPU this thread was pinned to (it inherited the pin): on the others, as a shoe is
    another machine. The references' reader thread, started by this thread, shares its CPU as the link's does."""
    if cpu is not None:
        others = set(range(os.cpu_count() or 1)) - {cpu} or {cpu}
        for task in Path(f"/proc/{pid}/task").iterdir():  # every thread: each has its own mask
            with contextlib.suppress(OSError):
                os.sched_setaffinity(int(task.name), others)


def _block(step: Callable[[], None], n: int) -> tuple[float, float]:
    """Seconds and CPU seconds (this process, all threads) per call of ``step``, over ``n`` calls."""
    c0, t0 = time.process_time(), time.perf_counter()
    for _ in range(n):
        step()
    return (time.perf_counter() - t0) / n, (time.process_time() - c0) / n


def dispense_rows(tmp: Path, *, blocks: int, authenticated: bool = True) -> None:
    key_file = tmp / "goals-shoe.key"
    key = None
    options: tuple[str, ...] = ("--no-stamps",)  # the stamps are the service bench's; they cost the shoe CPU
    if authenticated:
        key = create_key(key_file) if not key_file.exists() else bytes.fromhex(key_file.read_text())
        options += ("--key-file", str(key_file))
    with EmulatorProcess(tmp / "goals-shoe", tmp / "goals-emulator.log", 1, *options) as emulator:
        # The exchanges are recorded by a client of their own, closed before the timed one connects: the timed
        # client moves its bytes through a plain SerialTransport, as the references do, and pays for no recording.
        recording = _Recording(str(emulator.link))
        recorder = ShoeClient(recording, key=key)
        recorder.connect()
        try:
            recorder.dispense(2)  # the first reads its "before" position; the steady state is what is measured
            time.sleep(0.05)
            recording.requests.clear()
            recording.replies.clear()
            recorder.dispense(2)
            time.sleep(0.05)  # the last event's bytes
            requests, replies = list(recording.requests), [bytes(r) for r in recording.replies]
            report.figure("exchanges per dispense", recording.asked(), "requests",
                          note=f"goal <= 3 (v1.0: 6); {'authenticated' if authenticated else 'plain'} link, "
                          "a 2-card stack after the first")  # fmt: skip
            recorder.release_stub()
        finally:
            recorder.close()
        emulator.load()
        client = ShoeClient(SerialTransport(str(emulator.link)), key=key)
        client.connect(one_cpu=True)  # this thread and the link's reader on one CPU (drivers.affinity)
        _elsewhere(emulator.pid, client.cpu)
        try:
            client.dispense(2)  # the first after connecting reads its "before" position, as above: not timed
            client.release_stub()
            emulator.load()
            echo, echo2 = _Echo(requests, replies), _Echo(requests, replies)  # one peer each: a pty has one reader
            _elsewhere(echo.proc.pid, client.cpu)
            _elsewhere(echo2.proc.pid, client.cpu)
            raw = serial.Serial(echo.path, timeout=2)
            ours = SerialTransport(echo2.path)
            want, got, arrived, stop = [0], [0], threading.Event(), threading.Event()

            def reader() -> None:
                while not stop.is_set():
                    data = ours.read(0.05)
                    got[0] += len(data)
                    if want[0] and got[0] >= want[0]:
                        got[0] -= want[0]
                        want[0] = 0
                        arrived.set()

            thread = threading.Thread(target=reader, daemon=True)
            thread.start()

            def raw_echo() -> None:
                for request, reply in zip(requests, replies, strict=True):
                    raw.write(request)
                    if reply and len(raw.read(len(reply))) != len(reply):
                        raise RuntimeError("the echo peer did not answer")

            def transport_echo() -> None:
                for request, reply in zip(requests, replies, strict=True):
                    want[0] = len(reply)
                    ours.write(request)
                    if reply and not arrived.wait(2):
                        raise RuntimeError("the echo peer did not answer")
                    arrived.clear()

            # Interleaved per dispense, not per deck: on a loaded machine a burst of other work lasting
            # one block of 26 made the ratio of the same tree swing from 1.3x to 50x; per dispense, a
            # burst hits ours and both references alike.
            def dispense() -> None:
                client.dispense(2)

            steps: dict[str, Callable[[], None]] = {"ours": dispense, "raw": raw_echo, "transport": transport_echo}
            walls: dict[str, list[float]] = {k: [] for k in steps}
            results: dict[str, list[tuple[float, float]]] = {k: [] for k in steps}
            try:
                for _ in range(blocks):
                    used = dict.fromkeys(steps, 0.0)
                    for _ in range(STACKS_PER_DECK):
                        for kind, step in steps.items():
                            took, spent = _block(step, 1)
                            walls[kind].append(took)
                            used[kind] += spent
                    for kind in steps:
                        results[kind].append((0.0, used[kind] / STACKS_PER_DECK))
                    client.release_stub()
                    emulator.load()
            finally:
                stop.set()
                thread.join(2)
                ours.close()
                raw.close()
                echo.close()
                echo2.close()
        finally:
            client.close()
    wall = {k: statistics.median(v) for k, v in walls.items()}
    cpu = {k: statistics.median(c for _, c in v) for k, v in results.items()}
    n = (
        f"{blocks} decks of {STACKS_PER_DECK}, each dispense followed by both references; wall: median of "
        f"the dispenses, CPU: median of the decks' means; {len(requests)} writes (acks with requests included), "
        f"{sum(map(len, requests))} B out, {sum(map(len, replies))} B back"
    )
    report.figure("dispense round trip, pty, 2-card stack", wall["ours"] * 1e6, "µs",
                  vs=(wall["ours"] / wall["raw"], f"raw pyserial echo of the same bytes ({wall['raw'] * 1e6:.0f} µs)"),
                  note=f"goal <= 3x; {n}")  # fmt: skip
    report.figure("client CPU per dispense", cpu["ours"] * 1e6, "µs",
                  vs=(cpu["ours"] / cpu["transport"], f"the same bytes through SerialTransport and a reader thread "
                      f"({cpu['transport'] * 1e6:.0f} µs)"), note=f"goal <= 2x; {n}")  # fmt: skip


def decode_row(*, rounds: int) -> None:
    message = m.CardReadEvent(1234, 56, 2, CardRead("Td"))
    wire = codec.encode(message, 0)
    blob = wire * 1000
    bodies = [wire[:-1]] * 1000

    def ours() -> None:
        # The link's read path: deframe, CRC and decode in one pass (protocols.reader; plain frames here).
        MessageReader().read(blob, None)

    def alone() -> None:
        for encoded in bodies:
            body = cobs.decode(encoded)
            crc32c(body[:-4])

    times: dict[str, list[float]] = {"ours": [], "alone": []}
    for _ in range(rounds):
        for name, run in (("ours", ours), ("alone", alone)):
            start = time.thread_time()  # this thread's CPU: the cost, whatever else the machine runs
            run()
            times[name].append(1000 / (time.thread_time() - start))
    rate = {k: statistics.median(v) for k, v in times.items()}
    report.figure(f"frame decode, CARD_READ ({len(wire)} B)", rate["ours"], "frames/s",
                  vs=(rate["ours"] / rate["alone"], f"cobs.decode + crc32c alone ({rate['alone']:,.0f} frames/s)"),
                  note=f"goal >= 0.4x; median of {rounds} interleaved runs of 1,000, thread CPU time")  # fmt: skip


def encode_and_mac_rows(*, rounds: int) -> None:
    """Frame encode against the C primitives, and the MAC's cost per frame (seal and open vs plain)."""
    message = m.CardReadEvent(1234, 56, 2, CardRead("Td"))
    payload = codec.encode_payload(message)
    body = bytes((1, int(message.TYPE), 0, 0)) + payload
    session = auth.session_key(bytes(range(32)), bytes(16), bytes(16), 1)
    sealed_wire = auth.seal(session, auth.Direction.SHOE_TO_HOST, 1, message.TYPE, 0, payload=payload)
    (sealed_frame,) = Deframer().feed(sealed_wire)
    plain_wire = codec.encode(message, 0)
    (plain_frame,) = Deframer().feed(plain_wire)
    assert isinstance(sealed_frame, Frame) and isinstance(plain_frame, Frame)

    def encode() -> None:
        for _ in range(1000):
            codec.encode(message, 0)

    def alone() -> None:
        for _ in range(1000):
            cobs.encode(body + crc32c(body).to_bytes(4, "little"))

    def seal() -> None:
        sender = auth.Sender(session, auth.Direction.SHOE_TO_HOST)
        for _ in range(1000):
            codec.encode_sealed(message, 0, sender)  # as the link and the emulator seal

    receiver = auth.Receiver(session, auth.Direction.SHOE_TO_HOST)

    def open_sealed() -> None:
        for _ in range(1000):
            receiver.last = 0  # the one frame's counter is new again
            codec.decode(receiver.open(sealed_frame))

    def decode_plain() -> None:
        for _ in range(1000):
            codec.decode(plain_frame)

    runs = {"encode": encode, "alone": alone, "seal": seal, "open": open_sealed, "decode": decode_plain}
    times: dict[str, list[float]] = {k: [] for k in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            start = time.thread_time()
            run()
            times[name].append((time.thread_time() - start) / 1000)
    t = {k: statistics.median(v) for k, v in times.items()}
    report.figure(f"frame encode, CARD_READ ({len(plain_wire)} B)", 1 / t["encode"], "frames/s",
                  vs=(t["alone"] / t["encode"], f"crc32c + cobs.encode alone ({1 / t['alone']:,.0f} frames/s)"),
                  note=f"goal >= 0.3x; median of {rounds} interleaved runs of 1,000, thread CPU time")  # fmt: skip
    report.figure(f"MAC cost per frame, seal ({len(sealed_wire)} B sealed)", (t["seal"] - t["encode"]) * 1e6, "µs",
                  vs=(t["seal"] / t["encode"], f"plain encode ({t['encode'] * 1e6:.2f} µs)"),
                  note="keyed BLAKE2s-64 and the counter: a sealed frame's encode against a plain one")  # fmt: skip
    report.figure("MAC cost per frame, open", (t["open"] - t["decode"]) * 1e6, "µs",
                  vs=(t["open"] / t["decode"], f"plain decode of a checked frame ({t['decode'] * 1e6:.2f} µs)"),
                  note="MAC check and counter, before the message decode")  # fmt: skip
