"""``shoectl report`` on real journals: seeded rounds played by the service's round code
(tests/math/soak_journal.py) and the first release's journal; the real console script, real SQLite."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from shoe.cli.main import main
from shoe.journal import Journal
from tests.math.soak_journal import write_journal

SHOECTL = str(Path(sys.executable).with_name("shoectl"))
FIXTURE = Path(__file__).parents[1] / "journal" / "fixtures" / "release-0.1.0-ac0bba9.sqlite"
ROUNDS = 400
CHEATER = 3


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SHOECTL, "report", *args], check=False, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "TZ": "UTC", **(env or {})})  # fmt: skip


def _inproc(*args: str) -> str:
    """``shoectl report`` in this process (the same main(); the PAR tables are computed once)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["report", *args]) == 0
    return buf.getvalue()


def _json(*args: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_inproc(*args, "--json"))
    return data


@pytest.fixture(scope="module")
def journals(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("report")
    return {
        "honest": write_journal(folder / "honest.sqlite", ROUNDS, seed=5),
        "cheat": write_journal(folder / "cheat.sqlite", ROUNDS, seed=5, cheater=CHEATER),
    }


@pytest.fixture
def release(tmp_path: Path) -> Path:
    copy = tmp_path / "release.sqlite"
    shutil.copy(FIXTURE, copy)
    copy.chmod(0o600)
    return copy


def test_a_seat_that_sees_the_next_community_card_is_flagged_and_honest_seats_are_not(journals) -> None:  # type: ignore[no-untyped-def]
    honest = _json("--journal", str(journals["honest"]), "--by", "seat")
    cheat = _json("--journal", str(journals["cheat"]), "--by", "seat")
    assert honest["total"]["rounds"] == cheat["total"]["rounds"] == ROUNDS
    assert [s["seat"] for s in honest["seats"] if s["flagged"]] == []
    assert all(s["test"]["deviations"] > 0 for s in honest["seats"])  # the noisy players did deviate
    assert [s["seat"] for s in cheat["seats"] if s["flagged"]] == [CHEATER]
    flagged = next(s for s in cheat["seats"] if s["seat"] == CHEATER)
    assert flagged["test"]["p_count"] < 1e-12 and flagged["test"]["z_gain"] > 3
    assert min(s["test"]["p_count"] for s in honest["seats"]) > honest["test"]["threshold"]


def test_the_hold_figures_are_the_journals_amounts(journals) -> None:  # type: ignore[no-untyped-def]
    data = _json("--journal", str(journals["honest"]), "--by", "table")
    total = data["total"]
    with Journal.open(journals["honest"]) as j:
        closed = [e.data for e in j.entries(kinds=["round-closed"])]
        antes = [w["ante"] for e in j.entries(kinds=["round-opened"]) for w in e.data["seats"].values()]
        bets = [e.data["record"]["amount"] for e in j.entries(kinds=["decision"]) if e.data["action"] == "decide"]
    nets = [s["net"] for c in closed for s in c["seats"].values()]
    handle = sum(antes) + sum(bets)
    assert total["house_win"] == -sum(nets) and total["seat_rounds"] == len(nets)
    assert total["house_won"] == -sum(n for n in nets if n < 0) and total["house_lost"] == sum(n for n in nets if n > 0)
    assert total["handle"] == handle
    assert total["hold_pct"] == pytest.approx(100 * total["house_win"] / handle)
    assert total["theo_optimal"] == pytest.approx(0.049148582 * sum(antes), abs=1)
    assert total["theo_observed"] > total["theo_optimal"]  # the noisy players give up EV
    assert abs(total["z_observed"]) < 4 and total["ev_given_up"] > 0
    assert [g["key"] for g in data["groups"]] == ["table-1", "table-2"]
    assert sum(g["house_win"] for g in data["groups"]) == total["house_win"]
    side = {s["bet"]: s for s in data["side_wagers"]}
    assert side["three-card-bonus"]["wagers"] > 0 and side["three-card-bonus"]["theo"] > 0
    for key in ("house_win", "handle"):  # side wagers are apart: not in the base game's figures
        assert total[key] == sum(g[key] for g in data["groups"])


def test_from_to_and_day_and_shift_groupings(journals, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("TZ", "UTC")  # shifts and days are local time
    time.tzset()
    # two tables, one round each every 90 s from 2026-11-02 06:00 UTC: 400 rounds = 200 x 90 s = 5 h
    data = _json("--journal", str(journals["honest"]), "--from", "2026-11-02T06:00", "--to", "2026-11-02T07:00")
    assert data["total"]["rounds"] == 80  # 40 slots of 90 s in the hour, two tables
    shifts = _json("--journal", str(journals["honest"]), "--by", "shift")
    assert [g["key"] for g in shifts["groups"]] == ["2026-11-02 day"]
    days = _json("--journal", str(journals["honest"]), "--by", "day", "--to", "2026-11-01")
    assert days["total"]["rounds"] == 0 and days["groups"] == []
    monkeypatch.setenv("TZ", "America/New_York")  # 06:00 UTC is 01:00 EST: the night shift of Nov 1st
    time.tzset()
    try:
        shifts = _json("--journal", str(journals["honest"]), "--by", "shift", "--to", "2026-11-02T06:01+00:00")
    finally:
        monkeypatch.undo()
        time.tzset()
    assert [g["key"] for g in shifts["groups"]] == ["2026-11-01 night"]


def test_the_first_releases_journal_reports_with_its_voids_irregularities_and_side_wagers(release: Path) -> None:
    data = _json("--journal", str(release), "--by", "seat")
    assert data["total"]["rounds"] == 4  # NY, PA, NJ and the unplugged round; the void and stud apart
    apart = data["apart"]
    assert apart["void_rounds"] == 1 and apart["returned"] == 1000
    assert apart["other_games"] == {"seven-card-stud": 1}
    assert apart["irregularities"] == {"void": 1, "paused": 1, "resumed": 1}
    assert {s["bet"] for s in data["side_wagers"]} == {"progressive", "three-card-bonus", "envy"}
    text = _run("--journal", str(release))
    assert text.returncode == 0 and "void rounds 1 (returned 1000)" in text.stdout


def test_text_md_and_csv_forms(journals) -> None:  # type: ignore[no-untyped-def]
    md = _inproc("--journal", str(journals["cheat"]), "--format", "md", "--by", "seat")
    assert "| seat 3 |" in md and "FLAGGED" in md
    rows = list(csv.reader(io.StringIO(_inproc("--journal", str(journals["cheat"]), "--format", "csv"))))
    flagged = [r for r in rows if r[0] == "seat" and r[-1] == "FLAGGED"]
    assert [r[1] for r in flagged] == [str(CHEATER)]
    text = _run("--journal", str(journals["cheat"])).stdout  # the console script, in its own process
    assert "FLAGGED" in text
    for card in ("As", "Kd", "7h"):  # amounts, counts and ids only: no card codes
        assert f" {card} " not in text


def test_bad_input_gets_a_usage_error_and_no_journal_exit_3(tmp_path: Path) -> None:
    for args in (["--alpha", "2"], ["--from", "yesterday"], ["--by", "hour"]):
        out = _run("--journal", str(tmp_path / "x.sqlite"), *args)
        assert out.returncode == 2 and "error" in out.stderr, args
    missing = _run("--journal", str(tmp_path / "none.sqlite"))
    assert missing.returncode == 3 and "no journal at" in missing.stderr
    assert not (tmp_path / "none.sqlite").exists()


def test_plots_without_matplotlib_say_how_to_install_it(release: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "block"
    (blocker / "matplotlib").mkdir(parents=True)
    (blocker / "matplotlib" / "__init__.py").write_text("raise ImportError('blocked for the test')\n")
    out = _run("--journal", str(release), "--plot", str(tmp_path / "plots"), env={"PYTHONPATH": str(blocker)})
    assert out.returncode == 2
    assert "--plot needs matplotlib" in out.stderr and "pip install -e '.[plot]'" in out.stderr


def test_plots_are_written(release: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    data = _json("--journal", str(release), "--plot", str(tmp_path / "plots"))
    names = sorted(Path(p).name for p in data["plots"])
    assert names == ["hold.png", "hold.svg", "outcomes.png", "outcomes.svg"]
    assert all(Path(p).stat().st_size > 1000 for p in data["plots"])
    assert (tmp_path / "plots" / "hold.png").read_bytes()[:4] == b"\x89PNG"


def test_the_report_does_not_write_to_the_journal(release: Path) -> None:
    before = sqlite3.connect(str(release)).execute("SELECT COUNT(*), MAX(seq) FROM entries").fetchone()
    _json("--journal", str(release))
    assert sqlite3.connect(str(release)).execute("SELECT COUNT(*), MAX(seq) FROM entries").fetchone() == before
