#!/usr/bin/env python3
"""Whole-journal reads and start: the deal under report load, shoed's RSS, start to first 200.

Against the real ``shoed`` on the emulator's pty, on journals written beforehand through the journal's
own ``write`` (``tests.math.soak_journal.fill_journal``: Mississippi stud rounds played by the
service's round code, voids, the release fixture's stud and PA rounds, copied under fresh ids):

- **deal under report load**: on a journal of ``--entries`` entries, the ``POST /v1/round/deal``
  latency while 4 clients loop ``GET /v1/report``, against the same deals with no report client,
  in alternating blocks (``--runs`` of each, interleaved); goal <= 2x;
- **RSS**: shoed's resident memory sampled every 0.1 s throughout those blocks (max); goal <= 150 MiB;
- **start to first 200**: ``shoed`` spawned -> the first ``200`` on ``GET /v1/status`` (polled
  every 5 ms on a fixed port), on a 0-entry, a ``--entries``-entry and a 2x ``--entries``-entry journal,
  ``--runs`` times each, interleaved, against the same start on the 0-entry journal; goal <= 300 ms.

``python bench/report_load.py [--quick] [--entries N] [--runs N] [--deals N] [--port P]``;
printed through ``bench/_report.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import _report as report
from bench._proc import rss_kib
from bench._shoed import ROOT, EmulatorProcess, Http, ShoedProcess
from shoe.journal import Journal
from tests.math.soak_journal import fill_journal

SEATS = (1, 3, 5)
ANTE = 1000
REPORT_CLIENTS = 4
DEFAULT_PORT = 18_711
POLL_S = 0.005


def write_journal(path: Path, entries: int) -> None:
    with Journal.open(path) as journal:
        if entries:
            fill_journal(journal, entries, seed=11)


def deal_once(http: Http, load: Callable[[], None]) -> float:
    """One round; the deal POST's latency. The round is settled and a fresh deck loaded, untimed."""
    http.post("/v1/rounds", {"game": "mississippi-stud", "jurisdiction": "NY",
                             "seats": [{"seat": s, "ante": ANTE} for s in SEATS]})  # fmt: skip
    http.post("/v1/round/no-more-bets")
    sent = time.monotonic()
    http.post("/v1/round/deal")
    took = time.monotonic() - sent
    http.post("/v1/round/release-stub")
    for index in (1, 2, 3):
        for seat in SEATS:
            http.post("/v1/round/decisions", {"seat": seat, "multiple": 1})
        http.post("/v1/round/reveal", {"index": index})
    http.post("/v1/round/settle")
    load()
    return took


class ReportLoop:
    """``REPORT_CLIENTS`` threads, each looping ``GET /v1/report`` on its own keep-alive connection."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.stop = threading.Event()
        self.answers: dict[int, int] = {}
        self._lock = threading.Lock()
        self._threads = [threading.Thread(target=self._loop, daemon=True) for _ in range(REPORT_CLIENTS)]

    def _loop(self) -> None:
        http = Http(self.url)
        try:
            while not self.stop.is_set():
                status, _ = http.request_json("GET", "/v1/report")
                with self._lock:
                    self.answers[status] = self.answers.get(status, 0) + 1
                if status != 200:
                    time.sleep(0.05)
        finally:
            http.close()

    def __enter__(self) -> ReportLoop:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for thread in self._threads:
            thread.join(timeout=120)


class RssSampler:
    def __init__(self, pid: int) -> None:
        self.pid, self.most, self.stop = pid, 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.stop.wait(0.1):
            with contextlib.suppress(OSError):
                self.most = max(self.most, rss_kib(self.pid))

    def __enter__(self) -> RssSampler:
        self.most = rss_kib(self.pid)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self._thread.join()


def wait_report(http: Http, timeout_s: float = 300.0) -> float:
    """Until the report answers 200 (its summary rebuilt); how long that took."""
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        status, _ = http.request_json("GET", "/v1/report")
        if status == 200:
            return time.monotonic() - started
        time.sleep(0.1)
    raise RuntimeError("the report never answered 200")


def bench_deals(tmp: Path, journal: Path, *, runs: int, deals: int) -> None:
    with (
        EmulatorProcess(tmp / "shoe-deal", tmp / "emulator-deal.log") as emulator,
        ShoedProcess(str(emulator.link), journal, tmp / "shoed-deal.log") as shoed,
    ):
        http = Http(shoed.url)
        try:
            rebuilt_s = wait_report(http)
            deal_once(http, emulator.load)  # warm-up: the hand tables, the first report's tables
            with RssSampler(shoed.pid) as rss:
                quiet: list[float] = []
                loaded: list[float] = []
                answers: dict[int, int] = {}
                for _ in range(runs):
                    quiet.extend(deal_once(http, emulator.load) for _ in range(deals))
                    with ReportLoop(shoed.url) as loop:
                        time.sleep(0.2)
                        loaded.extend(deal_once(http, emulator.load) for _ in range(deals))
                    for status, count in loop.answers.items():
                        answers[status] = answers.get(status, 0) + count
            seq = int(http.get_json("/v1/status")["service"]["journal_seq"])
        finally:
            http.close()
    report.define("deal", f"POST /v1/round/deal of a {len(SEATS)}-seat NY round, sent -> answered, on a journal of "
                  f"{seq:,} entries; {runs} blocks of {deals} deals with no report client, interleaved with as many "
                  f"while {REPORT_CLIENTS} clients loop GET /v1/report")  # fmt: skip
    report.figure("summary rebuilt at start", rebuilt_s * 1000, "ms", note="start -> the first report's 200")
    report.say(f"deal, no report client: {report.distribution(quiet)}")
    report.say(f"deal, {REPORT_CLIENTS} clients looping the report: {report.distribution(loaded)}")
    report.ratio("deal under report load", statistics.median(loaded) / statistics.median(quiet),
                 "the median deal with no report client", note="goal <= 2x")  # fmt: skip
    served = ", ".join(f"{count:,} requests answered {status}" for status, count in sorted(answers.items()))
    report.say(f"report answers during the loaded blocks: {served}")
    report.figure("shoed RSS, max throughout", rss.most / 1024, "MiB", vs=(rss.most / 1024 / 150, "the 150 MiB goal"))


def first_200(port: int, emulator: EmulatorProcess, journal: Path, log: Path) -> float:
    """Spawn shoed; seconds until ``GET /v1/status`` answers 200; then stop it."""
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "shoe.shoed", "--port", str(emulator.link), "--journal", str(journal),
         "--http", f"127.0.0.1:{port}", "--log-level", "warning"],
        cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log.open("a"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"shoed exited with {proc.returncode} before answering (log: {log})")
            if time.monotonic() - started > 60:
                raise RuntimeError(f"shoed did not answer in 60 s (log: {log})")
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            try:
                conn.request("GET", "/v1/status")
                if conn.getresponse().status == 200:
                    return time.monotonic() - started
            except OSError:
                pass
            finally:
                conn.close()
            time.sleep(POLL_S)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def bench_start(tmp: Path, journals: Sequence[tuple[str, Path]], *, runs: int, port: int) -> None:
    took: dict[str, list[float]] = {name: [] for name, _ in journals}
    with EmulatorProcess(tmp / "shoe-start", tmp / "emulator-start.log") as emulator:
        for _ in range(runs):
            for name, journal in journals:  # interleaved: each run starts on every journal in turn
                took[name].append(first_200(port, emulator, journal, tmp / "shoed-start.log"))
    report.define("start", f"shoed spawned -> the first 200 on GET /v1/status (polled every {POLL_S * 1000:.0f} ms), "
                  f"{runs} starts on each journal, interleaved")  # fmt: skip
    reference = statistics.median(took[journals[0][0]])
    for name, _ in journals:
        median = statistics.median(took[name])
        report.figure(f"start, {name}", median * 1000, "ms", vs=(median / reference, f"the start on {journals[0][0]}"),
                      note=f"runs {', '.join(f'{t * 1000:.0f}' for t in took[name])} ms; goal <= 300 ms")  # fmt: skip


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a small journal, one run (the test's mode)")
    parser.add_argument("--entries", type=int, help="entries of the deal's journal (default 50,000; --quick 2,000)")
    parser.add_argument("--runs", type=int, help="interleaved runs (default 3; --quick 1)")
    parser.add_argument("--deals", type=int, help="deals per block (default 10; --quick 2)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"shoed's HTTP port for the start figure "
                        f"(default {DEFAULT_PORT})")  # fmt: skip
    args = parser.parse_args(argv)
    entries = args.entries or (2_000 if args.quick else 50_000)
    runs = args.runs or (1 if args.quick else 3)
    deals = args.deals or (2 if args.quick else 10)
    with tempfile.TemporaryDirectory(prefix="bench-report-") as folder:
        tmp = Path(folder)
        made = time.monotonic()
        journals = [("0 entries", tmp / "empty.sqlite"), (f"{entries:,} entries", tmp / "one.sqlite"),
                    (f"{2 * entries:,} entries", tmp / "two.sqlite")]  # fmt: skip
        for (_, path), size in zip(journals, (0, entries, 2 * entries), strict=True):
            write_journal(path, size)
        report.figure("journals written", time.monotonic() - made, "s", note=f"0, {entries:,} and {2 * entries:,} "
                      "entries through Journal.write")  # fmt: skip
        bench_start(tmp, journals, runs=runs, port=args.port)
        bench_deals(tmp, journals[1][1], runs=runs, deals=deals)


if __name__ == "__main__":
    main()
