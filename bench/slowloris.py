#!/usr/bin/env python3
"""Slow-loris benchmark (issue 11 point 7): a dealer action's latency with 300 slow connections open.

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
import os
import select
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import _report as report
from bench._shoed import ShoedProcess

DEALER = "bench-dealer-token-0123456789"
OBSERVER = "bench-observer-token-0123456789"
ROUND = {"game": "mississippi-stud", "jurisdiction": "NY", "seats": [{"seat": 1, "ante": 1000}]}
POLL_S = 0.2  # how often the attacker looks for connections the server answered or closed
PACE_S = 0.15  # between two dealer cycles: a flood block then spans the waiting room's cuts (2 s)
BLOCKS = 3  # flood blocks, each between two calm ones
CYCLE = (("/v1/rounds", ROUND), ("/v1/round/no-more-bets", {}), ("/v1/round/void", {"cause": "other"}))


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
                answered, _, _ = select.select(socks, [], [], 0)  # a 503, a 408 or a close: open it again
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
    args, _ = parser.parse_known_args(argv)  # bench/run passes every bench the same flags
    cycles = args.cycles or (8 if args.quick else 30)
    with tempfile.TemporaryDirectory(prefix="bench-slowloris-") as folder:
        tmp = Path(folder)
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
                with SlowLoris(port, args.slow) if phase == "flood" else contextlib.nullcontext() as attack:
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
    report.define("flood", f"{args.slow} slow-loris connections open (each sends one header line every 2 s, never "
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
