"""``bench/ab_trees.py``: its interval for the median holds the level it names and no more than it needs, and a
real run of two trees gives the figures it documents."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.ab_trees import median_interval  # noqa: E402


def _coverage(n: int, k: int) -> float:
    """P(the k-th smallest <= the true median <= the k-th largest) for n draws of a continuous distribution:
    1 - 2 P(Binomial(n, 1/2) <= k - 1)."""
    return 1 - 2 * sum(math.comb(n, i) for i in range(k)) / 2**n


@pytest.mark.parametrize("n", [6, 7, 10, 16, 24, 25, 48, 100])
def test_the_interval_is_the_narrowest_pair_of_order_statistics_that_holds_95_percent(n: int) -> None:
    values = [float(v) for v in range(1, n + 1)]  # a value is its own rank
    random.Random(n).shuffle(values)
    low, high = median_interval(values)
    k = int(low)
    assert high == n + 1 - k  # symmetric ranks
    assert _coverage(n, k) >= 0.95
    assert _coverage(n, k + 1) < 0.95 or k + 1 > n // 2  # one rank narrower would not hold the level


def test_too_few_values_for_the_level_give_the_whole_range() -> None:
    assert median_interval([3.0, 1.0, 2.0, 5.0, 4.0]) == (1.0, 5.0)  # 5 draws: even the extremes cover 93.75%


def test_a_real_run_of_this_tree_against_itself(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "ab_trees.py"), "HEAD", "--pairs", "2",
                           "--rounds", "1", "--json"], cwd=ROOT, capture_output=True, text=True, timeout=240,
                          check=True)  # fmt: skip
    figures = json.loads(done.stdout)
    assert (figures["base"], figures["pairs"], figures["rounds_per_block"]) == ("HEAD", 2, 1)
    for key in ("base_ms", "ours_ms", "base_wall_ms", "ours_wall_ms"):
        assert 0 < figures[key] < 10_000, (key, figures)
    for key in ("ratio", "wall_ratio"):
        low, high = figures[f"{key}_ci95"]
        assert low <= figures[key] <= high, (key, figures)
    worktrees = subprocess.run(["git", "-C", str(ROOT), "worktree", "list"], capture_output=True, text=True,
                               check=True).stdout  # fmt: skip
    assert "ab-base-" not in worktrees  # the base's worktree was removed after the run
