"""Rows 4-5 and 8-9, 11 of issue 16's table (``bench/goals.py``): the real ``shoed`` on the instant
emulator's pty, over HTTP, one connection per request, no event stream.

- rounds/s against the bound this disk sets: WAL ``synchronous=FULL`` commits per second (an SQLite
  file beside the journal, one row of a journal's size per commit, timed in blocks between the blocks
  of rounds) divided by the journal records a round writes;
- shoed's CPU per round (``/proc`` utime + stime of every thread);
- idle: shoed's wake-ups per second with no client, against a sleeping process (``sleep``) over the
  same seconds; RSS after the timed rounds;
- start: ``shoed`` spawned -> its first 200 on ``GET /v1/status``, with a fresh journal and with the
  journal the timed rounds left (interleaved), to show whether start grows with the journal.
"""

from __future__ import annotations

import sqlite3
import statistics
import subprocess
import time
from pathlib import Path

from bench import _report as report
from bench._proc import cpu_seconds, rss_kib, task_wakeups, wakeups, wakeups_between
from bench._shoed import EmulatorProcess, Http, ShoedProcess
from bench.service import journal_seq, play

SEATS = [1, 2, 3, 4]
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


def _start_ms(link: Path, journal: Path, log: Path) -> float:
    t0 = time.perf_counter()
    with ShoedProcess(str(link), journal, log) as shoed:
        http = Http(shoed.url)
        try:
            http.get("/v1/status")
            return (time.perf_counter() - t0) * 1000
        finally:
            http.close()


def service_rows(tmp: Path, *, blocks: int, rounds: int, idle_s: float) -> None:
    journal = tmp / "goals-journal.sqlite"
    rates, commits, records, cpus = [], [], [], []
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
            http = Http(shoed.url, fresh=True)
            play(http, emulator.load, 1, SEATS)  # warm-up
            for _ in range(blocks):
                seq0, cpu0 = journal_seq(http), cpu_seconds(shoed.pid)
                played = play(http, emulator.load, rounds, SEATS)
                cpus.append((cpu_seconds(shoed.pid) - cpu0) / rounds)
                records.append((journal_seq(http) - seq0) / rounds)
                rates.append(rounds / sum(played.seconds))
                commits.append(wal_commits_per_s(tmp, int(max(20, records[-1] * 2))))
            rss = rss_kib(shoed.pid) / 1024
            entries = journal_seq(http)
        starts: dict[str, list[float]] = {"fresh": [], "used": []}
        for i in range(3):
            starts["fresh"].append(_start_ms(emulator.link, tmp / f"goals-fresh-{i}.sqlite", tmp / "goals-start.log"))
            starts["used"].append(_start_ms(emulator.link, journal, tmp / "goals-start.log"))
    rate, commit, per_round = statistics.median(rates), statistics.median(commits), statistics.median(records)
    bound = commit / per_round
    note = f"median of {blocks} interleaved blocks of {rounds} rounds, 4 seats NY, one connection per request"
    report.figure("shoed rounds/s", rate, "rounds/s", vs=(rate / bound, f"the disk's bound, {commit:,.0f} WAL "
                  f"FULL commits/s / {per_round:.0f} records a round = {bound:.1f} rounds/s"),
                  note=f"goal >= 0.80x; {note}")  # fmt: skip
    report.figure("shoed CPU per round", statistics.median(cpus) * 1000, "ms/round", note=f"goal <= 8 ms; {note}")
    report.figure("shoed idle", idle, "wake-ups/s", note=f"goal <= 5; no client for {idle_s:.0f} s; a sleeping "
                  f"process over the same time: {wake_sleeper:.1f} wake-ups/s")  # fmt: skip
    report.figure("shoed RSS after the timed rounds", rss, "MiB", note=f"goal <= 57 MiB (60 MB); {entries} entries")
    fresh, used = statistics.median(starts["fresh"]), statistics.median(starts["used"])
    report.figure("shoed start to first 200, fresh journal", fresh, "ms", note="goal <= 300 ms; median of 3")
    report.figure(f"shoed start to first 200, {entries}-entry journal", used, "ms",
                  vs=(used / fresh, "the start with a fresh journal"), note="goal: the same")  # fmt: skip
