"""bench/sim: the simulated table holds every invariant under every fault kind, catches each planted bug,
and gives the same journal for the same seed (docs/sim.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SIM = ROOT / "bench" / "sim"


def run_sim(tmp_path: Path, *args: str) -> tuple[int, dict]:
    proc = subprocess.run(
        [sys.executable, str(SIM), "--json", "--scratch", str(tmp_path), *args],
        check=False, capture_output=True, text=True, timeout=600, cwd=ROOT,
    )  # fmt: skip
    assert proc.stdout, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


@pytest.mark.parametrize("dealer", ["careful", "naive"])
def test_every_fault_kind_and_every_invariant_holds(tmp_path: Path, dealer: str) -> None:
    """The naive dealer asks the shoe again after any failed reveal: the service must refuse what is in doubt."""
    code, report = run_sim(tmp_path, "--rounds", "30", "--seed", "11", "--no-shrink", "--dealer", dealer)
    assert code == 0, report["failing"]
    assert all(report["invariants"].values())
    assert report["rounds"] == 30 and report["entries"] > 30 * 10
    assert sum(report["faults"].values()) > 0


@pytest.mark.parametrize(
    ("bug", "invariant"),
    [
        ("unjournaled-card", "cards-journaled-or-alarmed"),
        ("double-dispense", "no-double-dispense"),
        ("leak-hole-card", "no-unrevealed-card-in-output"),
    ],
)
def test_each_planted_bug_is_caught_with_its_invariant_named(tmp_path: Path, bug: str, invariant: str) -> None:
    code, report = run_sim(tmp_path, "--rounds", "3", "--seed", "5", "--faults", "none", "--inject-bug", bug)
    assert code == 1
    assert report["invariants"][invariant] is False
    assert invariant in report["failing"]
    assert len(report["shortest_steps"]) == 1  # shrunk to the one round that shows it


def test_same_seed_same_journal_other_seed_another(tmp_path: Path) -> None:
    first = run_sim(tmp_path, "--rounds", "8", "--seed", "3", "--no-shrink")[1]
    again = run_sim(tmp_path, "--rounds", "8", "--seed", "3", "--no-shrink")[1]
    other = run_sim(tmp_path, "--rounds", "8", "--seed", "4", "--no-shrink")[1]
    assert first["journal_sha256"] == again["journal_sha256"]
    assert first["faults"] == again["faults"]
    assert other["journal_sha256"] != first["journal_sha256"]


def test_the_scan_acted_on_twice_is_found_by_a_step_list_and_refused(tmp_path: Path) -> None:
    """A reveal whose SCAN took a card and whose card entry could not be committed (a full disk), asked again
    of the shoe: the soak's unexplained misread. The step list reproduced it on the service before
    ``scan-for-community`` (the naive dealer's second SCAN read the next card, journaled as the community
    card: the invariant false); now the rebuilt round refuses to ask the shoe again, and the dealer, told
    so, enters the card the reader left on the table."""
    steps = [{"deck": 2368324666, "seats": [[2, 1000]], "multiples": {"2": [2, 2, 1]},
              "faults": [["commit", 10, "disk-full"]], "hostile": {}}]  # fmt: skip
    path = tmp_path / "steps.json"
    path.write_text(json.dumps(steps))
    code, report = run_sim(tmp_path, "--steps", str(path), "--dealer", "naive", "--no-shrink")
    assert code == 0, report["failing"]
    assert report["invariants"]["community-card-is-stubs-next"] is True
    assert report["refusals"].get("scan-in-doubt", 0) >= 1  # the second SCAN was refused, not sent
    code, report = run_sim(tmp_path, "--steps", str(path), "--no-shrink")  # the careful dealer enters the card
    assert code == 0, report["failing"]
