"""The benchmarks' output: one short line per figure (at most 400
characters), each figure with its unit and, for a ratio, the reference it is against; every label
explained on a line of its own; a reference that is not installed says how to install it."""

from __future__ import annotations

import ast
import json
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
MAX_LINE = 400
UNITS = re.compile(
    r"\d[\d,.]*\s?(x|%|ms|s|B|MiB|KiB|evals/s|frames/s|rounds/s|rounds|commits/s|records|"
    r"events|cards|threads|wake-ups/s|examples/s|examples|ms/round|ms/event|connections|CPUs|requests)\b|\d\s?µs\b"
)
FIGURES = ("protocol.py", "hands.py", "service.py", "slowloris.py", "goals.py", "_goals_link.py", "_goals_games.py",
           "_goals_service.py", "report_load.py", "http_edge.py", "owner_cpu.py")  # fmt: skip


def _run(script: str, *args: str) -> list[str]:
    done = subprocess.run([sys.executable, str(BENCH / script), *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, check=True)  # fmt: skip
    return done.stdout.splitlines()


def _check(lines: list[str]) -> None:
    assert lines
    for line in lines:
        assert len(line) <= MAX_LINE, f"{len(line)} characters: {line}"
        label, sep, rest = line.partition(": ")
        if " = " in label:  # a legend: "label = meaning"
            continue
        assert sep and label, f"no 'label: ' at the start: {line}"
        if rest.startswith("skipped"):  # a reference not installed
            continue
        assert UNITS.search(rest), f"a figure without its unit: {line}"
        if re.search(r"\d\s?x\b", rest):
            assert re.search(r"\d\s?x (of |ours|the |[a-z])", rest), f"a ratio without its reference: {line}"


def test_http_edge_bench_lines() -> None:
    """Both servers started, driven from a client process and measured: each figure with its unit and reference."""
    lines = _run("http_edge.py", "--quick")  # 1,500 requests: enough for /proc's 10 ms ticks
    _check(lines)
    assert sum("server CPU per GET /v1/status" in line for line in lines) == 4, lines
    assert sum("most a two-seat round could save" in line for line in lines) == 2, lines


def test_owner_cpu_bench_splits_a_round_by_thread_item_and_part() -> None:
    """The probe inside the real shoed counted every action of the timed rounds (and none of the warm-up: the
    counts are per round exactly), the commits and the shoe's work; the text form's lines are figures."""
    rounds = 3
    data = json.loads("\n".join(_run("owner_cpu.py", "--rounds", str(rounds), "--json")))
    items = {name: row["calls_per_round"] for name, row in data["owner_items"].items()}
    expected = {"action open-round": 1, "action no-more-bets": 1, "action deal": 1, "action release-stub": 1,
                "action decide": 6, "action reveal": 3, "action settle": 1, "shoe DeckLoaded": 1}  # fmt: skip
    assert {name: items.get(name) for name in expected} == expected, items
    parts = data["owner_parts"]
    assert parts["shoe: dispense"]["calls_per_round"] == 2 and parts["shoe: scan"]["calls_per_round"] == 3
    assert parts["commit (Journal.write)"]["calls_per_round"] >= 13  # one an action at least
    assert "shoed-owner" in data["threads"] and "shoe-link" in data["threads"]
    assert data["threads"]["shoed-owner"]["user_ms"] > 0
    _check(_run("owner_cpu.py", "--rounds", "1"))


def test_protocol_bench_lines() -> None:
    _check(_run("protocol.py", "--quick"))


def test_goals_bench_lines_name_their_reference_and_goal() -> None:
    """The performance goals' table (docs/performance.md): each row a ratio against its reference, and its goal."""
    lines = _run("goals.py", "--quick", "--only", "link")
    _check(lines)
    rows = [line for line in lines if not line.startswith("goals context")]
    assert len(rows) == 7, lines
    # Every row but the exchange count is a ratio against a reference; every row but the MAC's cost has a goal.
    assert all(re.search(r"\d\.\d\dx ", line) for line in rows if not line.startswith("exchanges per")), rows
    assert all("goal" in line for line in rows if not line.startswith("MAC cost")), rows


def test_report_load_bench_gives_its_figures_against_their_references() -> None:
    """Whole-journal reads and start (docs/performance.md): each figure there, with its reference; no timing."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    lines = _run("report_load.py", "--quick", "--port", str(port))
    _check(lines)
    labels = [line.partition(": ")[0] for line in lines]
    for wanted in ("start, 0 entries", "start, 2,000 entries", "start, 4,000 entries", "summary rebuilt at start",
                   "deal under report load", "shoed RSS, max throughout"):  # fmt: skip
        assert wanted in labels, (wanted, lines)
    served = [line for line in lines if line.startswith("report answers during the loaded blocks: ")]
    assert served and "answered 200" in served[0], lines


def test_hands_bench_explains_its_labels_and_how_to_install_the_references() -> None:
    lines = _run("hands.py", "--quick")
    _check(lines)
    for label in {m[0] for line in lines if (m := re.match(r"[57]-card", line))}:
        assert any(line.startswith(f"{label} set = ") for line in lines), f"{label} is not explained: {lines}"
    assert not any(re.search(r"\d-card/\d", line) for line in lines)
    for line in (x for x in lines if "not installed" in x):
        assert "pip install -e '.[bench]'" in line, line


@pytest.mark.parametrize("script", FIGURES)
def test_every_bench_line_goes_through_the_one_printer(script: str) -> None:
    """No ``print`` of its own: ``bench._report`` prints, and refuses a line over 400 characters."""
    tree = ast.parse((BENCH / script).read_text(encoding="utf-8"))
    prints = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "print"]
    assert not prints, f"bench/{script} prints by itself on lines {prints}"


def test_the_printer_refuses_a_long_line_and_formats_a_ratio(capsys: pytest.CaptureFixture[str]) -> None:
    sys.path.insert(0, str(ROOT))
    from bench import _report

    _report.figure("decode card-read event (12 B)", 123456.0, "frames/s", vs=(128.6, "the 115,200-baud limit"))
    line = "decode card-read event (12 B): 123,456 frames/s = 128.60x the 115,200-baud limit\n"
    assert capsys.readouterr().out == line
    with pytest.raises(ValueError, match="400"):
        _report.say("x" * 401)
    _report.skipped("treys", "not installed")
    assert capsys.readouterr().out == "treys: skipped: not installed; pip install -e '.[bench]' adds it\n"
