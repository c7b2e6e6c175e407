"""What a technician meets in the first hour, each tried as a new user would: where ``doctor`` looks for
the service, ``--json`` after any subcommand, the exit code of a misdeal and of a file that is not JSON,
the hint for a key path whose folder is missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shoe.cli.doctor import default_service_url
from shoe.cli.exit_codes import Exit
from shoe.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def shoectl(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_doctor_finds_the_service_where_shoed_http_moved_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SHOED_HTTP", "127.0.0.1:18470")
    assert default_service_url() == "http://127.0.0.1:18470"
    _, out, _ = shoectl(capsys, "doctor", "--json", "--rules-dir", str(tmp_path), "--journal", str(tmp_path / "j"))
    (service,) = [c for c in json.loads(out)["checks"] if c["name"] == "service"]
    assert "127.0.0.1:18470" in service["detail"] + service["fix"], service
    monkeypatch.delenv("SHOED_HTTP")
    assert default_service_url() == "http://127.0.0.1:8470"


@pytest.mark.parametrize("before", [True, False])
def test_json_after_the_subcommand_as_before_it(capsys: pytest.CaptureFixture[str], before: bool) -> None:
    argv = ["--port", "emu://?seed=7", "dispense", "--stacks", "2"]
    argv = ["--json", *argv] if before else [*argv, "--json"]
    code, out, _ = shoectl(capsys, *argv)
    assert code == 0 and len(json.loads(out)["stacks"]) == 2


@pytest.mark.parametrize(
    "argv",
    [["identify"], ["status"], ["counters"], ["devices"], ["events"], ["journal", "verify"], ["system", "files"]],
)
def test_json_after_every_subcommand_gives_one_document(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str]
) -> None:
    if argv[0] == "journal":
        argv = [*argv, "--journal", str(tmp_path / "none.sqlite")]
    _, out, _ = shoectl(capsys, *argv, "--json")
    assert isinstance(json.loads(out), dict)


def test_a_misdeal_exits_with_the_misdeal_code(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = shoectl(
        capsys, "play", str(EXAMPLES / "ny-mississippi-stud.json"), "--port", "emu://?unreadable_at=3"
    )
    assert code == Exit.MISDEAL == 15
    assert json.loads(out)["state"] == "misdeal"


def test_a_complete_round_still_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = shoectl(capsys, "play", str(EXAMPLES / "ny-mississippi-stud.json"))
    assert code == 0 and json.loads(out)["state"] == "complete"


@pytest.mark.parametrize("text", ['{"game": "mississippi-stud", "seats"', "", "\xff", "[1, 2"])
def test_a_file_that_is_not_json_is_an_input_error_not_a_rules_violation(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str
) -> None:
    script = tmp_path / "cut.json"
    script.write_bytes(text.encode("latin-1"))
    code, out, err = shoectl(capsys, "play", str(script))
    assert code == Exit.USAGE and "not JSON" in err and out == ""
    code, out, _ = shoectl(capsys, "--json", "play", str(script))
    assert code == Exit.USAGE and json.loads(out)["error"]["exit"] == Exit.USAGE


def test_keygen_into_a_missing_folder_says_to_create_it(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = shoectl(capsys, "release", "keygen", "--out", str(tmp_path / "missing" / "key"))
    assert code == Exit.USAGE
    assert "does not exist" in err and "mkdir" in err and "never overwritten" not in err
    assert not (tmp_path / "missing").exists()


def test_keygen_over_an_existing_key_still_refuses(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "key").write_text("old")
    code, _, err = shoectl(capsys, "release", "keygen", "--out", str(tmp_path / "key"))
    assert code == Exit.USAGE and "never overwritten" in err
    assert (tmp_path / "key").read_text() == "old"


def test_users_help_is_plain_text(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["users", "--help"])
    out = capsys.readouterr().out
    assert "``" not in out and "(issue" not in out and "add ID --name NAME" in out


def test_columns_are_as_wide_as_their_widest_cell() -> None:
    from shoe.cli.output import columns

    text = columns(
        ("round", "entries", "closed"), [("r-1", 5, "x"), ("a-much-longer-round-id", 12345, "-")], frozenset({1})
    )
    lines = text.splitlines()
    starts = {line.rindex(word) for line, word in zip(lines, ("closed", "x", "-"), strict=True)}
    assert len(starts) == 1  # the last column starts at the same place on every line
    assert lines[1].index(" 5 ") + 2 == lines[2].index("12345") + 5  # counts right-aligned: their ends line up


def test_journal_show_lines_up_long_round_ids(capsys: pytest.CaptureFixture[str]) -> None:
    from shoe.cli.journal import _rounds_text

    rounds = [
        {"round_id": "R1", "game": "mississippi-stud", "jurisdiction": "NY", "opened": "2026-12-02T00:00:00Z",
         "entries": 9, "closed": "complete"},
        {"round_id": "MS-04-20261202-000017", "game": "seven-card-stud", "jurisdiction": "NJ",
         "opened": "2026-12-02T00:00:00.123456+00:00", "entries": 120, "closed": None},
    ]  # fmt: skip
    lines = _rounds_text({"rounds": rounds, "journal": "j"}).splitlines()
    for column in ("game", "opened", "closed"):
        at = lines[0].index(column)
        assert all(line[at - 2 : at] == "  " and line[at] != " " for line in lines), (column, lines)


ORDER = "Qs5d8sJdQh5s8c4dKd3cAh3h2hKc7s9d9c4hAd7h2s6cTsJcTc2c2d3d3s4c4s5c5h6d6h6s7c7d8d8h9h9sTdThJhJsQcQdKhKsAcAs"


def _deck_file(tmp_path: Path, text: str, mode: int = 0o600) -> Path:
    path = tmp_path / "deck.txt"
    path.write_text(text)
    path.chmod(mode)
    return path


@pytest.mark.parametrize(
    "text",
    [
        ORDER,
        "# tonight's test order\n" + " ".join(ORDER[i : i + 2] for i in range(0, 104, 2)),
        ORDER[:50] + "\n" + ORDER[50:],
    ],
)
def test_the_deck_order_from_a_file_keeps_it_off_the_command_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str
) -> None:
    path = _deck_file(tmp_path, text)
    code, out, _ = shoectl(capsys, "--port", f"emu://?deck_file={path}", "--json", "dispense", "--stacks", "1")
    assert code == 0 and json.loads(out)["stacks"][0]["cards"] == ["Qs", "5d"]


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604])
def test_a_deck_file_others_may_read_is_refused_without_quoting_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, mode: int
) -> None:
    path = _deck_file(tmp_path, ORDER, mode)
    code, out, err = shoectl(capsys, "--port", f"emu://?deck_file={path}", "identify")
    assert code == Exit.USAGE and "chmod 600" in err and out == ""
    assert "Qs" not in err and "5d" not in err


def test_deck_and_deck_file_together_are_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = _deck_file(tmp_path, ORDER)
    code, _, err = shoectl(capsys, "--port", f"emu://?deck=AsKd&deck_file={path}", "identify")
    assert code == Exit.USAGE and "both name the order" in err
