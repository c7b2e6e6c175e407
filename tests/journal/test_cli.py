"""``shoectl journal``: verify, show, export; exit codes, --json, and re-verifying an export externally."""

from __future__ import annotations

import hashlib
import json
import re
import stat
from pathlib import Path
from typing import Any

import pytest

from shoe.cli.journal import JOURNAL_BAD, JOURNAL_UNAVAILABLE
from shoe.cli.main import main
from shoe.journal import Journal
from tests.journal import ROUND, attacker, build


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    return build(tmp_path / "j.sqlite", rounds=2)  # 55 entries


def external_hash(line: dict[str, Any]) -> str:
    """An auditor's own recomputation: sha256(prev_hash + canonical JSON of [seq, ts, kind, round_id, data])."""
    fields = [line["seq"], line["ts"], line["kind"], line["round_id"], line["data"]]
    body = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256((line["prev_hash"] + body).encode("utf-8")).hexdigest()


def test_verify_ok(capsys: pytest.CaptureFixture[str], journal: Path) -> None:
    code, out, _ = run(capsys, "journal", "verify", "--journal", str(journal))
    assert code == 0 and out.splitlines()[0] == "journal OK: 55 entries, chain intact"
    code, out, _ = run(capsys, "journal", "verify", "--journal", str(journal), "--json")
    data = json.loads(out)
    assert code == 0 and (data["ok"], data["checked"], data["last_seq"]) == (True, 55, 55)
    assert run(capsys, "--json", "journal", "verify", "--journal", str(journal))[1] == out


def test_verify_tampered_exit_10_names_the_first_bad_entry(capsys: pytest.CaptureFixture[str], journal: Path) -> None:
    with attacker(journal) as conn:
        conn.execute("UPDATE entries SET data = replace(data, '\"Kd\"', '\"Ks\"') WHERE seq = 5")
        conn.execute("DELETE FROM entries WHERE seq = 40")
    code, out, _ = run(capsys, "journal", "verify", "--journal", str(journal))
    assert code == JOURNAL_BAD == 10
    assert "journal BAD: entry 5: hash does not match its contents (edited?)" in out
    data = json.loads(run(capsys, "--json", "journal", "verify", "--journal", str(journal))[1])
    assert (data["ok"], data["first_bad_seq"], data["checked"], data["last_hash"]) == (False, 5, 4, None)


def test_missing_journal_exit_3_with_hint_and_nothing_created(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = tmp_path / "nowhere" / "journal.sqlite"
    for action in ("verify", "show", "export"):
        code, _, err = run(capsys, "journal", action, "--journal", str(missing))
        assert code == JOURNAL_UNAVAILABLE == 3
        assert f"no journal at {missing}" in err and "hint:" in err and "Traceback" not in err
    assert not missing.parent.exists()
    code, out, _ = run(capsys, "--json", "journal", "verify", "--journal", str(missing))
    assert code == 3 and json.loads(out)["error"]["exit"] == 3


def test_world_readable_journal_exit_3_names_the_fix(capsys: pytest.CaptureFixture[str], journal: Path) -> None:
    journal.chmod(0o644)
    code, _, err = run(capsys, "journal", "verify", "--journal", str(journal))
    assert code == 3 and f"chmod 600 {journal}" in err and "Traceback" not in err


def test_default_path_from_environment(
    capsys: pytest.CaptureFixture[str], journal: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHOED_JOURNAL", str(journal))
    assert run(capsys, "journal", "verify")[0] == 0
    monkeypatch.delenv("SHOED_JOURNAL")
    monkeypatch.setenv("XDG_STATE_HOME", str(journal.parent / "state"))
    code, _, err = run(capsys, "journal", "verify")
    assert code == 3 and str(journal.parent / "state" / "shoed" / "journal.sqlite") in err


def test_show_lists_rounds(capsys: pytest.CaptureFixture[str], journal: Path) -> None:
    code, out, _ = run(capsys, "journal", "show", "--journal", str(journal))
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["round", "game", "jur", "opened", "entries", "closed"]
    assert [line.split()[0] for line in lines[1:]] == ["R-0001", "R-0002"]
    assert lines[1].split()[1:3] == ["mississippi-stud", "NY"] and lines[1].split()[-2:] == ["26", "settled"]
    rounds = json.loads(run(capsys, "--json", "journal", "show", "--journal", str(journal))[1])["rounds"]
    assert [r["round_id"] for r in rounds] == ["R-0001", "R-0002"] and rounds[1]["first_seq"] == 29


def test_show_round_in_dealing_order(capsys: pytest.CaptureFixture[str], journal: Path) -> None:
    code, out, _ = run(capsys, "journal", "show", "--round", ROUND, "--journal", str(journal))
    assert code == 0
    assert [line.split()[:3] for line in out.splitlines() if re.match(r"^ +\d+  \S", line)][:3] == [
        ["1", "As", "Kd"],
        ["3", "7c", "7d"],
        ["5", "Qh", "Jh"],
    ]
    data = json.loads(run(capsys, "journal", "show", "--round", ROUND, "--journal", str(journal), "--json")[1])
    assert [s["seat"] for s in data["seats"]] == [1, 3, 5]
    assert [c["card"] for c in data["community"]] == ["Th", "2c", "9s"]
    assert data["integrity"] == {"ok": True, "first_bad_seq": None, "problem": None}


def test_show_unknown_round_is_a_usage_error(capsys: pytest.CaptureFixture[str], journal: Path) -> None:
    code, _, err = run(capsys, "journal", "show", "--round", "R-9999", "--journal", str(journal))
    assert code == 2 and "no round 'R-9999'" in err and "journal show" in err


def test_show_warns_and_exits_10_when_the_round_is_tampered(capsys: pytest.CaptureFixture[str], journal: Path) -> None:
    with attacker(journal) as conn:  # the link entry between round-opened and the first card, no round id
        conn.execute('UPDATE entries SET data = \'{"state":"down"}\' WHERE seq = 3')
    code, out, err = run(capsys, "journal", "show", "--round", ROUND, "--journal", str(journal))
    assert code == JOURNAL_BAD and "WARNING" in err and "entry 3" in err and "As Kd" in out
    assert run(capsys, "journal", "show", "--round", "R-0002", "--journal", str(journal))[0] == 0  # intact


def test_export_lines_verify_externally(capsys: pytest.CaptureFixture[str], journal: Path) -> None:
    code, out, _ = run(capsys, "journal", "export", "--journal", str(journal))
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(lines) == 55
    assert set(lines[0]) == {"seq", "ts", "kind", "round_id", "data", "prev_hash", "hash"}
    prev = "0" * 64
    for n, line in enumerate(lines, 1):
        assert line["seq"] == n and line["prev_hash"] == prev and external_hash(line) == line["hash"]
        prev = line["hash"]


def test_export_one_round_to_a_private_file(capsys: pytest.CaptureFixture[str], journal: Path) -> None:
    target = journal.parent / "R-0002.jsonl"
    code, out, _ = run(
        capsys, "journal", "export", "--round", "R-0002", "--output", str(target), "--journal", str(journal)
    )
    assert code == 0 and out.strip() == f"exported 26 entries to {target}"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    assert {line["round_id"] for line in lines} == {"R-0002"}
    assert all(external_hash(line) == line["hash"] for line in lines)
    code, _, err = run(capsys, "journal", "export", "--output", str(target), "--journal", str(journal))
    assert code == 2 and "already exists" in err  # an export is never overwritten
    code, _, _ = run(capsys, "journal", "export", "--round", "nope", "--journal", str(journal))
    assert code == 2


def test_verify_exit_10_on_a_round_closed_twice(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Two services on one journal: one voided a round the other then settled."""
    path = tmp_path / "two.sqlite"
    with Journal.open(path) as two:
        two.append("round-opened", {"game": "mississippi-stud"}, round_id="R1")
        two.append("round-closed", {"outcome": "void"}, round_id="R1")
        two.append("round-closed", {"outcome": "complete"}, round_id="R1")
    code, out, _ = run(capsys, "journal", "verify", "--journal", str(path))
    assert code == 10 and "round R1 is closed a second time after its closing at entry 2" in out
