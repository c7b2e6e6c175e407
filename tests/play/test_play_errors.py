"""Illegal scripts: exit 9 (Exit.RULES), a message naming the problem and its JSON path, nothing on stdout.

The dry run on the script's own list means no card leaves the shoe for an illegal script either.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from shoe.cli.exit_codes import Exit

from . import example, play, shoectl

Edit = Callable[[dict[str, Any]], None]


def _set(path: tuple[Any, ...], value: Any) -> Edit:
    def edit(script: dict[str, Any]) -> None:
        target = script
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return edit


def _truncate(n: int) -> Edit:
    return lambda script: script.update(shoe=script["shoe"][:n])


def _duplicate(script: dict[str, Any]) -> None:
    script["shoe"][20] = script["shoe"][0]


MISSISSIPPI_CASES = {
    "4x bet": (
        _set(("seats", "2", "decisions", 0), 4),
        ['seats["2"].decisions[0]', "4 is not a legal multiple", "use 1, 2 or 3, or 0 to fold", "NY 5324.38(e)(1)"],
    ),
    "unknown card": (_set(("shoe", 5), "Zz"), ["shoe[5]", "unknown card 'Zz'", "23456789TJQKA"]),
    "duplicated card": (_duplicate, ["shoe[20]", "duplicated card 'As'", "also at shoe[0]"]),
    "decision after fold": (
        _set(("seats", "3", "decisions"), [0, 1]),
        ['seats["3"].decisions[1]', "seat 3, which folded on 3rd street", "remove the decisions after it"],
    ),
    "too few cards": (_truncate(12), ["shoe: 12 cards listed, too few", "52"]),
    "too few decisions": (_set(("seats", "2", "decisions"), [1, 1]), ['seats["2"].decisions', "no fold"]),
    "ante off the table": (_set(("seats", "2", "ante"), 100), ['seats["2"]', "500 to 50000", "NY 5324.38(c)(2)"]),
    "seat off the table": (_set(("seats", "7"), {"ante": 500, "decisions": [0]}), ['seats["7"]', '"1" to "6"']),
    "unknown key": (_set(("seats", "1", "bet"), 3), ['seats["1"]', "unknown key 'bet'"]),
    "unknown game": (_set(("game",), "poker"), ["game", "'poker'", "mississippi-stud"]),
    "side wager not offered": (
        _set(("seats", "1", "side"), {"progressive": 100}),
        ['seats["1"]', "progressive is not offered here"],
    ),
}


@pytest.mark.parametrize("case", sorted(MISSISSIPPI_CASES))
def test_illegal_mississippi_script(capsys: pytest.CaptureFixture[str], tmp_path: Path, case: str) -> None:
    edit, words = MISSISSIPPI_CASES[case]
    script = example("ny-mississippi-stud")
    edit(script)
    code, out, err = play(capsys, tmp_path, script)
    assert (code, out) == (Exit.RULES, "")
    assert err.startswith("shoectl: error: ")
    for word in words:
        assert word in err, (word, err)


STUD_CASES = {
    "too few cards": (_truncate(20), ["shoe: too few cards", "lists 20 cards", "seat 1 up, 6th street"]),
    "unknown card": (_set(("shoe", 3), "1s"), ["shoe[3]", "unknown card '1s'"]),
    "duplicated card": (_set(("shoe", 14), "Qs"), ["shoe[14]", "duplicated card 'Qs'"]),
    "decision after fold": (
        _set(("actions", 7), [2, "raise", 400]),
        ["actions[7]", "seat 2, which has folded", "N.J.A.C. 13:47-20.35(g)"],
    ),
    "wrong amount": (_set(("actions", 7), [4, "raise", 800]), ["actions[7]", "400 (fixed limit), not 800"]),
    "out of turn": (_set(("actions", 1), [1, "call", 100]), ["actions[1]", "seat 1", "seat 4 is to act"]),
    "unknown action": (_set(("actions", 0), [2, "shove", 100]), ["actions[0]", "unknown action 'shove'"]),
    "left-over action": (
        lambda s: s["actions"].extend([[4, "check"], [1, "check"], [4, "check"], [1, "check"], [4, "check"]]),
        ["actions[15]", "the hand is over", "remove it"],
    ),
    "one player": (_set(("seats",), [1]), ["seats", "at least two players"]),
    "bring-in above the small bet": (_set(("table", "bring_in"), 300), ["table", "bring_in 300"]),
}


@pytest.mark.parametrize("case", sorted(STUD_CASES))
def test_illegal_stud_script(capsys: pytest.CaptureFixture[str], tmp_path: Path, case: str) -> None:
    edit, words = STUD_CASES[case]
    script = example("nj-seven-card-stud")
    edit(script)
    code, out, err = play(capsys, tmp_path, script)
    assert (code, out) == (Exit.RULES, "")
    for word in words:
        assert word in err, (word, err)


def test_pa_five_card_bonus_needs_the_table_system(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    script = example("pa-mississippi-stud")
    del script["table_system"]["magic_card"]
    code, out, err = play(capsys, tmp_path, script)
    assert (code, out) == (Exit.RULES, "") and "magic_card" in err and "Five Card" in err


def test_pa_bad_payout_names_its_path(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    script = example("pa-mississippi-stud")
    script["table"]["side"]["three_card"]["pair"] = "one to one"
    code, out, err = play(capsys, tmp_path, script)
    assert (code, out) == (Exit.RULES, "") and "table.side.three_card[...]" in err and '"40 to 1"' in err


def test_not_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"game": ')
    code, out, err = shoectl(capsys, "play", str(path))
    assert (code, out) == (Exit.USAGE, "") and "not JSON" in err  # bad input, not a rules violation


def test_missing_file_is_a_usage_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = shoectl(capsys, "play", str(tmp_path / "nowhere.json"))
    assert (code, out) == (Exit.USAGE, "") and "cannot read script" in err


# The typed values the HTTP edge checks (shoe/service/api/requests.py) are checked in scripts the same way.
TYPED_CASES = {
    "magic card not a card": (("table_system", "magic_card"), "Zz", ["table_system.magic_card", "card code"]),
    "magic card a list": (("table_system", "magic_card"), ["2c"], ["table_system.magic_card", "expected `str"]),
    "lucky seat off the table": (("table_system", "lucky_seat"), 0, ["table_system.lucky_seat", ">= 1"]),
    "meter not whole cents": (("table_system", "meters", "meter"), 12.5, ["table_system.meters", "`int`"]),
}


@pytest.mark.parametrize("case", sorted(TYPED_CASES))
def test_a_mistyped_table_system_value_names_its_path(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, case: str
) -> None:
    where, value, words = TYPED_CASES[case]
    script = example("pa-mississippi-stud")
    _set(where, value)(script)
    code, out, err = play(capsys, tmp_path, script)
    assert (code, out) == (Exit.RULES, ""), err
    for word in words:
        assert word in err, (word, err)


@pytest.mark.parametrize("text", ["NaN", "Infinity", '"\\ud800"'])
def test_a_script_is_strict_json(capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str) -> None:
    script = json.dumps(example("pa-mississippi-stud")).replace('"lucky_seat": 2', f'"lucky_seat": {text}')
    path = tmp_path / "script.json"
    path.write_text(script)
    code, out, err = shoectl(capsys, "play", str(path))
    assert (code, out) == (Exit.USAGE, ""), err  # not JSON: bad input, not a rules violation
    assert "not JSON" in err or "surrogate" in err, err
