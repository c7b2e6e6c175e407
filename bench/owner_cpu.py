#!/usr/bin/env python3
"""Where shoed's CPU goes in a two-seat round: by thread, by what the owner thread was doing, and by part.

The real ``shoed`` on the instant emulator's pty (``bench/_shoed.py``), driven over one kept-alive connection
as the dealer's client keeps it (the round of the CPU goal, docs/performance.md), after warm-up rounds:

- **threads**: each thread's CPU (``/proc/PID/task/TID/stat``, user and system apart), named as the thread
  named itself when it started;
- **owner, by item**: the owner thread's CPU (``time.thread_time``) in each action and each kind of shoe
  item, per item and per round;
- **owner, by part** (inclusive: a part inside another counts in both): the journal's commits
  (``Journal.write``), what follows each committed entry (``JournalSink._published``: the event feed, the
  deck's fold, the metrics), the views and checkpoint after an item (``Owner.after``), the payload check of
  each entry (``parse_entry``), and the shoe's work (``RoundDesk.dispense``, ``scan``, ``release_stub``,
  the link's requests and their checks).

``shoed`` runs as this file's ``probe`` mode: it wraps those functions with a ``thread_time`` counter, then
runs ``shoe.shoed.main`` unchanged; SIGUSR1 zeroes the counters after the warm-up, SIGUSR2 stops them after
the timed rounds, and they are written when it stops. The wrappers cost about 1.5 µs a call (two
``thread_time`` reads): compare rounds' totals with ``bench/goals.py`` (no probe), not with this.

    bench/owner_cpu.py                   # 60 rounds, journal in a scratch folder on this disk
    bench/owner_cpu.py --rounds 200 --tmpfs --json
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WARM_UP_ROUNDS = 5
SETTLE_S = 0.5
"""Waited before zeroing the counters and before the last reading: the owner takes in the deck the dealer
loaded after a round (the instant emulator's) in about a millisecond, so each round counts its own deck."""
SEATS = (1, 2)


# -- the probe, inside shoed ------------------------------------------------------------------------------


class _Counters:
    """``kind -> [calls, thread CPU seconds]``, zeroed on SIGUSR1 (set by the signal, applied by the next call)."""

    def __init__(self) -> None:
        self.items: dict[str, list[float]] = {}
        self.parts: dict[str, list[float]] = {}
        self.zero = False
        self.frozen = False

    def add(self, table: dict[str, list[float]], key: str, seconds: float) -> None:
        if self.frozen:
            return
        if self.zero:
            self.items.clear()
            self.parts.clear()
            self.zero = False
        entry = table.setdefault(key, [0, 0.0])
        entry[0] += 1
        entry[1] += seconds


def _wrap(owner: Any, name: str, count: Callable[[tuple[Any, ...], float], None]) -> None:
    original = getattr(owner, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.thread_time()
        try:
            return original(*args, **kwargs)
        finally:
            count(args, time.thread_time() - started)

    setattr(owner, name, timed)


def probe(argv: list[str], out: Path) -> int:
    """Run shoed (``argv`` its arguments) with the counters; write them and the thread names to ``out``."""
    from shoe.journal.store import Journal
    from shoe.service import core
    from shoe.service.journal import sink as sink_module
    from shoe.service.journal.sink import JournalSink
    from shoe.service.owner import Owner
    from shoe.service.rounds.desk import RoundDesk

    counters = _Counters()
    names: dict[int, str] = {os.getpid(): "MainThread"}
    run = threading.Thread.run

    def named_run(self: threading.Thread) -> None:
        names[threading.get_native_id()] = self.name
        run(self)

    threading.Thread.run = named_run  # type: ignore[method-assign]
    _wrap(core, "execute", lambda a, s: counters.add(counters.items, f"action {a[1].action}", s))
    _wrap(Owner, "handle_shoe", lambda a, s: counters.add(counters.items, f"shoe {type(a[1]).__name__}", s))
    _wrap(Owner, "tick", lambda a, s: counters.add(counters.items, "tick", s))
    parts = {
        (Journal, "write"): "commit (Journal.write)",
        (JournalSink, "_published"): "after each entry (JournalSink._published)",
        (Owner, "after"): "after each item (Owner.after)",
        (sink_module, "parse_entry"): "payload check (parse_entry)",
        (RoundDesk, "dispense"): "shoe: dispense",
        (RoundDesk, "scan"): "shoe: scan",
        (RoundDesk, "release_stub"): "shoe: release stub",
    }
    for (owner, name), label in parts.items():
        _wrap(owner, name, lambda a, s, label=label: counters.add(counters.parts, label, s))

    def on_usr1(signum: int, frame: object) -> None:
        counters.zero = True

    def on_usr2(signum: int, frame: object) -> None:
        counters.frozen = True

    signal.signal(signal.SIGUSR1, on_usr1)
    signal.signal(signal.SIGUSR2, on_usr2)

    def dump() -> None:
        out.write_text(json.dumps({"items": counters.items, "parts": counters.parts, "names": names}))

    atexit.register(dump)
    from shoe.shoed import main

    return main(argv)


# -- the driver --------------------------------------------------------------------------------------------


def measure(rounds: int, folder: Path) -> dict[str, Any]:
    from bench._proc import cpu_seconds, task_cpu
    from bench._shoed import EmulatorProcess, Http, ShoedProcess
    from bench.service import play

    counters = folder / "owner-cpu.json"
    with EmulatorProcess(folder / "shoe", folder / "emulator.log") as emulator:
        probe_cmd = (str(Path(__file__).resolve()), "probe", str(counters))
        journal, log = folder / "journal.sqlite", folder / "shoed.log"
        with ShoedProcess(str(emulator.link), journal, log, command=probe_cmd) as shoed:
            http = Http(shoed.url)
            time.sleep(1.5)  # the start's last work (the hand tables at 1 s) passes
            play(http, emulator.load, WARM_UP_ROUNDS, SEATS)
            time.sleep(SETTLE_S)  # the deck loaded after the last warm-up round is taken in before the zero
            os.kill(shoed.pid, signal.SIGUSR1)
            cpu0, before, started = cpu_seconds(shoed.pid), task_cpu(shoed.pid), time.perf_counter()
            play(http, emulator.load, rounds, SEATS)  # each round, and the deck loaded after it
            wall = time.perf_counter() - started
            time.sleep(SETTLE_S)
            os.kill(shoed.pid, signal.SIGUSR2)
            cpu1, after = cpu_seconds(shoed.pid), task_cpu(shoed.pid)
    data = json.loads(counters.read_text())
    names = {int(k): v for k, v in data["names"].items()}
    threads: dict[str, dict[str, float]] = {}
    for tid, (user, system) in after.items():
        u0, s0 = before.get(tid, (0.0, 0.0))
        name = names.get(tid, f"thread {tid}")
        name = "shoe-link" if name.startswith("shoe-link ") else name  # the port is in its name
        row = threads.setdefault(name, {"user_ms": 0.0, "system_ms": 0.0})
        row["user_ms"] += (user - u0) * 1000 / rounds
        row["system_ms"] += (system - s0) * 1000 / rounds
    alive = sum(row["user_ms"] + row["system_ms"] for row in threads.values())
    ended = (cpu1 - cpu0) * 1000 / rounds - alive  # a worker that ended between the readings takes its time along
    if ended > 0.05:
        threads["(threads that ended meanwhile, user and system)"] = {"user_ms": ended, "system_ms": 0.0}

    def per(table: dict[str, list[float]]) -> dict[str, dict[str, float]]:
        return {k: {"calls_per_round": n / rounds, "us_each": s / n * 1e6, "ms_per_round": s * 1000 / rounds}
                for k, (n, s) in sorted(table.items(), key=lambda kv: -kv[1][1])}  # fmt: skip

    return {
        "rounds": rounds,
        "seats": len(SEATS),
        "journal_folder": str(folder),
        "wall_ms_per_round": wall * 1000 / rounds,
        "threads": dict(sorted(threads.items(), key=lambda kv: -(kv[1]["user_ms"] + kv[1]["system_ms"]))),
        "owner_items": per(data["items"]),
        "owner_parts": per(data["parts"]),
    }


def show(result: dict[str, Any]) -> None:
    from bench import _report as report

    report.define("thread", f"each thread of shoed, user + system CPU a round, over {result['rounds']} two-seat NY "
                  f"rounds on one kept-alive connection, the journal in {result['journal_folder']}")  # fmt: skip
    total = 0.0
    for name, row in result["threads"].items():
        both = row["user_ms"] + row["system_ms"]
        total += both
        report.say(f"thread {name}: {both:.2f} ms/round (user {row['user_ms']:.2f}, system {row['system_ms']:.2f})")
    report.say(f"all threads: {total:.2f} ms/round (wall {result['wall_ms_per_round']:.1f} ms a round)")
    report.define("item", "the owner thread's CPU in one action, or in one kind of shoe item, and its ticks")
    report.define("part", "the owner thread's CPU in one function, wherever it was called from (inclusive: a part "
                  "inside another counts in both)")  # fmt: skip
    for key, kind in (("owner_items", "item"), ("owner_parts", "part")):
        for name, row in result[key].items():
            report.say(f"{kind} {name}: {row['ms_per_round']:.2f} ms/round ({row['calls_per_round']:.1f} a round, "
                       f"{row['us_each']:.0f} µs each)")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["probe"]:
        return probe(args[2:], Path(args[1]))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=60, help="timed rounds after the warm-up (default 60)")
    p.add_argument("--tmpfs", action="store_true", help="the journal on /dev/shm: no disk in the commits' cost")
    p.add_argument("--json", action="store_true", help="the figures as JSON on stdout")
    opts = p.parse_args(args)
    if opts.rounds < 1:
        p.error("--rounds must be at least 1")
    base = "/dev/shm" if opts.tmpfs and Path("/dev/shm").is_dir() else None
    with tempfile.TemporaryDirectory(prefix="owner-cpu-", dir=base) as folder:
        result = measure(opts.rounds, Path(folder))
    if opts.json:
        sys.stdout.write(json.dumps(result, indent=2) + "\n")
    else:
        show(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
