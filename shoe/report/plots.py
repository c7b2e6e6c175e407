"""The report's pictures (``shoectl report --plot DIR``): matplotlib, an optional dependency (``.[plot]``).

* ``outcomes.png/.svg``: the distribution of each seat-round's net result in antes (what the player
  won or lost per ante), log scale, so the rare big hands are visible next to the common losses;
* ``hold.png/.svg``: the cumulative actual hold against the theoretical hold under the observed
  decisions, with its 95% band (theo +- 1.96 standard deviations of the result, over the handle so far).
"""

from __future__ import annotations

from collections.abc import Mapping
from math import sqrt
from pathlib import Path
from typing import Any

__all__ = ["PlotUnavailable", "write_plots"]


class PlotUnavailable(Exception):
    """matplotlib is not installed."""


def write_plots(folder: Path, series: Mapping[str, list[Any]]) -> list[Path]:
    """Write the plots of ``series`` (from :func:`shoe.report.summary.build_report`) into ``folder``."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlotUnavailable("--plot needs matplotlib, which is not installed") from None
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    fig, ax = plt.subplots(figsize=(8, 4.5))
    nets = series["net_antes"]
    if nets:
        lo, hi = min(nets), max(nets)
        ax.hist(nets, bins=max(10, min(200, int(hi - lo) + 1)), log=True, color="#3a6ea5")
    ax.set_xlabel("player's net per seat and round (antes)")
    ax.set_ylabel("seat-rounds (log scale)")
    ax.set_title(f"outcome distribution, {len(nets):,} seat-rounds")
    written += _save(fig, folder / "outcomes")
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(8, 4.5))
    handle = win = theo = var = 0.0
    xs, actual, expected, low, high = [], [], [], [], []
    for n, (h, w, t, v) in enumerate(zip(series["handle"], series["win"], series["theo"], series["var"], strict=True)):
        handle, win, theo, var = handle + h, win + w, theo + t, var + v
        if handle:
            xs.append(n + 1)
            actual.append(100 * win / handle)
            expected.append(100 * theo / handle)
            low.append(100 * (theo - 1.96 * sqrt(var)) / handle)
            high.append(100 * (theo + 1.96 * sqrt(var)) / handle)
    ax.fill_between(xs, low, high, color="#cfd8e3", label="95% band (observed decisions)")
    ax.plot(xs, expected, color="#3a6ea5", label="theoretical hold")
    ax.plot(xs, actual, color="#b03a2e", label="actual hold")
    ax.set_ylim(-50, 50)
    ax.set_xlabel("seat-rounds, in the order the rounds closed")
    ax.set_ylabel("hold so far (% of handle)")
    ax.legend(loc="upper right")
    written += _save(fig, folder / "hold")
    plt.close(fig)
    return written


def _save(fig: Any, stem: Path) -> list[Path]:
    out = []
    for suffix in (".png", ".svg"):
        path = stem.with_suffix(suffix)
        fig.savefig(path, dpi=110, bbox_inches="tight")
        out.append(path)
    return out
