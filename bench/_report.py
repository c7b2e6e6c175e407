"""The one printer of the benchmarks: one short line per figure, with its unit and what a ratio is against.

Every line starts with a label and ``": "``; lines come in three kinds:

- a figure: ``decode card-read event (12 B): 123,456 frames/s = 128.60x the 115,200-baud limit``
  (:func:`figure`; a distribution is one figure: ``median 1.20 ms, p99 3.40 ms, max 5.00 ms (n 80)``);
- a legend, explaining a label used by the figures after it: ``5-card set = 99,960 hands: ...``
  (:func:`define`), or context (:func:`say`);
- a reference that is not there: ``treys: skipped: not installed; pip install -e '.[bench]' adds it``
  (:func:`skipped`).

A line over :data:`MAX_LINE` characters is a bug in the benchmark: :func:`say` raises ``ValueError``
(tests/bench runs the quick benchmarks and checks every line).
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Sequence

MAX_LINE = 400
INSTALL = "pip install -e '.[bench]'"
MIN_FOR_P99 = 100
"""Below this many samples a p99 is the maximum in disguise: a distribution shows the max instead."""


def say(line: str) -> None:
    """Print one line (flushed), refusing one over ``MAX_LINE`` characters or spanning several."""
    if len(line) > MAX_LINE or "\n" in line:
        raise ValueError(f"a benchmark line must be one line of at most {MAX_LINE} characters: {line[:80]}...")
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def number(value: float) -> str:
    """``123,456``, ``12.3``, ``1.23``, ``0.012``: about three significant digits, thousands separated."""
    if isinstance(value, int):
        return f"{value:,}"
    size = abs(value)
    if size >= 100 or (value == int(value) and size >= 10):
        return f"{value:,.0f}"
    if size >= 10:
        return f"{value:.1f}"
    if size >= 0.1:
        return f"{value:.2f}"
    return f"{value:.3g}"


def figure(label: str, value: float | str, unit: str, *, vs: tuple[float, str] | None = None, note: str = "") -> None:
    """``label: VALUE UNIT[ = RATIOx REFERENCE][ (note)]``."""
    text = value if isinstance(value, str) else number(value)
    line = f"{label}: {text} {unit}".rstrip()
    if vs is not None:
        line += f" = {vs[0]:.2f}x {vs[1]}"
    if note:
        line += f" ({note})"
    say(line)


def ratio(label: str, value: float, reference: str, *, note: str = "") -> None:
    """``label: 2.31x REFERENCE``: a figure that is itself a ratio, and what it is against."""
    say(f"{label}: {value:.2f}x {reference}" + (f" ({note})" if note else ""))


def define(label: str, meaning: str) -> None:
    """``label = meaning``: what a label the figures use stands for."""
    say(f"{label} = {meaning}")


def skipped(name: str, why: str) -> None:
    """A reference evaluator (or any optional part) that is not there, and how to add it."""
    fix = f"; {INSTALL} adds it" if why == "not installed" else ""
    say(f"{name}: skipped: {why}{fix}")


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def distribution(seconds: Sequence[float]) -> str:
    """``median 1.20 ms, p99 3.40 ms, max 5.00 ms (n 800)``; no p99 under ``MIN_FOR_P99`` samples."""
    ordered = sorted(seconds)
    if not ordered:
        return "no samples"
    parts = [f"median {ms(statistics.median(ordered))}"]
    if len(ordered) >= MIN_FOR_P99:
        parts.append(f"p99 {ms(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))])}")
    parts.append(f"max {ms(ordered[-1])}")
    return ", ".join(parts) + f" (n {len(ordered)})"
