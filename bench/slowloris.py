#!/usr/bin/env python3
"""Slow-loris benchmarks: a dealer action's latency with 300 slow connections open, and a real dealer's
round time with 1,000 slow connections that reopen at once.

**Round time** (``--flood``, 1,000 by default; ``--only rounds`` runs it alone): ``shoed`` with tokens on
its emulated shoe (a pty, ``bench/_shoed.py emulate``), and a dealer with a dealer token dealing full
New York rounds over HTTP (open, no more bets, deal, release the stub, three streets of decisions and
reveals, settle; a fresh deck loaded between rounds, untimed), as the display does: a ``503`` is
retried after its ``Retry-After``. Calm and flood blocks alternate (calm, flood, calm, flood, calm,
flood, calm); a flood is ``--flood`` connections, each a request line then one header line every
``--every`` s (15), each one the server answers or closes opened again at once (one thread,
non-blocking sockets, loopback only, in a process of its own: the attacker's CPU is not the dealer
client's). Printed: the round time's median without and with the flood, their ratio (the goal:
under 3), the dealer's 503s, the refusals. Bounded: the flood stops with its block, and after
``FLOOD_MAX_S`` whatever happens.

**POST latency** (``--slow``, 300):
The real ``shoed`` (``emu://`` shoe, tokens configured, its real HTTP limits) is started once.  A
dealer cycle is three POSTs (open a round, no more bets, void it: nothing is dealt, so the
``emu://`` shoe lasts) with a dealer token; each POST is timed from send to answer read.  In the same
run and process, calm and flood blocks alternate (calm, flood, calm, flood, calm, flood, calm), so
the host's drift falls on both alike.  A flood is ``--slow`` (300) slow-loris connections: each sends
a request line, then one header line every 2 s, and never ends it; one the server closes is opened
again, as an attacker would.  Printed: median and p95 per POST without and with the flood, over one
connection per request (a page's fetch after the flood began) and over one keep-alive connection
opened before it (the dealer display); the ratio of the medians; ``shoed``'s threads (``/proc``);
the refusals from ``/metrics``.  A figure, not a pass/fail test.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import multiprocessing
import os
import random
import select
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import _report as report
from bench._shoed import EmulatorProcess, ShoedProcess

DEALER = "bench-dealer-token-0123456789"
OBSERVER = "bench-observer-token-0123456789"
ROUND = {"game": "mississippi-stud", "jurisdiction": "NY", "seats": [{"seat": 1, "ante": 1000}]}
POLL_S = 0.2  # how often the attacker looks for connections the server answered or closed
PACE_S = 0.15  # between two dealer cycles: a flood block then spans the waiting room's cuts (2 s)
BLOCKS = 3  # flood blocks, each between two calm ones
FLOOD_MAX_S = 600.0  # a flood stops by itself after this, whatever the bench is doing
SEATS = (1, 2, 3)
RETRY_S = 2.0  # a reset before any answer is retried after this (a 503 says its own Retry-After)
CYCLE = (("/v1/rounds", ROUND), ("/v1/round/no-more-bets", {}), ("/v1/round/void", {"cause": "other"}))



def _ready(reading: Iterable[socket.socket], writing: Iterable[socket.socket], timeout_s: float) -> tuple[
    list[socket.socket], list[socket.socket]
]:
    """The sockets ready to read (an answer, a close, an error) and to write (connected, or failed).

    poll, not select: select() refuses any descriptor past 1,023, and a flood of 1,000 sockets in a process
    that already holds a few dozen (a test worker) goes past it."""
    poller = select.poll()
    by_fd: dict[int, tuple[socket.socket, bool]] = {}
    for sock in reading:
        by_fd[sock.fileno()] = (sock, True)
        poller.register(sock, select.POLLIN)
    for sock in writing:
        by_fd[sock.fileno()] = (sock, False)
        poller.register(sock, select.POLLOUT)
    readable: list[socket.socket] = []
    writable: list[socket.socket] = []
    for fd, _mask in poller.poll(timeout_s * 1000):
        sock, is_reading = by_fd[fd]
        (readable if is_reading else writable).append(sock)
    return readable, writable

class Dealer:
    """The dealer's POSTs, each over a fresh connection or one keep-alive connection."""

    def __init__(self, port: int, *, fresh: bool) -> None:
        self.port, self.fresh = port, fresh
        self.conn: http.client.HTTPConnection | None = None

    def post(self, path: str, body: object) -> float:
        headers = {"Authorization": f"Bearer {DEALER}", "Content-Type": "application/json"}
        if self.fresh:
            headers["Connection"] = "close"
        start = time.perf_counter()
        for attempt in (1, 2):  # a browser retries once on a kept-alive connection the server closed (IDLE_S)
            reused = self.conn is not None
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            try:
                self.conn.request("POST", path, body=json.dumps(body).encode(), headers=headers)
                reply = self.conn.getresponse()
                data = reply.read()
                break
            except (ConnectionError, http.client.RemoteDisconnected):
                self.close()
                if not reused or attempt == 2:
                    raise
        took = time.perf_counter() - start
        if self.fresh or reply.getheader("Connection") == "close":
            self.close()
        if reply.status >= 300:
            raise RuntimeError(f"POST {path}: {reply.status} {data[:200]!r}")
        return took

    def cycles(self, n: int) -> list[float]:
        out = []
        for _ in range(n):
            out += [self.post(path, body) for path, body in CYCLE]
            time.sleep(PACE_S)
        return out

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


class SlowLoris:
    """``count`` connections each sending one header line every ``every_s``; reopened when closed."""

    def __init__(self, port: int, count: int, every_s: float = 2.0) -> None:
        self.port, self.count, self.every_s = port, count, every_s
        self.stop, self.opened = threading.Event(), threading.Event()
        self.reopened = 0
        self.thread = threading.Thread(target=self._run, name="slow-loris", daemon=True)

    def _open(self, _: object = None) -> socket.socket | None:
        try:
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=5.0)
            sock.sendall(f"GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n".encode())
        except OSError:
            return None
        return sock

    def _run(self) -> None:
        with ThreadPoolExecutor(32) as pool:
            socks = [s for s in pool.map(self._open, range(self.count)) if s]
            self.opened.set()
            line, next_line = 0, time.monotonic() + self.every_s
            while not self.stop.wait(POLL_S):
                answered, _ = _ready(socks, (), 0)  # a 503, a 408 or a close: open it again
                kept = [sock for sock in socks if sock not in answered]
                for sock in answered:
                    sock.close()
                if time.monotonic() >= next_line:
                    line, next_line = line + 1, next_line + self.every_s
                    for sock in list(kept):
                        try:
                            sock.sendall(f"X-Slow-{line}: 1\r\n".encode())
                        except OSError:
                            kept.remove(sock)
                            sock.close()
                again = [s for s in pool.map(self._open, range(self.count - len(kept))) if s]
                self.reopened += len(again)
                socks = kept + again
        for sock in socks:
            sock.close()

    def __enter__(self) -> SlowLoris:
        self.thread.start()
        self.opened.wait(60)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=60)


class ReopeningFlood:
    """``count`` connections each sending a request line, then a header line every ``every_s``; each one the
    server answers or closes is opened again at once (one thread, non-blocking sockets, 127.0.0.1 only)."""

    def __init__(self, port: int, count: int, every_s: float = 15.0) -> None:
        self.port, self.count, self.every_s = port, count, every_s
        self.stop = threading.Event()
        self.reopened = 0
        self.thread = threading.Thread(target=self._run, name="reopening-flood", daemon=True)

    def _open(self) -> socket.socket:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            sock.connect(("127.0.0.1", self.port))
        return sock

    def _run(self) -> None:
        pending = {self._open() for _ in range(self.count)}  # connecting: the request line goes once writable
        live: dict[socket.socket, float] = {}  # sent: when the next header line is due
        deadline, line = time.monotonic() + FLOOD_MAX_S, 0
        head = f"GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n".encode()
        try:
            while not self.stop.is_set() and time.monotonic() < deadline:
                readable, writable = _ready(live, pending, 0.05)
                now = time.monotonic()
                for sock in writable:
                    pending.discard(sock)
                    try:
                        sock.send(head)
                        live[sock] = now + self.every_s
                    except OSError:
                        sock.close()
                        pending.add(self._open())
                        self.reopened += 1
                for sock in readable:  # a 503, a 408 or a close: another at once
                    live.pop(sock, None)
                    sock.close()
                    pending.add(self._open())
                    self.reopened += 1
                for sock, due in list(live.items()):
                    if due <= now:
                        line += 1
                        try:
                            sock.send(f"X-Slow-{line}: 1\r\n".encode())
                            live[sock] = now + self.every_s
                        except OSError:
                            del live[sock]
                            sock.close()
        finally:
            for sock in [*pending, *live]:
                sock.close()

    def __enter__(self) -> ReopeningFlood:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=60)


def _flood_child(port: int, count: int, every_s: float, stop: Any, reopened: Any) -> None:
    with ReopeningFlood(port, count, every_s) as flood:
        stop.wait(FLOOD_MAX_S)
    reopened.value = flood.reopened


class FloodProcess:
    """:class:`ReopeningFlood` in a process of its own: the attacker is not the dealer's client, and its
    CPU (and GIL) is not the dealer's. Stops with the block, or after ``FLOOD_MAX_S``; killed if it hangs."""

    def __init__(self, port: int, count: int, every_s: float) -> None:
        context = multiprocessing.get_context("spawn")
        self._stop = context.Event()
        self._reopened = context.Value("l", 0)
        self._proc = context.Process(
            target=_flood_child, args=(port, count, every_s, self._stop, self._reopened), daemon=True
        )

    @property
    def reopened(self) -> int:
        return int(self._reopened.value)

    def __enter__(self) -> FloodProcess:
        self._proc.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._proc.join(timeout=30)
        if self._proc.is_alive():
            self._proc.kill()
            self._proc.join()


class RetryingDealer:
    """The dealer display's calls with a dealer token, one connection each (a reserved slot serves one
    request): a ``503`` is retried after its ``Retry-After``, as the display does."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.refused = 0

    def call(self, method: str, path: str, body: object = None) -> dict[str, object]:
        headers = {"Authorization": f"Bearer {DEALER}", "Connection": "close"}
        payload = None
        if method == "POST":
            payload = json.dumps(body or {}).encode()
            headers["Content-Type"] = "application/json"
        while True:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            try:
                conn.request(method, path, body=payload, headers=headers)
                reply = conn.getresponse()
                data = reply.read()
            except (ConnectionError, http.client.RemoteDisconnected):
                self.refused += 1  # reset before an answer: retried like a 503
                time.sleep(RETRY_S)
                continue
            finally:
                conn.close()
            if reply.status == 503:
                self.refused += 1
                time.sleep(float(reply.getheader("Retry-After") or RETRY_S))
                continue
            if reply.status >= 300:
                raise RuntimeError(f"{method} {path}: {reply.status} {data[:200]!r}")
            return dict(json.loads(data))

    def post(self, path: str, body: object = None) -> dict[str, object]:
        return self.call("POST", path, body)

    def round(self) -> float:
        """One full New York round, open to settle; its time in seconds."""
        start = time.perf_counter()
        self.post("/v1/rounds", {"game": "mississippi-stud", "jurisdiction": "NY",
                                 "seats": [{"seat": s, "ante": 1000} for s in SEATS]})  # fmt: skip
        self.post("/v1/round/no-more-bets")
        self.post("/v1/round/deal")
        self.post("/v1/round/release-stub")
        for index in (1, 2, 3):
            for seat in SEATS:
                self.post("/v1/round/decisions", {"seat": seat, "multiple": 1})
            self.post("/v1/round/reveal", {"index": index})
        settled = self.post("/v1/round/settle")
        if settled.get("state") != "complete":
            raise RuntimeError(f"the round did not settle: {settled.get('state')}")
        return time.perf_counter() - start


def round_times(tmp: Path, *, flood: int, every_s: float, rounds: int) -> None:
    """The round-time figure (module docstring): calm and flood blocks alternating in one run."""
    config = tmp / "rounds.toml"
    config.write_text(f'[tokens]\ndealer = "{DEALER}"\nobserver = "{OBSERVER}"\n')
    with (
        EmulatorProcess(tmp / "shoe0", tmp / "emulator.log", random.randrange(1 << 30)) as emulator,
        ShoedProcess(str(emulator.link), tmp / "rounds.sqlite", tmp / "rounds.log", config) as shoed,
    ):
        port = int(shoed.url.rsplit(":", 1)[1].rstrip("/"))
        dealer = RetryingDealer(port)
        load: Callable[[], None] = emulator.load

        def deal(n: int) -> list[float]:
            out = []
            for _ in range(n):
                out.append(dealer.round())
                load()  # untimed: the dealer loads a fresh deck
            return out

        deal(1)  # warm-up
        times: dict[str, list[float]] = {"calm": [], "flood": []}
        refusals = {"calm": 0, "flood": 0}
        reopened = 0
        for block in range(2 * BLOCKS + 1):
            phase = "flood" if block % 2 else "calm"
            with FloodProcess(port, flood, every_s) if phase == "flood" else contextlib.nullcontext() as attack:
                if attack is not None:
                    time.sleep(3.0)  # the flood open, past the waiting room's first cut (2 s), reopening
                before = dealer.refused
                times[phase] += deal(rounds)
                refusals[phase] += dealer.refused - before
            if attack is not None:
                reopened += attack.reopened  # known once the flood's process has ended
            if phase == "flood":
                time.sleep(2.0)  # the flood's sockets gone before the calm block
        counts = refused(port)
    report.define("round", f"a full NY round for {len(SEATS)} seats over HTTP with a dealer token, open .. settle "
                  "answered, a 503 retried after its Retry-After (the display)")  # fmt: skip
    report.define("reopening flood", f"{flood} slow connections (a header line every {every_s:g} s), each one "
                  "answered or closed opened again at once")  # fmt: skip
    calm, flooded = statistics.median(times["calm"]), statistics.median(times["flood"])
    report.say(f"round, calm: median {calm:.3f} s (n={len(times['calm'])}, max {max(times['calm']):.3f} s, "
               f"503s {refusals['calm']})")  # fmt: skip
    report.say(f"round, reopening flood: median {flooded:.3f} s (n={len(times['flood'])}, max "
               f"{max(times['flood']):.3f} s, 503s {refusals['flood']})")  # fmt: skip
    report.ratio("round, flood/calm", flooded / calm, "the calm median (medians, interleaved blocks; goal under 3)")
    report.figure("connections refused (round-time run)", sum(counts.values()), "connections",
                  note=f"{reopened} reopened; " + ", ".join(f"{r} {n}" for r, n in counts.items()))  # fmt: skip
    report.say(f"context: {os.cpu_count()} CPUs, load average (1 min) {os.getloadavg()[0]:.2f}")


def threads(pid: int) -> int:
    line = next(x for x in Path(f"/proc/{pid}/status").read_text().splitlines() if x.startswith("Threads:"))
    return int(line.split()[1])


def refused(port: int) -> dict[str, int]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/metrics", headers={"Authorization": f"Bearer {OBSERVER}"})
    text = conn.getresponse().read().decode()
    conn.close()
    out = {}
    for line in text.splitlines():
        if line.startswith("shoe_api_refused_total{"):
            out[line.split('"')[1]] = int(float(line.split()[-1]))
    return out


def pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def figure(values: Sequence[float]) -> str:
    return f"median {statistics.median(values) * 1000:.2f} ms, p95 {pct(values, 0.95) * 1000:.2f} ms (n={len(values)})"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer cycles (well under a minute)")
    parser.add_argument("--slow", type=int, default=300, help="slow-loris connections (default 300)")
    parser.add_argument("--cycles", type=int, help="dealer cycles per phase and client (default 30; --quick 8)")
    parser.add_argument("--flood", type=int, default=1000, help="reopening slow connections (default 1000)")
    parser.add_argument("--every", type=float, default=15.0, help="their header line every so many s (default 15)")
    parser.add_argument("--rounds", type=int, help="dealer rounds per block of the round-time run (default 4; quick 2)")
    parser.add_argument("--only", choices=("posts", "rounds"), help="one of the two figures")
    args, _ = parser.parse_known_args(argv)  # bench/run passes every bench the same flags
    cycles = args.cycles or (8 if args.quick else 30)
    with tempfile.TemporaryDirectory(prefix="bench-slowloris-") as folder:
        tmp = Path(folder)
        if args.only != "posts":
            round_times(tmp, flood=args.flood, every_s=args.every, rounds=args.rounds or (2 if args.quick else 4))
        if args.only == "rounds":
            return
        post_latency(tmp, args.slow, cycles)


def post_latency(tmp: Path, slow: int, cycles: int) -> None:
    """The POST-latency figure (module docstring)."""
    config = tmp / "shoed.toml"
    config.write_text(f'[tokens]\ndealer = "{DEALER}"\nobserver = "{OBSERVER}"\n')
    with ShoedProcess("emu://?seed=7", tmp / "journal.sqlite", tmp / "shoed.log", config) as shoed:
        port = int(shoed.url.rsplit(":", 1)[1].rstrip("/"))
        keep = Dealer(port, fresh=False)
        fresh = Dealer(port, fresh=True)
        keep.cycles(2)  # warm-up; the keep-alive connection stays open into the flood
        idle_threads = threads(shoed.pid)
        results: dict[str, dict[str, list[float]]] = {"fresh": {}, "keep-alive": {}}
        flood_threads, reopened = 0, 0
        for block in range(2 * BLOCKS + 1):  # calm, flood, calm, ... calm: drift on the host hits both alike
            phase = "flood" if block % 2 else "calm"
            with SlowLoris(port, slow) if phase == "flood" else contextlib.nullcontext() as attack:
                if attack is not None:
                    time.sleep(2.0)  # the ordinary slots taken, the waiting room filling and cutting
                    flood_threads = max(flood_threads, threads(shoed.pid))
                for how, dealer in (("fresh", fresh), ("keep-alive", keep)):
                    results[how].setdefault(phase, []).extend(dealer.cycles(max(1, cycles // BLOCKS)))
                if attack is not None:
                    flood_threads = max(flood_threads, threads(shoed.pid))
                    reopened += attack.reopened
            if phase == "flood":
                time.sleep(1.0)
        keep.close()
        counts = refused(port)
    report.define("flood", f"{slow} slow-loris connections open (each sends one header line every 2 s, never "
                  "ends its request, and is opened again when the server closes it)")  # fmt: skip
    report.define("dealer POST", "open a round, no more bets or void, with a dealer token: send -> answer read")
    for how, phases in results.items():
        calm = phases["calm"]
        report.say(f"dealer POST ({how}), calm: {figure(calm)}")
        report.say(f"dealer POST ({how}), flood: {figure(phases['flood'])}")
        ratio = statistics.median(phases["flood"]) / statistics.median(calm)
        report.ratio(f"dealer POST ({how}), flood/calm", ratio, "the calm median (medians compared)")
    report.figure("shoed threads, idle", idle_threads, "threads")
    report.figure("shoed threads, flood", flood_threads, "threads", note=f"{reopened} connections reopened")
    report.figure("connections refused", sum(counts.values()), "connections",
                  note=", ".join(f"{reason} {n}" for reason, n in counts.items()) or "none")  # fmt: skip
    report.say(f"context: {os.cpu_count()} CPUs, load average (1 min) {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
