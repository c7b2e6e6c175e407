"""The cards come from the shoe: a shoe served on TCP (``--port``), unreadable cards (void rounds),
device faults, and the emulator options of an ``emu://`` port."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drivers.client import ShoeClient
from drivers.emu_transport import EmulatorTransport
from drivers.emulator import EmulatedShoe, EmulatorConfig
from shoe.cli.exit_codes import Exit
from shoe.play import parse_script, play_on_shoe

from . import EXAMPLES, example, nets, outcomes, play, record, shoectl, tcp_shoe

EXAMPLE_NAMES = [
    "ny-mississippi-stud",
    "pa-mississippi-stud",
    "nj-mississippi-stud",
    "nj-seven-card-stud",
    "nj-seven-card-stud-short-deck",
]


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_port_on_tcp_gives_the_same_record(capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str) -> None:
    default = record(capsys, tmp_path, name)
    with tcp_shoe(example(name)["shoe"]) as url:
        assert record(capsys, tmp_path, name, "--port", url) == default


def test_global_port_before_the_command(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    default = record(capsys, tmp_path, "nj-mississippi-stud")
    with tcp_shoe(example("nj-mississippi-stud")["shoe"]) as url:
        code, out, _ = shoectl(capsys, "--port", url, "play", str(EXAMPLES / "nj-mississippi-stud.json"))
    assert code == 0 and json.loads(out) == default


def test_port_after_the_command_wins(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = str(EXAMPLES / "nj-mississippi-stud.json")
    code, out, _ = shoectl(capsys, "--port", "emu://?door_open=1", "play", path, "--port", "emu://")
    assert code == 0 and json.loads(out)["state"] == "complete"


def _client(deck: list[str], **options: object) -> ShoeClient:
    shoe = EmulatedShoe(EmulatorConfig(deck=tuple(deck), **options))  # type: ignore[arg-type]
    client = ShoeClient(EmulatorTransport(shoe, owns_shoe=True))
    client.connect()
    return client


def test_unreadable_stack_card_voids_the_mississippi_round() -> None:
    script = parse_script(example("ny-mississippi-stud"))
    with _client(list(script.shoe), unreadable_at=(3,)) as client:  # card 3: seat 2's first card
        data = play_on_shoe(script, client)
    assert data["state"] == "misdeal" and data["dealing_order"] == [1]
    assert set(outcomes(data).values()) == {"void"} and set(nets(data).values()) == {0}
    assert data["misdeal"]["cause"] == "unreadable-card" and "seat 2" in data["misdeal"]["detail"]
    assert data["misdeal"]["returned"] == 1000 + 500 + 500 + 2000 + 500
    assert data["settlement_order"] == [] and data["shoe"]["stacks"] == 2 and data["shoe"]["stub"] is None


def test_unreadable_community_card_returns_the_street_bets_too(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = record(capsys, tmp_path, "ny-mississippi-stud", "--port", "emu://?unreadable_at=11")
    assert data["state"] == "misdeal" and data["misdeal"]["cause"] == "unreadable-card"
    assert "community card 1" in data["misdeal"]["detail"]
    assert set(outcomes(data).values()) == {"void"} and set(nets(data).values()) == {0}
    # 3rd street was bet before the reveal failed: ante + 3rd-street bet back to each live seat.
    assert data["misdeal"]["returned_by_seat"] == {"1": 4000, "2": 1000, "3": 500, "5": 4000, "6": 2000}
    assert data["seats"]["1"]["bets"] == [3000] and data["community"] == []


def test_unreadable_card_voids_a_pa_round_and_returns_the_side_wagers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = record(capsys, tmp_path, "pa-mississippi-stud", "--port", "emu://?unreadable_at=8")
    assert data["misdeal"]["cause"] == "unreadable-card" and data["dealing_order"] == [1, 2, 4]
    side = data["seats"]["1"]["side"]
    assert set(side) == {"progressive", "three-card-bonus", "five-card-hand-bonus"}
    assert all(line["result"] == "void" and line["net"] == 0 for line in side.values())
    assert side["three-card-bonus"]["paid"] == 500
    assert data["misdeal"]["returned_by_seat"]["1"] == 500 + 100 + 500 + 500


def test_unreadable_card_voids_a_stud_hand(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = record(capsys, tmp_path, "nj-seven-card-stud", "--port", "emu://?unreadable_at=5")
    assert data["state"] == "misdeal" and data["misdeal"]["cause"] == "unreadable-card"
    assert "card 5" in data["misdeal"]["detail"] and "seat 1" in data["misdeal"]["detail"]
    assert set(outcomes(data).values()) == {"void"} and set(nets(data).values()) == {0}
    assert data["misdeal"]["returned_by_seat"] == {"1": 25, "2": 25, "4": 25, "6": 25}
    assert data["winners"] == [] and data["pot_shares"] == {} and data["bring_in"] is None


def test_a_shoe_with_other_cards_is_a_misdeal_not_a_crash(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The shoe at --port holds a different deck: the stud hand meets a card already dealt."""
    script = example("nj-seven-card-stud")
    deck = list(script["shoe"])
    deck[13] = deck[0]  # the 4th-street card for seat 1 repeats seat 1's first card
    with tcp_shoe(deck) as url:
        data = record(capsys, tmp_path, "nj-seven-card-stud", "--port", url)
    assert data["state"] == "misdeal" and data["misdeal"]["cause"] == "duplicate-card"
    assert data["misdeal"]["security_alert"] is True and set(nets(data).values()) == {0}


def test_device_fault_exits_with_its_code(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Before the first card there is no round to record; once cards are out, the void round's record
    is printed (tests/play/test_play_cut_short.py)."""
    code, out, err = play(capsys, tmp_path, "ny-mississippi-stud", "--port", "emu://?door_open=1")
    assert (code, out) == (Exit.DEVICE_FAULT, "") and "DOOR_OPEN" in err
    code, out, err = play(capsys, tmp_path, "nj-seven-card-stud", "--port", "emu://?jam_at=7")
    assert code == Exit.DEVICE_FAULT and "JAM" in err
    assert json.loads(out)["state"] == "misdeal" and json.loads(out)["error"]["exit"] == Exit.DEVICE_FAULT


def test_bad_emulator_option(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = play(capsys, tmp_path, "ny-mississippi-stud", "--port", "emu://?jam=3")
    assert (code, out) == (Exit.UNAVAILABLE, "") and "jam_at" in err


def test_log_names_no_card(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _out, err = shoectl(capsys, "--log-level", "info", "play", str(EXAMPLES / "ny-mississippi-stud.json"))
    assert code == 0 and "play_done" in err
    for card in ("As", "Ad", "Kh", "9s", "Qc", "Jh", "Tc"):
        assert f"'{card}'" not in err and f'"{card}"' not in err and f"={card}" not in err
