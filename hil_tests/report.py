"""The bench report: what a HIL session measured, written at its end as ``report.json`` and ``report.md``.

Tests feed one ``Report`` (the ``hil_report`` fixture) while they run: latencies by kind (``dispense``,
``deal``, ``reveal``), cards dealt over time, card reads and how many were unreadable (natural misreads
apart from cards made unreadable on purpose), how each round ended, every fault injected and whether the
shoe and the software came through it (zero double dispenses, zero lost card events), and the versions
of everything involved. Each count keeps which test contributed what, so the report explains it. The
plugin adds each test's outcome (skips with their reason), whether the target was reached at all (a
shoe that does not answer fails the run: the verdict says so), and the lab's sign-off fields (operator,
witness, bench id, the shoe's serial from IDENTIFY; "unsigned" where one is missing), then writes both
files into ``--report DIR`` when the session ends. ``report_md.py`` renders the Markdown.
"""

from __future__ import annotations

import contextlib
import json
import math
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from types import MappingProxyType
from typing import Any

from hil_tests.bench import Bench
from protocols import messages as m
from protocols.codes import Capability

__all__ = ["MIN_SAMPLES", "FaultRecord", "Report", "SignOff", "distribution_ms", "percentile", "software_versions"]

ROOT = Path(__file__).resolve().parents[1]


MIN_SAMPLES: Mapping[str, int] = MappingProxyType({"p90": 10, "p95": 20, "p99": 100})
"""The fewest samples a percentile is reported from (hil_tests/README.md, Percentiles). A nearest-rank
percentile p is a value below the maximum only from n >= 100 / (100 - p) samples: with fewer, "p99" is the
maximum under another name. Below its threshold a percentile is None ("n/a, needs N samples")."""


def percentile(values: list[float], pct: float) -> float:
    """Nearest-rank percentile (no interpolation): a value that was actually measured."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


def distribution_ms(values: list[float]) -> dict[str, float | int | None]:
    """n, min, median and max of ``values`` (seconds) in ms; each of ``MIN_SAMPLES`` only with enough samples."""
    ms = sorted(v * 1000 for v in values)
    shown: dict[str, float | int | None] = {
        "n": len(ms),
        "min": round(ms[0], 2),
        "median": round(statistics.median(ms), 2),
        "max": round(ms[-1], 2),
    }
    for name, fewest in MIN_SAMPLES.items():
        shown[name] = round(percentile(ms, float(name[1:])), 2) if len(ms) >= fewest else None
    return shown


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
        **program_identity(),
        "git": _git_commit(),
        "python": platform.python_version(),
        "pyserial": version("pyserial"),
        "pyusb": version("pyusb"),
        "platform": platform.platform(),
    }


def program_identity() -> dict[str, str | None]:
    """The software identity: the release manifest's hash and the program's check against it."""
    from shoe.release import MANIFEST_NAME
    from shoe.release.program import check_program
    from shoe.release.signing import DEFAULT_PUBKEY

    root = Path(sys.prefix)
    result = check_program(root / MANIFEST_NAME, DEFAULT_PUBKEY if DEFAULT_PUBKEY.exists() else None, root)
    verified = f"{result['result']}: {result['detail']}"
    return {"release manifest": result["manifest_sha256"], "program verified": verified}


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


@dataclass(frozen=True)
class SignOff:
    """Who ran the session, who witnessed it, and which bench (``--operator-name``, ``--witness``,
    ``--bench-id``); the shoe's serial comes from its IDENTIFY. A missing field leaves the report unsigned."""

    operator: str | None = None
    witness: str | None = None
    bench_id: str | None = None

    OPTIONS = MappingProxyType({"operator": "--operator-name NAME", "witness": "--witness NAME",
                                "bench_id": "--bench-id ID"})  # fmt: skip


COUNTS: Mapping[str, str] = MappingProxyType(
    {
        "cards dealt": "cards shoed dispensed in whole rounds: the journal's card entries with a dispense id",
        "rounds": "Mississippi stud rounds played to their end through shoed, deck reloads not timed",
        "card reads": "card reads the tests checked: every card of each stack they dealt, and the community "
        "cards of the rounds",
        "unreadable": "reads the shoe could not identify, injected ones included",
        "injected unreadable": "cards made unreadable on purpose (the emulator's unreadable_at, or the lab's "
        "smudged test card): not read errors of the shoe",
    }
)
"""What each count of the report counts; the report adds which tests contributed how much."""


@dataclass
class Report:
    bench: Bench
    target: str
    sign_off: SignOff = field(default_factory=SignOff)
    started: float = field(default_factory=time.time)
    latencies: dict[str, list[float]] = field(default_factory=dict)
    histograms: dict[str, dict[str, Any]] = field(default_factory=dict)
    dealing_s: float = 0.0
    rounds_s: float = 0.0
    round_endings: dict[str, int] = field(default_factory=dict)
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    """count name (``COUNTS``, or a latency kind) -> test -> how much that test added."""
    explanations: dict[str, str] = field(default_factory=dict)
    faults: list[FaultRecord] = field(default_factory=list)
    shoe: dict[str, Any] = field(default_factory=dict)
    target_problem: str | None = None
    """Why the target was not reached (None: it answered, or no test asked for it)."""
    outcomes: dict[str, dict[str, str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    current_test: str = ""

    # -- what tests record -------------------------------------------------------------------------

    def _add(self, count: str, amount: int) -> None:
        by_test = self.counts.setdefault(count, {})
        by_test[self.current_test] = by_test.get(self.current_test, 0) + amount

    def total(self, count: str) -> int:
        return sum(self.counts.get(count, {}).values())

    def latency(self, kind: str, seconds: float) -> None:
        self.latencies.setdefault(kind, []).append(seconds)
        self._add(f"latency {kind}", 1)

    def explain(self, kind: str, text: str) -> None:
        """Say what a latency kind's samples are, one per what (e.g. ``shoed settle``: one per settled round)."""
        self.explanations[kind] = text

    def histogram(self, kind: str, histogram: dict[str, Any]) -> None:
        """A Prometheus-style histogram (``{"buckets": [[le, cumulative], ..., ["+Inf", n]], "sum", "count"}``):
        its percentiles are bucket bounds ("at most"), the p99 one only from ``MIN_SAMPLES["p99"]`` samples."""
        count = int(histogram["count"])
        if not count:
            return

        def bound(pct: float) -> float | str:
            for le, cumulative in histogram["buckets"]:
                if cumulative >= pct / 100 * count:
                    return le if le == "+Inf" else round(float(le) * 1000, 2)
            return "+Inf"

        self.histograms[kind] = {"n": count, "mean": round(histogram["sum"] / count * 1000, 2),
                                 "p50_at_most": bound(50),
                                 "p99_at_most": bound(99) if count >= MIN_SAMPLES["p99"] else None}  # fmt: skip
        self._add(f"latency {kind}", count)

    def dealt(self, cards: int, seconds: float) -> None:
        """``cards`` dispensed in ``seconds`` spent dispensing them."""
        self._add("cards dealt", cards)
        self.dealing_s += seconds

    def played(self, rounds: int, seconds: float, endings: Mapping[str, int] | None = None) -> None:
        """``rounds`` whole rounds played in ``seconds`` (deck reloads excluded); ``endings``: how many ended
        how (``{"settled": 19, "every seat folded": 1}``), which must add up to ``rounds``."""
        endings = dict(endings or {"not said": rounds})
        if sum(endings.values()) != rounds:
            raise ValueError(f"round endings {endings} do not add up to {rounds} rounds")
        self._add("rounds", rounds)
        self.rounds_s += seconds
        for how, n in endings.items():
            self.round_endings[how] = self.round_endings.get(how, 0) + n

    def reads(self, total: int, unreadable: int, injected: int = 0) -> None:
        """``total`` card reads, ``unreadable`` of them not identified, ``injected`` of those on purpose (the
        unreadable-card fault): the read-error rate counts only the others."""
        if not 0 <= injected <= unreadable <= total:
            raise ValueError(f"reads: need 0 <= injected ({injected}) <= unreadable ({unreadable}) <= total ({total})")
        self._add("card reads", total)
        self._add("unreadable", unreadable)
        self._add("injected unreadable", injected)

    def identify(self, identity: m.Identity) -> None:
        self.shoe = {
            "model": identity.model,
            "serial": identity.serial,
            "firmware": identity.firmware,
            "protocol_version": identity.protocol_version,
            "capabilities": [c.name.lower() for c in Capability if c & identity.capabilities and c.name],
        }

    def unreachable(self, problem: str) -> None:
        """The target did not answer: every test that needs it fails, and so does the run."""
        self.target_problem = problem

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

    def verdict(self) -> dict[str, Any]:
        """Passed: the target answered, no test failed or errored, and at least one ran."""
        counts = self._outcome_counts()
        bad = counts.get("failed", 0) + counts.get("error", 0)
        if self.target_problem is not None:
            problem = f"the target {self.target} was not reached: {self.target_problem}"
        elif bad:
            problem = f"{bad} test{'s' if bad > 1 else ''} failed"
        elif not counts.get("passed"):
            problem = "no test ran against the shoe"
        else:
            problem = None
        return {"passed": problem is None, "target_reached": self.target_problem is None and bool(self.shoe),
                "target_problem": self.target_problem, "problem": problem}  # fmt: skip

    def _outcome_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for result in self.outcomes.values():
            counts[result["outcome"]] = counts.get(result["outcome"], 0) + 1
        return counts

    def _sign_off(self) -> dict[str, Any]:
        fields = {"operator": self.sign_off.operator, "witness": self.sign_off.witness,
                  "bench_id": self.sign_off.bench_id, "shoe_serial": self.shoe.get("serial")}  # fmt: skip
        missing = [name for name, value in fields.items() if not value]
        return {**fields, "signed": not missing, "missing": missing}

    def summary(self) -> dict[str, Any]:
        minutes, round_minutes = self.dealing_s / 60, self.rounds_s / 60
        cards, rounds = self.total("cards dealt"), self.total("rounds")
        reads, unreadable = self.total("card reads"), self.total("unreadable")
        injected = self.total("injected unreadable")
        natural_reads = reads - injected
        by_test: dict[str, dict[str, int]] = {}
        for count, key in (("card reads", "total"), ("unreadable", "unreadable"), ("injected unreadable", "injected")):
            for test, n in self.counts.get(count, {}).items():
                by_test.setdefault(test, {"total": 0, "unreadable": 0, "injected": 0})[key] += n
        latency = {}
        for kind, values in sorted(self.latencies.items()):
            if values:
                sources = self.counts.get(f"latency {kind}", {})
                latency[kind] = {**distribution_ms(values), "by_test": sources,
                                 "explained": self.explanations.get(kind, "")}  # fmt: skip
        histograms = {
            k: {**h, "by_test": self.counts.get(f"latency {k}", {}), "explained": self.explanations.get(k, "")}
            for k, h in self.histograms.items()
        }
        return {
            "verdict": self.verdict(),
            "sign_off": self._sign_off(),
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
                "cards_dealt": cards,
                "dealing_s": round(self.dealing_s, 3),
                "cards_per_minute": round(cards / minutes, 1) if minutes else None,
                "rounds": rounds,
                "round_endings": dict(self.round_endings),
                "rounds_s": round(self.rounds_s, 3),
                "rounds_per_minute": round(rounds / round_minutes, 1) if round_minutes else None,
            },
            "reads": {
                "total": reads,
                "unreadable": unreadable,
                "injected_unreadable": injected,
                "natural_unreadable": unreadable - injected,
                "natural_error_rate": round((unreadable - injected) / natural_reads, 6) if natural_reads else None,
                "by_test": by_test,
            },
            "latency_ms": latency,
            "min_samples": dict(MIN_SAMPLES),
            "histograms_ms": histograms,
            "faults": {
                "injected": len(self.faults),
                "survived": sum(1 for f in self.faults if f.survived),
                "list": [asdict(f) for f in self.faults],
            },
            "counts": {name: {"meaning": COUNTS[name], "by_test": self.counts.get(name, {})} for name in COUNTS},
            "versions": {"shoe": self.shoe, "software": software_versions()},
            "tests": {"counts": self._outcome_counts(), "results": self.outcomes},
            "notes": self.notes,
        }

    def markdown(self, data: dict[str, Any] | None = None) -> str:
        from hil_tests.report_md import markdown

        return markdown(data or self.summary())

    def write(self, directory: Path) -> tuple[Path, Path]:
        directory.mkdir(parents=True, exist_ok=True)
        data = self.summary()
        json_path, md_path = directory / "report.json", directory / "report.md"
        json_path.write_text(json.dumps(data, indent=2, sort_keys=False, default=str) + "\n", encoding="utf-8")
        md_path.write_text(self.markdown(data), encoding="utf-8")
        return json_path, md_path
