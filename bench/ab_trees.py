#!/usr/bin/env python3
"""shoed's CPU per two-seat round in two trees at once: this checkout against another commit, in paired blocks.

On a shared or virtual machine the same tree's CPU per round drifts by more than 10% between runs a minute
apart, which hides any change worth a few percent when the trees are run one after the other. Here both
trees' ``shoed`` run side by side, each on its own instant emulator (this tree's, the same seed), and the
rounds alternate between them in blocks, ABBA (base first in even pairs, ours first in odd ones), so that
drift hits both alike. Each block's CPU is the process's own CPU clock (``clock_getcpuclockid``: every
thread, nanoseconds), read before the block and after its last deck was taken in. The figure is the median
of the pairs' ratios (ours / base) with its distribution-free 95% interval (order statistics of the ratios):
an interval that holds 1.0 is no difference this run can show.

``BASE`` is a checkout folder of the other tree, or a commit (a detached worktree is made for the run and
removed after it). The rounds are ``bench/service.py``'s: a two-seat NY round over one kept-alive
connection, each followed by a fresh deck, as ``bench/owner_cpu.py`` counts them.

    bench/ab_trees.py main                       # this checkout against main
    bench/ab_trees.py ff17c80 --pairs 24 --rounds 10 --json
    bench/ab_trees.py /tmp/base --tmpfs          # the journals on tmpfs: the disk's fsync out of both
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._proc import cpu_clock  # noqa: E402
from bench._shoed import EmulatorProcess, Http, ShoedProcess  # noqa: E402
from bench.service import play  # noqa: E402

SEATS = (1, 2)
WARM_UP_ROUNDS = 5
SETTLE_S = 0.3
"""Waited after a block's last round: the deck the dealer loaded after it is journaled and checked in about a
millisecond, and counts in its block."""


@contextlib.contextmanager
def checkout(base: str) -> Iterator[Path]:
    """``base`` as a folder: itself if it is one, else a detached worktree of that commit for the run."""
    folder = Path(base)
    if folder.is_dir():
        yield folder.resolve()
        return
    made = Path(tempfile.mkdtemp(prefix="ab-base-"))
    try:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--force", str(made), base],
                       check=True, capture_output=True, text=True)  # fmt: skip
    except subprocess.CalledProcessError as exc:
        made.rmdir()
        why = exc.stderr.strip()
        raise SystemExit(f"ab_trees: {base!r} is neither a folder nor a commit of {ROOT}: {why}") from None
    try:
        yield made
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(made)], check=False,
                       capture_output=True)  # fmt: skip


def median_interval(values: list[float], level: float = 0.95) -> tuple[float, float]:
    """The distribution-free interval for the median of ``values``: the k-th smallest and k-th largest, k the
    largest rank whose two tails of Binomial(n, 1/2) together stay within 1 - ``level``."""
    ordered, n = sorted(values), len(values)
    tail, k = 0.0, 0
    while k < n // 2:
        tail += math.comb(n, k) / 2**n
        if 2 * tail > 1 - level:
            break
        k += 1
    if k == 0:
        return ordered[0], ordered[-1]  # too few pairs for the level: the whole range
    return ordered[k - 1], ordered[n - k]


class Table:
    """One tree's shoed on its own emulator, and its CPU clock."""

    def __init__(self, name: str, tree: Path, folder: Path, stack: contextlib.ExitStack) -> None:
        self.name = name
        self.emulator = stack.enter_context(EmulatorProcess(folder / f"{name}-shoe", folder / f"{name}-emulator.log"))
        shoed = ShoedProcess(str(self.emulator.link), folder / f"{name}.sqlite", folder / f"{name}-shoed.log",
                             tree=tree)  # fmt: skip
        stack.callback(shoed.close)
        self.http = Http(shoed.url)
        self.clock = cpu_clock(shoed.pid)

    def block(self, rounds: int) -> tuple[float, float]:
        """CPU seconds per round over ``rounds`` rounds, and the client's wall seconds per round (its latency:
        a cut in CPU that costs the dealer time shows here)."""
        start, began = time.clock_gettime(self.clock), time.perf_counter()
        play(self.http, self.emulator.load, rounds, SEATS)
        wall = time.perf_counter() - began
        time.sleep(SETTLE_S)
        return (time.clock_gettime(self.clock) - start) / rounds, wall / rounds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("base", help="the other tree: a checkout folder, or a commit (a worktree is made for the run)")
    parser.add_argument("--pairs", type=int, default=16, help="pairs of blocks (default 16)")
    parser.add_argument("--rounds", type=int, default=10, help="two-seat rounds per block (default 10)")
    parser.add_argument("--tmpfs", action="store_true", help="both journals on /dev/shm (the disk taken out)")
    parser.add_argument("--json", action="store_true", help="the figures as JSON on stdout")
    args = parser.parse_args(argv)
    if args.pairs < 2 or args.rounds < 1:
        parser.error("--pairs must be at least 2 and --rounds at least 1")
    results: dict[str, list[float]] = {"base": [], "ours": []}
    walls: dict[str, list[float]] = {"base": [], "ours": []}
    with checkout(args.base) as base_tree, contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(dir="/dev/shm" if args.tmpfs else None)))
        tables = {"base": Table("base", base_tree, folder, stack), "ours": Table("ours", ROOT, folder, stack)}
        for table in tables.values():
            play(table.http, table.emulator.load, WARM_UP_ROUNDS, SEATS)
        time.sleep(SETTLE_S)
        for pair in range(args.pairs):
            order = ("base", "ours") if pair % 2 == 0 else ("ours", "base")
            for name in order:
                cpu, wall = tables[name].block(args.rounds)
                results[name].append(cpu)
                walls[name].append(wall)
            if not args.json:
                print(f"pair {pair + 1}/{args.pairs}: base {results['base'][-1] * 1e3:.2f} ms, "
                      f"ours {results['ours'][-1] * 1e3:.2f} ms a round", file=sys.stderr)  # fmt: skip
    ratios = [o / b for o, b in zip(results["ours"], results["base"], strict=True)]
    low, high = median_interval(ratios)
    w_ratios = [o / b for o, b in zip(walls["ours"], walls["base"], strict=True)]
    w_low, w_high = median_interval(w_ratios)
    figures: dict[str, Any] = {
        "base": args.base, "pairs": args.pairs, "rounds_per_block": args.rounds, "tmpfs": args.tmpfs,
        "base_ms": round(statistics.median(results["base"]) * 1e3, 2),
        "ours_ms": round(statistics.median(results["ours"]) * 1e3, 2),
        "ratio": round(statistics.median(ratios), 3), "ratio_ci95": [round(low, 3), round(high, 3)],
        "base_wall_ms": round(statistics.median(walls["base"]) * 1e3, 2),
        "ours_wall_ms": round(statistics.median(walls["ours"]) * 1e3, 2),
        "wall_ratio": round(statistics.median(w_ratios), 3), "wall_ratio_ci95": [round(w_low, 3), round(w_high, 3)],
    }  # fmt: skip
    if args.json:
        print(json.dumps(figures))
        return 0
    verdict = "no difference this run can show" if low <= 1.0 <= high else ("faster" if high < 1.0 else "slower")
    print(f"shoed CPU per two-seat round, median of {args.pairs} pairs of {args.rounds}-round blocks: "
          f"base ({args.base}) {figures['base_ms']:.2f} ms, ours {figures['ours_ms']:.2f} ms")  # fmt: skip
    print(f"ours / base: {figures['ratio']:.3f}x (95% interval {low:.3f}-{high:.3f}): {verdict}")
    print(f"the client's wall time per round: base {figures['base_wall_ms']:.2f} ms, "
          f"ours {figures['ours_wall_ms']:.2f} ms, {figures['wall_ratio']:.3f}x "
          f"(95% interval {w_low:.3f}-{w_high:.3f})")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
