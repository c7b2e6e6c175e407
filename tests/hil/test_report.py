"""The HIL bench report a lab signs off.

Before: p99 on 3 samples, a read-error rate of 0 although an unreadable card was injected, 20 rounds but
19 settles with no word why, and no field for who ran and witnessed the run. Now: a percentile only with
enough samples (hil_tests/README.md, Percentiles), else n, min, median and max; injected unreadable cards
counted apart from natural read errors; every count explained; operator, witness, bench id and the
shoe's serial, "unsigned" where one is missing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hil_tests.bench import port_bench
from hil_tests.report import MIN_SAMPLES, Report, SignOff
from tests.hil.support import run_hil


def report(**sign: str) -> Report:
    return Report(port_bench("/dev/cardshoe"), "/dev/cardshoe", sign_off=SignOff(**sign))


def test_percentiles_need_enough_samples() -> None:
    r = report()
    r.current_test = "t::three"
    for ms in (3.0, 1.0, 2.0):
        r.latency("scan", ms / 1000)
    for ms in range(1, 101):
        r.latency("dispense", ms / 1000)
    few, many = r.summary()["latency_ms"]["scan"], r.summary()["latency_ms"]["dispense"]
    assert (few["n"], few["min"], few["median"], few["max"]) == (3, 1.0, 2.0, 3.0)
    assert few["p90"] is few["p95"] is few["p99"] is None
    assert (many["p90"], many["p95"], many["p99"]) == (90.0, 95.0, 99.0)
    assert MIN_SAMPLES == {"p90": 10, "p95": 20, "p99": 100}
    row = next(line for line in r.markdown().splitlines() if line.startswith("| scan |"))
    assert "3.0" in row and "99" not in row.split("|")[-2], row
    assert "3 samples from `t::three`" in r.markdown()


def test_injected_unreadable_cards_are_counted_apart_from_natural_read_errors() -> None:
    r = report()
    r.current_test = "faults::unreadable"
    r.reads(6, 1, injected=1)
    r.current_test = "rounds::many"
    r.reads(200, 1)
    reads = r.summary()["reads"]
    assert (reads["total"], reads["injected_unreadable"], reads["natural_unreadable"]) == (206, 1, 1)
    assert reads["natural_error_rate"] == round(1 / 205, 6)
    assert reads["by_test"]["faults::unreadable"] == {"total": 6, "unreadable": 1, "injected": 1}
    md = r.markdown()
    assert "1 card made unreadable on purpose" in md
    with pytest.raises(ValueError, match="injected"):
        r.reads(2, 0, injected=1)


def test_round_endings_explain_why_settles_are_fewer_than_rounds() -> None:
    r = report()
    r.played(20, 1.0, {"settled": 19, "every seat folded": 1})
    assert r.summary()["throughput"]["round_endings"] == {"settled": 19, "every seat folded": 1}
    assert "19 settled, 1 every seat folded" in r.markdown()
    with pytest.raises(ValueError, match="endings"):
        r.played(2, 1.0, {"settled": 1})


def test_unsigned_report_says_so_and_names_what_is_missing() -> None:
    md = report(operator="Ana Ruiz").markdown()
    assert "**unsigned**" in md and "witness" in md and "--witness" in md and "--bench-id" in md
    assert "| operator | Ana Ruiz |" in md
    assert report().summary()["sign_off"]["signed"] is False


def test_a_whole_emulator_run_explains_its_counts_and_carries_the_sign_off(tmp_path: Path) -> None:
    run = run_hil(tmp_path / "out", "-k", "unreadable or rounds_reconcile or stacks_arrive or scan",
                  "--operator-name", "Ana Ruiz", "--witness", "B. Okafor", "--bench-id", "LAB-7")  # fmt: skip
    assert run.returncode == 0, run.output
    d = run.report
    assert d is not None
    assert d["verdict"]["passed"] is True
    reads = d["reads"]
    assert reads["injected_unreadable"] == 1, "the smudged card of test_faults is counted as injected"
    assert reads["natural_unreadable"] == 0 and reads["natural_error_rate"] == 0.0
    endings = d["throughput"]["round_endings"]
    assert sum(endings.values()) == d["throughput"]["rounds"]
    latency = d["latency_ms"]
    assert latency["shoed settle"]["n"] == endings.get("settled", 0)
    assert latency["ShoeClient scan"]["p99"] is None, "3 scans are too few for a p99"
    assert all(v["explained"] for v in latency.values()), latency
    sign = d["sign_off"]
    signed = (sign["operator"], sign["witness"], sign["bench_id"], sign["signed"])
    assert signed == ("Ana Ruiz", "B. Okafor", "LAB-7", True)
    assert sign["shoe_serial"] == d["versions"]["shoe"]["serial"] == "EMU0001"
    assert "unsigned" not in run.markdown and "| witness | B. Okafor |" in run.markdown


def test_a_blank_sign_off_field_is_a_usage_error(tmp_path: Path) -> None:
    run = run_hil(tmp_path / "out", "--witness", "  ")
    assert run.returncode == 4, run.output  # pytest's usage error, before any shoe is touched
    assert "--witness" in run.output and "printable characters" in run.output
    assert run.report is None
