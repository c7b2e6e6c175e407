"""A round cut short still prints its record, and ``--json`` always prints
exactly one JSON document, ``{"error": ...}`` included.

- A jam during ``play`` voids the round: the record (state, cards dealt, why) is on stdout and the
  exit code is the device fault's (8).
- A seven-card stud script whose actions do not fit the cards a real shoe deals (its order is not
  the script's) is void with a record (exit 9); when the shoe's order is known before dealing (an
  emulator with its own ``seed`` or ``deck``), the script is checked against it and not one card is
  dispensed.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from drivers.emulator import EmulatedShoe, EmulatorConfig, serve_tcp
from protocols.cards import ALL_CODES
from shoe.cli.exit_codes import Exit

from . import EXAMPLES, example, outcomes, play, shoectl


def _one_document(out: str) -> dict:
    assert out.count("\n") == 1, out
    data = json.loads(out)
    assert isinstance(data, dict)
    return data


def test_json_play_of_a_bad_script_prints_one_error_document(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    script = example("ny-mississippi-stud")
    script["seats"]["1"]["decisions"] = [4, 1, 1]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(script))
    code, out, err = shoectl(capsys, "--json", "play", str(path))
    assert code == Exit.RULES
    error = _one_document(out)["error"]
    assert error["exit"] == Exit.RULES and "decisions[0]" in error["message"] and error["hint"]
    assert "decisions[0]" in err


def test_json_play_of_an_unreadable_file_prints_one_error_document(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = shoectl(capsys, "--json", "play", str(tmp_path / "missing.json"))
    assert code == Exit.USAGE and _one_document(out)["error"]["exit"] == Exit.USAGE


def test_json_usage_error_prints_one_error_document(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        shoectl(capsys, "--json", "play")
    out, _ = capsys.readouterr()
    assert stop.value.code == Exit.USAGE
    assert _one_document(out)["error"]["kind"] == "usage"


def test_a_jam_during_play_prints_the_void_record(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # card 5: seat 3's first card (seats 1 and 2 got theirs); the jam cuts the round short.
    code, out, err = play(capsys, tmp_path, "ny-mississippi-stud", "--port", "emu://?jam_at=5")
    assert code == Exit.DEVICE_FAULT, err
    data = _one_document(out)
    assert data["state"] == "misdeal" and data["dealing_order"] == [1, 2]
    assert data["seats"]["1"]["cards"] and data["seats"]["2"]["cards"]
    assert set(outcomes(data).values()) == {"void"}
    assert data["misdeal"]["cause"] == "other" and "JAM" in data["misdeal"]["detail"]
    assert data["error"]["exit"] == Exit.DEVICE_FAULT and "JAM" in data["error"]["message"]
    assert data["shoe"]["stacks"] == 2
    assert "JAM" in err


def test_a_jam_during_json_play_is_still_one_document(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = str(EXAMPLES / "nj-seven-card-stud.json")
    code, out, _ = shoectl(capsys, "--json", "play", path, "--port", "emu://?jam_at=6")
    assert code == Exit.DEVICE_FAULT
    data = _one_document(out)
    assert data["state"] == "misdeal" and data["error"]["exit"] == Exit.DEVICE_FAULT
    assert sum(len(s["cards"]) for s in data["seats"].values()) == 5


def _other_order() -> list[str]:
    """A real shoe's order: a shuffled deck, not the script's (the bring-in and who acts differ)."""
    codes = list(ALL_CODES)
    random.Random(12).shuffle(codes)
    return codes


def test_stud_script_that_does_not_fit_a_real_shoe_is_void_with_a_record(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    shoe = EmulatedShoe(EmulatorConfig(deck=tuple(_other_order())))
    try:
        with serve_tcp(shoe, "127.0.0.1", 0) as server:
            host, port = server.address
            code, out, err = play(capsys, tmp_path, "nj-seven-card-stud", "--port", f"socket://{host}:{port}")
    finally:
        shoe.close()
    assert code == Exit.RULES, err
    data = _one_document(out)
    assert data["state"] == "misdeal" and set(outcomes(data).values()) == {"void"}
    assert all(row["net"] == 0 for row in data["seats"].values())
    assert data["misdeal"]["returned"] == sum(row["contributed"] for row in data["seats"].values())
    assert "actions[" in data["misdeal"]["detail"] and "actions[" in data["error"]["message"]
    assert data["shoe"]["cards_dispensed"] > 0  # the order could not be known before dealing
    assert "actions[" in err


@pytest.mark.parametrize("port", ["emu://?seed=12", "emu://?deck=" + "".join(_other_order())])
def test_stud_script_is_checked_against_an_emulators_known_order_before_any_card(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, port: str
) -> None:
    code, out, err = play(capsys, tmp_path, "nj-seven-card-stud", "--port", port)
    assert code == Exit.RULES, err
    assert out == ""  # nothing was dealt: there is no round to record
    assert "actions[" in err and "before dealing" in err
