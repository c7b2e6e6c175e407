"""The service's rows of the performance goals' table (``bench/goals.py``, docs/performance.md): the real
``shoed`` on the instant emulator's pty, over HTTP, one connection per request, no event stream.

- rounds/s against the bound this disk sets: WAL ``synchronous=FULL`` commits per second (an SQLite
  file beside the journal, one row of a journal's size per commit, timed in blocks between the blocks
  of rounds) divided by the journal records a round writes;
- shoed's CPU per round (``/proc`` utime + stime of every thread): four seats with a connection per request,
  and two seats over one kept-alive connection (the goal's own round), in the same blocks;
- idle: shoed's wake-ups per second with no client, against a sleeping process (``sleep``) over the
  same seconds; RSS after the timed rounds;
- start: ``shoed`` spawned -> its first 200 on ``GET /v1/status`` (it answers ``service.state``
  starting before it reads the journal), and -> ``ready``, with a fresh journal, the journal the timed
  rounds left and a 50,000-entry journal (``bench/report_load.py``'s), interleaved, to show whether
  start grows with the journal.
"""

from __future__ import annotations

import http.client
import json
import socket
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench import _report as report
from bench._proc import cpu_seconds, rss_kib, task_wakeups, wakeups, wakeups_between
from bench._shoed import EmulatorProcess, Http, ShoedProcess
from bench.report_load import write_journal
from bench.service import journal_seq, play

ROOT = Path(__file__).resolve().parents[1]

SEATS = [1, 2, 3, 4]
TWO_SEATS = [1, 2]
"""The CPU goal's own round (docs/performance.md): a two-seat New York round, over one kept-alive connection as a
dealer's client keeps it (bench/shift, the display), measured in the same blocks as the four-seat rounds."""
ROW = "x" * 300  # about one journal record's data


def wal_commits_per_s(folder: Path, n: int) -> float:
    path = folder / "wal-probe.sqlite"
    conn = sqlite3.connect(str(path), isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("CREATE TABLE IF NOT EXISTS t (seq INTEGER PRIMARY KEY, data TEXT NOT NULL)")
        start = time.perf_counter()
        for _ in range(n):
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("INSERT INTO t (data) VALUES (?)", (ROW,))
            conn.execute("COMMIT")
        return n / (time.perf_counter() - start)
    finally:
        conn.close()


def _wake_rate(pid: int, seconds: float) -> float:
    w0, t0 = task_wakeups(pid), time.monotonic()
    time.sleep(seconds)
    return wakeups_between(w0, task_wakeups(pid)) / (time.monotonic() - t0)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start_ms(link: Path, journal: Path, log: Path) -> tuple[float, float]:
    """Spawn shoed; ms until ``GET /v1/status`` first answers 200 (``service.state`` starting or ready), and
    until it says ``ready`` (every route answers); polled every 5 ms on a new connection, then stopped."""
    port = _free_port()
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "shoe.shoed", "--port", str(link), "--journal", str(journal),
         "--http", f"127.0.0.1:{port}", "--log-level", "warning"],
        cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log.open("a"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    first: float | None = None
    try:
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"shoed exited with {proc.returncode} before it was ready (log: {log})")
            if time.perf_counter() - started > 60:
                raise RuntimeError(f"shoed was not ready in 60 s (log: {log})")
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            try:
                conn.request("GET", "/v1/status")
                reply = conn.getresponse()
                body = reply.read()
                if reply.status == 200:
                    now = (time.perf_counter() - started) * 1000
                    first = now if first is None else first
                    if json.loads(body)["service"].get("state", "ready") == "ready":
                        return first, now
            except OSError:
                pass
            finally:
                conn.close()
            time.sleep(0.005)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def service_rows(tmp: Path, *, blocks: int, rounds: int, idle_s: float, big_entries: int = 50_000) -> None:
    journal = tmp / "goals-journal.sqlite"
    rates, commits, records, cpus, two_seat_cpus = [], [], [], [], []
    with EmulatorProcess(tmp / "goals-shoe-svc", tmp / "goals-emulator-svc.log") as emulator:
        with ShoedProcess(str(emulator.link), journal, tmp / "goals-shoed.log") as shoed:
            sleeper = subprocess.Popen(["sleep", str(int(idle_s) + 30)])
            try:
                time.sleep(1.0)  # the start's last work passes
                wake_sleeper = wakeups(sleeper.pid)
                idle = _wake_rate(shoed.pid, idle_s)
                wake_sleeper = (wakeups(sleeper.pid) - wake_sleeper) / idle_s
            finally:
                sleeper.kill()
                sleeper.wait()
            http, kept = Http(shoed.url, fresh=True), Http(shoed.url)
            play(http, emulator.load, 1, SEATS)  # warm-up
            play(kept, emulator.load, 1, TWO_SEATS)
            for _ in range(blocks):
                cpu0 = cpu_seconds(shoed.pid)
                play(kept, emulator.load, rounds, TWO_SEATS)
                two_seat_cpus.append((cpu_seconds(shoed.pid) - cpu0) / rounds)
                seq0, cpu0 = journal_seq(http), cpu_seconds(shoed.pid)
                played = play(http, emulator.load, rounds, SEATS)
                cpus.append((cpu_seconds(shoed.pid) - cpu0) / rounds)
                records.append((journal_seq(http) - seq0) / rounds)
                rates.append(rounds / sum(played.seconds))
                commits.append(wal_commits_per_s(tmp, int(max(20, records[-1] * 2))))
            rss = rss_kib(shoed.pid) / 1024
            entries = journal_seq(http)
        big = tmp / "goals-big-journal.sqlite"
        write_journal(big, big_entries)
        journals = {"fresh": None, "used": journal, "big": big}
        starts: dict[str, list[tuple[float, float]]] = {name: [] for name in journals}
        for i in range(3):  # interleaved: each run starts on every journal in turn
            for name, path in journals.items():
                start_on = path or tmp / f"goals-fresh-{i}.sqlite"
                starts[name].append(_start_ms(emulator.link, start_on, tmp / "goals-start.log"))
    rate, commit, per_round = statistics.median(rates), statistics.median(commits), statistics.median(records)
    bound = commit / per_round
    note = f"median of {blocks} interleaved blocks of {rounds} rounds, 4 seats NY, one connection per request"
    report.figure("shoed rounds/s", rate, "rounds/s", vs=(rate / bound, f"the disk's bound, {commit:,.0f} WAL "
                  f"FULL commits/s / {per_round:.0f} records a round = {bound:.1f} rounds/s"),
                  note=f"goal >= 0.80x; {note}")  # fmt: skip
    report.figure("shoed CPU per round", statistics.median(cpus) * 1000, "ms/round", note=f"goal <= 8 ms; {note}")
    two = f"median of {blocks} blocks of {rounds} rounds, 2 seats NY, one kept-alive connection, between the above"
    report.figure("shoed CPU per two-seat round", statistics.median(two_seat_cpus) * 1000, "ms/round",
                  note=f"goal <= 8 ms (the goal's own round); {two}")  # fmt: skip
    report.figure("shoed idle", idle, "wake-ups/s", note=f"goal <= 5; no client for {idle_s:.0f} s; a sleeping "
                  f"process over the same time: {wake_sleeper:.1f} wake-ups/s")  # fmt: skip
    report.figure("shoed RSS after the timed rounds", rss, "MiB", note=f"goal <= 57 MiB (60 MB); {entries} entries")
    sizes = {"fresh": "fresh journal", "used": f"{entries}-entry journal", "big": f"{big_entries:,}-entry journal"}
    for which, label in ((0, "first 200"), (1, "ready")):
        fresh = statistics.median(t[which] for t in starts["fresh"])
        for name, size in sizes.items():
            took = [t[which] for t in starts[name]]
            median = statistics.median(took)
            runs = ", ".join(f"{t:.0f}" for t in took)
            goal = "goal <= 300 ms" if which == 0 else "no goal: every route answers from here"
            vs = None if name == "fresh" else (median / fresh, "the start with a fresh journal")
            report.figure(f"shoed start to {label}, {size}", median, "ms", vs=vs,
                          note=f"{goal}; median of 3 interleaved ({runs} ms)")  # fmt: skip
