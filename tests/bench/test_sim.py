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


ROUND_64 = {"deck": 4172749198, "seats": [[5, 2500]], "multiples": {"5": [2, 1, 1]},
            "faults": [["dispense", 2, "unplug"], ["commit", 12, "power-cut-after"]], "hostile": {}}  # fmt: skip
"""Round 64 of the 10,000-round run of seed 1: the power went right after ``scan-for-community`` was committed,
so the rebuilt round refuses the shoe (``scan-in-doubt``) and the reader left no card on the table."""
ROUND_913 = {"deck": 2088553453, "seats": [[1, 500], [3, 500], [4, 2500], [5, 1000]],
             "multiples": {"1": [3, 1, 3], "3": [0, 2, 0], "4": [3, 1, 3], "5": [2, 1, 1]},
             "faults": [["commit", 3, "disk-full"], ["query", 1, "link-down"]], "hostile": {}}  # fmt: skip
"""Round 913 of that run: the commit after seat 1's stack failed (a full disk), the reconciliation's read-back
of that stack lost the link, and the dealer voided the paused round: two cards in no entry and no alarm."""


@pytest.mark.parametrize("dealer", ["careful", "naive"])
def test_a_scan_in_doubt_with_no_card_on_the_table_is_voided_with_an_alarm(tmp_path: Path, dealer: str) -> None:
    """Old code: the dealer was refused ``scan-in-doubt`` until the step budget ran out (the round never ended)."""
    path = tmp_path / "steps.json"
    path.write_text(json.dumps([ROUND_64]))
    code, report = run_sim(tmp_path, "--steps", str(path), "--no-shrink", "--dealer", dealer)
    assert code == 0, report["failing"]
    assert report["refusals"].get("scan-in-doubt") == 1  # told once, then the misdeal


def test_a_stack_the_shoe_moved_under_a_failed_reconciliation_is_alarmed_and_named(tmp_path: Path) -> None:
    """Old code: "cards journaled or alarmed" and "no double dispense" both failed on this one round."""
    path = tmp_path / "steps.json"
    path.write_text(json.dumps([ROUND_913]))
    code, report = run_sim(tmp_path, "--steps", str(path), "--no-shrink")
    assert code == 0, report["failing"]
    assert report["refusals"].get("recovery-failed") == 1  # the reconciliation did fail once


ROUND_1692 = {"game": "seven-card-stud", "deck": 2234628633, "seats": [[4, 0], [5, 0]],
              "choices": [547, 171, 962, 177, 621, 177, 973, 485, 163, 318, 60, 966, 551, 189, 541, 780, 517, 428, 5,
                          905, 771, 144, 720, 888, 846, 103, 337, 959, 12, 975, 476, 971, 375, 866, 381, 609, 248, 47,
                          641, 291, 280, 428, 440, 972, 88, 592, 569, 501, 500, 674, 519, 532, 83, 988, 913, 93, 327,
                          129, 289, 227],
              "faults": [["commit", 12, "power-cut-before"], ["dispense", 7, "phantom"]], "hostile": {}}  # fmt: skip
"""Round 1692 of 2,000 rounds of seed 1, shrunk: a phantom card in the 8th stack (the driver's cross-check
raised its alarm) and the power cut before the commit holding that alarm; the restart read the stack back
and resumed, the card the shoe moved unreported in no entry."""


def test_a_phantom_card_whose_alarm_a_power_cut_lost_voids_the_round_at_reconciliation(tmp_path: Path) -> None:
    """Old code: "cards journaled or alarmed" failed (the mechanism moved 16 cards, the journal held 15)."""
    path = tmp_path / "steps.json"
    path.write_text(json.dumps([ROUND_1692]))
    code, report = run_sim(tmp_path, "--steps", str(path), "--no-shrink")
    assert code == 0, report["failing"]
    assert report["faults"] == {"phantom": 1, "power-cut-before": 1}
