"""``shoectl system install``: the shipped udev rules and unit copied under a root, each change reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shoe.cli.main import main
from shoe.system import shipped_file

RULES = "etc/udev/rules.d/60-card-shoe.rules"
UNIT = "etc/systemd/system/shoed.service"


def shoectl(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def actions(capsys: pytest.CaptureFixture[str], root: Path, *extra: str) -> dict[str, str]:
    code, out, err = shoectl(capsys, "system", "install", "--root", str(root), "--json", *extra)
    assert code == 0, err
    return {c["path"]: c["action"] for c in json.loads(out)["changes"]}


def test_first_install_creates_both_files_mode_0644(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert actions(capsys, tmp_path) == {"/" + RULES: "created", "/" + UNIT: "created"}
    assert (tmp_path / RULES).read_bytes() == shipped_file("rules").read_bytes()
    assert (tmp_path / UNIT).read_bytes() == shipped_file("unit").read_bytes()
    assert {(tmp_path / p).stat().st_mode & 0o777 for p in (RULES, UNIT)} == {0o644}
    assert actions(capsys, tmp_path) == {"/" + RULES: "unchanged", "/" + UNIT: "unchanged"}


def test_a_changed_file_or_mode_is_updated(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    actions(capsys, tmp_path)
    (tmp_path / RULES).write_text('ACTION=="add", MODE="0666"\n')
    (tmp_path / UNIT).chmod(0o666)
    assert actions(capsys, tmp_path) == {"/" + RULES: "updated", "/" + UNIT: "updated"}
    assert (tmp_path / RULES).read_bytes() == shipped_file("rules").read_bytes()
    assert (tmp_path / UNIT).stat().st_mode & 0o777 == 0o644


def test_a_link_in_the_targets_place_is_replaced_never_written_through(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep me\n")
    (tmp_path / RULES).parent.mkdir(parents=True)
    (tmp_path / RULES).symlink_to(victim)
    assert actions(capsys, tmp_path, "--only", "rules") == {"/" + RULES: "updated"}
    assert victim.read_text() == "keep me\n" and not (tmp_path / RULES).is_symlink()


def test_dry_run_changes_nothing(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = shoectl(capsys, "system", "install", "--root", str(tmp_path), "--dry-run")
    assert code == 0 and "would be created" in out
    assert not (tmp_path / "etc").exists()


def test_a_missing_root_is_a_usage_error_and_creates_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = shoectl(capsys, "system", "install", "--root", str(tmp_path / "typo"))
    assert code == 2 and "not a directory" in err
    assert not (tmp_path / "typo").exists()


def test_the_note_names_a_missing_release(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = shoectl(capsys, "system", "install", "--root", str(tmp_path), "--only", "unit")
    assert code == 0 and "note: the unit starts /opt/shoed/current/bin/shoed" in out


def test_files_lists_the_shipped_copies(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = shoectl(capsys, "system", "files", "--json")
    files = json.loads(out)["files"]
    assert code == 0 and Path(files["rules"]["shipped"]).is_file() and files["unit"]["target"] == "/" + UNIT
