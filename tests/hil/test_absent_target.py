"""A shoe that is absent or does not answer fails the HIL run.

Before, ``pytest hil_tests --shoe /dev/cardshoe`` with nothing plugged in reported "17 skipped" and exit
0, with a report that read like a run. Now the run fails (exit non-zero), its report says the target was
not reached, and the only skips are the tests whose features the bench file says the shoe lacks (or that
the bench does not allow: destructive ones).
"""

from __future__ import annotations

import socket
from pathlib import Path

from tests.hil.support import Run, hardware_bench, run_hil

BENCH_SKIPS = ("needs ", "destructive ")
"""The skip reasons a bench file gives (hil_tests/conftest.py): a missing feature, or destructive = false."""


def assert_failed_for_the_target(run: Run, port: str) -> None:
    assert run.returncode != 0, run.output
    assert run.report is not None, f"no report written:\n{run.output}"
    verdict = run.report["verdict"]
    assert verdict["passed"] is False and verdict["target_reached"] is False
    assert port in verdict["problem"]
    assert "FAILED" in run.markdown and "not reached" in run.markdown
    results = run.report["tests"]["results"].values()
    skipped = [r["reason"] for r in results if r["outcome"] == "skipped"]
    assert all(reason.startswith(BENCH_SKIPS) for reason in skipped), skipped
    assert [r for r in results if r["outcome"] == "error"], "the tests that need the shoe must not pass or skip"
    assert "passed" not in run.report["tests"]["counts"]


def test_a_missing_device_fails_the_run_and_the_report_says_so(tmp_path: Path) -> None:
    port = str(tmp_path / "cardshoe")  # nothing there, like /dev/cardshoe with the shoe unplugged
    run = run_hil(tmp_path / "out", "--shoe", port)
    assert_failed_for_the_target(run, port)
    assert "no shoe at" in run.report["verdict"]["problem"] if run.report else False


def test_an_unreachable_socket_fails_the_run(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a loopback port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = f"socket://127.0.0.1:{probe.getsockname()[1]}"
    run = run_hil(tmp_path / "out", "--shoe", port)
    assert_failed_for_the_target(run, port)


def test_a_shoe_that_does_not_answer_fails_the_run(tmp_path: Path) -> None:
    with socket.socket() as silent:  # connections complete in the backlog; nothing ever replies
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = f"socket://127.0.0.1:{silent.getsockname()[1]}"
        run = run_hil(tmp_path / "out", "--shoe", port)
    assert_failed_for_the_target(run, port)
    assert "no reply to IDENTIFY" in run.report["verdict"]["problem"] if run.report else False


def test_only_the_features_the_bench_lacks_skip(tmp_path: Path) -> None:
    port = str(tmp_path / "cardshoe")
    bench = hardware_bench(tmp_path / "rig.toml", port, scan=True, deck_check=False)
    run = run_hil(tmp_path / "out", "--bench", str(bench))
    assert_failed_for_the_target(run, port)
    results = run.report["tests"]["results"] if run.report else {}
    scan = results["hil_tests/test_contract.py::test_stub_release_then_scan_reads_the_stub"]
    deck = results["hil_tests/test_contract.py::test_the_cards_that_left_the_shoe_are_the_ones_dealt"]
    assert scan["outcome"] == "error", "the bench says the shoe scans: the test must run, and fail"
    assert deck["outcome"] == "skipped" and deck["reason"].startswith("needs deck_check")
