"""The bench report: what a HIL session measured, written at its end as ``report.json`` and ``report.md``.

Tests feed one ``Report`` (the ``hil_report`` fixture) while they run: latencies by kind (``dispense``,
``deal``, ``reveal``), cards dealt over time, card reads and how many were unreadable, every fault
injected and whether the shoe and the software came through it (zero double dispenses, zero lost card
events), and the versions of everything involved. The plugin adds each test's outcome (skips with their
reason) and writes both files into ``--report DIR`` when the session ends.
"""

from __future__ import annotations

import contextlib
import json
import math
import platform
import subprocess
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from hil_tests.bench import Bench
from protocols import messages as m
from protocols.codes import Capability

__all__ = ["FaultRecord", "Report", "percentile", "software_versions"]

ROOT = Path(__file__).resolve().parents[1]


def percentile(values: list[float], pct: float) -> float:
    """Nearest-rank percentile (no interpolation): a value that was actually measured."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


def _distribution_ms(values: list[float]) -> dict[str, float | int]:
    return {
        "n": len(values),
        "p50": round(percentile(values, 50) * 1000, 2),
        "p90": round(percentile(values, 90) * 1000, 2),
        "p99": round(percentile(values, 99) * 1000, 2),
        "max": round(max(values) * 1000, 2),
    }


def _git_commit() -> str | None:
    try:
        done = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True,
                              timeout=10, check=False)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return (done.stdout.strip() or None) if done.returncode == 0 else None


def software_versions() -> dict[str, str | None]:
    def version(name: str) -> str | None:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return None

    return {
        "shoe-controller": version("shoe-controller"),
        "git": _git_commit(),
        "python": platform.python_version(),
        "pyserial": version("pyserial"),
        "pyusb": version("pyusb"),
        "platform": platform.platform(),
    }


@dataclass
class FaultRecord:
    """One fault injected into the shoe and what came of it."""

    fault: str
    by: str  # who injected it: "emulator" or "operator"
    test: str
    survived: bool = False
    double_dispenses: int | None = None
    lost_card_events: int | None = None
    detail: str = ""


@dataclass
class Report:
    bench: Bench
    target: str
    started: float = field(default_factory=time.time)
    latencies: dict[str, list[float]] = field(default_factory=dict)
    histograms: dict[str, dict[str, Any]] = field(default_factory=dict)
    cards_dealt: int = 0
    dealing_s: float = 0.0
    rounds: int = 0
    rounds_s: float = 0.0
    card_reads: int = 0
    unreadable_reads: int = 0
    faults: list[FaultRecord] = field(default_factory=list)
    shoe: dict[str, Any] = field(default_factory=dict)
    outcomes: dict[str, dict[str, str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    current_test: str = ""

    # -- what tests record -------------------------------------------------------------------------

    def latency(self, kind: str, seconds: float) -> None:
        self.latencies.setdefault(kind, []).append(seconds)

    def histogram(self, kind: str, histogram: dict[str, Any]) -> None:
        """A Prometheus-style histogram (``{"buckets": [[le, cumulative], ..., ["+Inf", n]], "sum", "count"}``):
        its percentiles are bucket bounds ("at most")."""
        count = int(histogram["count"])
        if not count:
            return

        def bound(pct: float) -> float | str:
            for le, cumulative in histogram["buckets"]:
                if cumulative >= pct / 100 * count:
                    return le if le == "+Inf" else round(float(le) * 1000, 2)
            return "+Inf"

        self.histograms[kind] = {"n": count, "mean": round(histogram["sum"] / count * 1000, 2),
                                 "p50_at_most": bound(50), "p99_at_most": bound(99)}  # fmt: skip

    def dealt(self, cards: int, seconds: float) -> None:
        """``cards`` dispensed in ``seconds`` spent dispensing them."""
        self.cards_dealt += cards
        self.dealing_s += seconds

    def played(self, rounds: int, seconds: float) -> None:
        """``rounds`` whole rounds played in ``seconds`` (deck reloads excluded)."""
        self.rounds += rounds
        self.rounds_s += seconds

    def reads(self, total: int, unreadable: int) -> None:
        """Card reads in normal dealing (faults injected on purpose are recorded with the fault)."""
        self.card_reads += total
        self.unreadable_reads += unreadable

    def identify(self, identity: m.Identity) -> None:
        self.shoe = {
            "model": identity.model,
            "serial": identity.serial,
            "firmware": identity.firmware,
            "protocol_version": identity.protocol_version,
            "capabilities": [c.name.lower() for c in Capability if c & identity.capabilities and c.name],
        }

    @contextlib.contextmanager
    def fault(self, name: str, by: str) -> Iterator[FaultRecord]:
        """Record a fault; it counts as survived when the block ends without an exception."""
        record = FaultRecord(fault=name, by=by, test=self.current_test)
        self.faults.append(record)
        yield record
        record.survived = True

    def outcome(self, nodeid: str, outcome: str, reason: str = "") -> None:
        self.outcomes[nodeid] = {"outcome": outcome, "reason": reason}

    # -- what is written ---------------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        minutes, round_minutes = self.dealing_s / 60, self.rounds_s / 60
        counts: dict[str, int] = {}
        for result in self.outcomes.values():
            counts[result["outcome"]] = counts.get(result["outcome"], 0) + 1
        return {
            "bench": {
                "name": self.bench.name,
                "kind": self.bench.kind,
                "timing": self.bench.timing.name,
                "features": sorted(self.bench.features),
                "file": None if self.bench.source is None else str(self.bench.source),
                "target": self.target,
            },
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started)),
            "duration_s": round(time.time() - self.started, 1),
            "throughput": {
                "cards_dealt": self.cards_dealt,
                "dealing_s": round(self.dealing_s, 3),
                "cards_per_minute": round(self.cards_dealt / minutes, 1) if minutes else None,
                "rounds": self.rounds,
                "rounds_s": round(self.rounds_s, 3),
                "rounds_per_minute": round(self.rounds / round_minutes, 1) if round_minutes else None,
            },
            "reads": {
                "total": self.card_reads,
                "unreadable": self.unreadable_reads,
                "error_rate": round(self.unreadable_reads / self.card_reads, 6) if self.card_reads else None,
            },
            "latency_ms": {kind: _distribution_ms(v) for kind, v in sorted(self.latencies.items()) if v},
            "histograms_ms": self.histograms,
            "faults": {
                "injected": len(self.faults),
                "survived": sum(1 for f in self.faults if f.survived),
                "list": [asdict(f) for f in self.faults],
            },
            "versions": {"shoe": self.shoe, "software": software_versions()},
            "tests": {"counts": counts, "results": self.outcomes},
            "notes": self.notes,
        }

    def markdown(self, data: dict[str, Any] | None = None) -> str:
        d = data or self.summary()
        b, t, r = d["bench"], d["throughput"], d["reads"]
        shoe, soft = d["versions"]["shoe"], d["versions"]["software"]
        lines = [
            f"# Bench report: {b['name']} ({b['kind']}, timing {b['timing']})",
            "",
            f"Started {d['started']}, {d['duration_s']} s; target `{b['target']}`; bench file `{b['file']}`.",
            f"Features: {', '.join(b['features']) or 'none'}.",
            "",
            "## Results",
            "",
            "| figure | value |",
            "|---|---|",
            f"| cards per minute | {_show(t['cards_per_minute'])} ({t['cards_dealt']} cards in {t['dealing_s']} s) |",
            f"| rounds per minute | {_show(t['rounds_per_minute'])} ({t['rounds']} rounds in {t['rounds_s']} s) |",
            f"| read-error rate | {_show(r['error_rate'])} ({r['unreadable']} of {r['total']} reads) |",
            f"| faults injected / survived | {d['faults']['injected']} / {d['faults']['survived']} |",
            f"| tests | {', '.join(f'{n} {k}' for k, n in sorted(d['tests']['counts'].items())) or 'none'} |",
            "",
            "## Latency (ms)",
            "",
            "| kind | n | p50 | p90 | p99 | max |",
            "|---|---|---|---|---|---|",
        ]
        lines += [f"| {k} | {v['n']} | {v['p50']} | {v['p90']} | {v['p99']} | {v['max']} |"
                  for k, v in d["latency_ms"].items()]  # fmt: skip
        for kind, h in d["histograms_ms"].items():
            lines.append(f"| {kind} (histogram) | {h['n']} | ≤ {h['p50_at_most']} | | ≤ {h['p99_at_most']} | |")
        lines += ["", "## Faults", "", "| fault | by | survived | double dispenses | lost card events | test |",
                  "|---|---|---|---|---|---|"]  # fmt: skip
        if not d["faults"]["list"]:
            lines.append("| none injected | | | | | |")
        lines += [
            f"| {f['fault']} | {f['by']} | {'yes' if f['survived'] else '**no**'} | {_show(f['double_dispenses'])} "
            f"| {_show(f['lost_card_events'])} | `{f['test']}` |"
            for f in d["faults"]["list"]
        ]
        lines += ["", "## Versions", "", "| what | version |", "|---|---|"]
        lines += [f"| shoe {k} | {', '.join(v) if isinstance(v, list) else v} |" for k, v in shoe.items()]
        lines += [f"| {k} | {v} |" for k, v in soft.items()]
        skipped = [(n, x["reason"]) for n, x in d["tests"]["results"].items() if x["outcome"] == "skipped"]
        failed = [n for n, x in d["tests"]["results"].items() if x["outcome"] == "failed"]
        if failed:
            lines += ["", "## Failed", ""] + [f"- `{n}`" for n in failed]
        if skipped:
            lines += ["", "## Skipped", ""] + [f"- `{n}`: {reason}" for n, reason in skipped]
        if d["notes"]:
            lines += ["", "## Notes", ""] + [f"- {note}" for note in d["notes"]]
        return "\n".join(lines) + "\n"

    def write(self, directory: Path) -> tuple[Path, Path]:
        directory.mkdir(parents=True, exist_ok=True)
        data = self.summary()
        json_path, md_path = directory / "report.json", directory / "report.md"
        json_path.write_text(json.dumps(data, indent=2, sort_keys=False, default=str) + "\n", encoding="utf-8")
        md_path.write_text(self.markdown(data), encoding="utf-8")
        return json_path, md_path


def _show(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return str(value)
