"""``shoectl math``: the PAR sheet in every format, paytables checked as a real table checks them."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from shoe.cli.exit_codes import Exit
from shoe.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
SHOECTL = str(Path(sys.executable).with_name("shoectl"))


@pytest.fixture(autouse=True)
def _cache_in_tmp(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Never the user's own cache: every test gets an empty one."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["math", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_default_sheet_is_the_ny_minimum_table_with_the_published_figures(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys)
    assert code == 0
    assert "4.9149% of the ante (53223/1082900)" in out
    assert "3.5898 antes" in out and "1.3691%" in out
    assert "155,937,600" in out and "fold-5th" in out and "pair-6s-to-10s        push" in out


def test_json_holds_every_outcome_and_the_strategy(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--format", "json", "--strategy")
    d = json.loads(out)
    assert code == 0 and d["house_edge"]["exact"] == "53223/1082900"
    assert sum(o["deals"] for o in d["outcomes"]) == d["deals"] == 155_937_600
    assert [len(t["rows"]) for t in d["strategy"]["streets"]] == [169, 1755, 16432]
    assert d["strategy"]["grid_3rd"]["rows"][0][0] == "3x"  # a pair of aces: 3x


def test_csv_and_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["outcome", "pays", "deals", "probability", "contribution"] and len(rows) == 16
    _, out, _ = run(capsys, "--format", "csv", "--strategy", "--street", "3rd")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["street", "cards", "wagered", "action"] and len(rows) == 170
    _, out, _ = run(capsys, "--format", "md")
    assert "| outcome | pays | deals | probability | contribution |" in out


def test_ties_prefer_fold_bets_less_for_the_same_edge(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "--format", "json", "--ties", "prefer-fold")
    d = json.loads(out)
    assert d["house_edge"]["exact"] == "53223/1082900" and round(d["average_total_wager"]["value"], 4) == 3.4836


def test_a_table_below_the_ny_floor_is_refused_naming_the_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\n[pays]\nroyal-flush = 400\nstraight-flush = 100\n')
    code, out, err = run(capsys, "--paytable", str(bad))
    assert code == Exit.RULES and out == ""
    assert "royal-flush pays 400 to 1, below the minimum 500 to 1" in err and "hint:" in err


def test_pa_refuses_any_other_table_and_a_better_ny_table_is_analysed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    better = tmp_path / "better.toml"
    pays = "royal-flush = 500\nstraight-flush = 100\nfour-of-a-kind = 40\nfull-house = 10\nflush = 6\n"
    pays += "straight = 5\nthree-of-a-kind = 3\ntwo-pair = 2\npair-jacks-or-better = 1\npair-6s-to-10s = 0\n"
    better.write_text(f'name = "straights-5"\n[pays]\n{pays}')
    code, _, err = run(capsys, "--jurisdiction", "PA", "--paytable", str(better))
    assert code == Exit.RULES and "fixed" in err
    code, out, _ = run(capsys, "--paytable", str(better), "--format", "json")
    assert code == 0 and round(json.loads(out)["house_edge"]["value"] * 100, 4) == 3.7591


def test_a_play_script_s_table_and_its_jurisdiction(capsys: pytest.CaptureFixture[str]) -> None:
    script = str(ROOT / "examples" / "nj-mississippi-stud.json")
    code, out, _ = run(capsys, "--paytable", script, "--format", "json")
    d = json.loads(out)
    assert code == 0 and d["jurisdiction"] == "NJ" and d["paytable"]["pays"]["flush"] == 8
    code, _, err = run(capsys, "--paytable", script, "--jurisdiction", "PA")
    assert code == Exit.USAGE and "is a NJ table, not PA" in err


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("royal-flush = [", "not valid TOML"),
        ("[pays]\nroyal-flushes = 500", "royal-flushes"),
        ("[pays]\nflush = -1", "flush"),
    ],
)
def test_a_malformed_paytable_file_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, needle: str
) -> None:
    path = tmp_path / "t.toml"
    path.write_text(text)
    code, out, err = run(capsys, "--paytable", str(path))
    assert code == Exit.USAGE and out == "" and needle in err
    code, _, err = run(capsys, "--paytable", str(tmp_path / "missing.toml"))
    assert code == Exit.USAGE and "cannot read" in err


def test_seven_card_stud_says_it_has_no_house_edge_and_is_seeded(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("--game", "seven-card-stud", "--players", "3", "--rounds", "500", "--seed", "4")
    code, first, _ = run(capsys, *argv)
    assert code == 0 and "no house edge" in first and "95% confidence" in first and "3 players" in first
    assert run(capsys, *argv)[1] == first
    with pytest.raises(SystemExit) as stop:
        main(["math", "--game", "seven-card-stud", "--players", "9"])
    assert stop.value.code == Exit.USAGE and "2 to 8" in capsys.readouterr().err


def test_help_teaches_the_figures_and_the_file_form() -> None:
    out = subprocess.run([SHOECTL, "math", "--help"], capture_output=True, text=True, timeout=60, check=True).stdout
    for needle in ("element of risk", "--ties", "prefer-bet", "[pays]", "pot game", "exit codes"):
        assert needle in out, needle


def test_side_wagers_and_leaks_are_printed_with_the_sheet(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("--side", "three-card", "--side", "progressive", "--progressive-table", "A", "--leaks", "community")
    code, _, err = run(capsys, *argv)
    assert code == Exit.USAGE and "NY tables offer no side wagers" in err and "--jurisdiction PA" in err
    code, out, _ = run(capsys, "--jurisdiction", "PA", *argv)
    assert code == 0
    assert "three-card-bonus (three-card-bonus-example): return 92.9050%, house edge 7.0950%" in out
    assert "break-even (rtp 100%) at $253,235.44 for a $1.00 wager" in out
    assert "first-community-early" in out and "+0.597808" in out
    code, _, err = run(capsys, "--jurisdiction", "PA", "--side", "progressive", "--meter", "jackpot=5")
    assert code == Exit.USAGE and "bad --meter 'jackpot=5'" in err


def test_the_sheet_is_cached_on_disk_by_what_decides_it(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, _ = run(capsys, "--format", "json")
    [entry] = (tmp_path / "cache" / "shoectl" / "math").glob("*.json")
    assert code == 0 and json.loads(entry.read_text())["house_edge"]["exact"] == "53223/1082900"
    marked = json.loads(entry.read_text())
    marked["house_edge"]["exact"] = "from-the-cache"
    entry.write_text(json.dumps(marked))
    assert json.loads(run(capsys, "--format", "json")[1])["house_edge"]["exact"] == "from-the-cache"
    assert json.loads(run(capsys, "--format", "json", "--no-cache")[1])["house_edge"]["exact"] == "53223/1082900"
    _, other, _ = run(capsys, "--format", "json", "--ties", "prefer-fold")  # another key, another entry
    assert len(list(entry.parent.glob("*.json"))) == 2 and json.loads(other)["ties"]["rule"] == "prefer-fold"


@pytest.mark.parametrize("damage", ["{not json", '{"cache_key": "someone else"}', "[]"])
def test_a_damaged_cache_entry_is_computed_again(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, damage: str
) -> None:
    run(capsys, "--format", "json")
    [entry] = (tmp_path / "cache" / "shoectl" / "math").glob("*.json")
    entry.write_text(damage)
    code, out, _ = run(capsys, "--format", "json")
    assert code == 0 and json.loads(out)["house_edge"]["exact"] == "53223/1082900"
    assert json.loads(entry.read_text())["house_edge"]["exact"] == "53223/1082900"
