"""The SQLite journal: round trip, durability across kill -9, file mode, append-only, threads, two writers."""

from __future__ import annotations

import os
import signal
import sqlite3
import stat
import subprocess
import sys
import textwrap
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shoe.journal import GENESIS, Entry, Journal, JournalError, default_journal_path
from shoe.journal.store import stamp
from tests.journal import build

ROOT = Path(__file__).resolve().parents[2]


def test_append_read_round_trip(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.sqlite") as journal:
        assert journal.last() is None and journal.verify().ok and journal.verify().checked == 0
        first = journal.append("service", {"event": "started"})
        card = journal.append("card", {"seat": 1, "card": "As", "ñ": "ü"}, round_id="R1")
        assert (first.seq, first.prev_hash, first.round_id) == (1, GENESIS, None)
        assert (card.seq, card.prev_hash, card.round_id) == (2, first.hash, "R1")
        assert card.ts.endswith("Z") and len(card.ts) == len("2026-11-29T16:30:00.123456Z")
        assert list(journal.entries()) == [first, card]
        assert journal.last() == card
    with Journal.open(tmp_path / "j.sqlite") as again:  # and from a fresh connection
        assert list(again.entries()) == [first, card]


def test_data_comes_back_as_stored_json(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.sqlite") as journal:
        entry = journal.append("decision", {"cards": ("As", "Kd"), "nested": {"b": 1, "a": [1.5, None, True]}})
        assert entry.data == {"cards": ["As", "Kd"], "nested": {"a": [1.5, None, True], "b": 1}}
        assert next(journal.entries()) == entry


@pytest.mark.parametrize("data", [{"x": float("nan")}, {"x": {1, 2}}, {"x": object()}, {1: "a", "b": 2}])
def test_data_that_is_not_plain_json_is_refused_and_nothing_written(tmp_path: Path, data: dict[object, object]) -> None:
    with Journal.open(tmp_path / "j.sqlite") as journal:
        with pytest.raises(JournalError, match="plain JSON"):
            journal.append("decision", data)  # type: ignore[arg-type]
        assert journal.last() is None


def test_bad_kind_round_id_and_data_type_are_refused(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.sqlite") as journal:
        with pytest.raises(JournalError, match="kind"):
            journal.append("", {})
        with pytest.raises(JournalError, match="round_id"):
            journal.append("card", {}, round_id=7)  # type: ignore[arg-type]
        with pytest.raises(JournalError, match="mapping"):
            journal.append("card", [("a", 1)])  # type: ignore[arg-type]


def test_entries_filters_and_paging(tmp_path: Path) -> None:
    with Journal.open(build(tmp_path / "j.sqlite", rounds=30)) as journal:  # 811 entries: more than one page
        everything = list(journal.entries())
        assert [e.seq for e in everything] == list(range(1, journal.last().seq + 1))  # type: ignore[union-attr]
        assert len(everything) > 500
        one = list(journal.entries(round_id="R-0007"))
        assert {e.round_id for e in one} == {"R-0007"} and len(one) == 26
        cards = list(journal.entries(kinds="card"))
        assert {e.kind for e in cards} == {"card"} and len(cards) == 30 * 9
        assert [e.seq for e in journal.entries(after_seq=800)] == list(range(801, len(everything) + 1))
        assert list(journal.entries(kinds=())) == []
        opened = list(journal.entries(round_id="R-0002", kinds={"round-opened", "round-closed"}))
        assert [e.kind for e in opened] == ["round-opened", "round-closed"]


def test_rounds_summaries(tmp_path: Path) -> None:
    with Journal.open(build(tmp_path / "j.sqlite", rounds=2)) as journal:
        journal.append("round-opened", {"game": "seven-card-stud", "jurisdiction": "NJ"}, round_id="S-1")
        rounds = journal.rounds()
    assert [r["round_id"] for r in rounds] == ["R-0001", "R-0002", "S-1"]
    first = rounds[0]
    assert (first["first_seq"], first["last_seq"], first["entries"]) == (2, 28, 26)
    assert (first["game"], first["jurisdiction"], first["closed"]) == ("mississippi-stud", "NY", "settled")
    assert first["opened"].endswith("Z")
    assert (rounds[2]["game"], rounds[2]["closed"]) == ("seven-card-stud", None)


def test_durable_once_append_returns_even_under_kill_9(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    script = textwrap.dedent(
        """
        import sys, time
        from shoe.journal import Journal
        journal = Journal.open(sys.argv[1])
        for n in range(3):
            entry = journal.append("card", {"n": n, "card": "As"}, round_id="R1")
        print(entry.seq, entry.hash, flush=True)
        time.sleep(60)
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script, str(path)], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert proc.stdout is not None
        seq, digest = proc.stdout.readline().split()
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    with Journal.open(path) as journal:
        last = journal.last()
        assert last is not None and (last.seq, last.hash) == (int(seq), digest)
        assert journal.verify().ok


def test_created_mode_0600_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        path = build(tmp_path / "state" / "shoed" / "j.sqlite")
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    with Journal.open(path) as journal:
        journal.append("service", {})
        for side in path.parent.glob("j.sqlite-*"):  # the write-ahead log and shared memory follow the file
            assert stat.S_IMODE(side.stat().st_mode) & 0o077 == 0


@pytest.mark.parametrize("mode", [0o644, 0o604, 0o620])
def test_an_existing_file_open_to_others_is_refused_with_the_fix(tmp_path: Path, mode: int) -> None:
    path = build(tmp_path / "j.sqlite")
    path.chmod(mode)
    with pytest.raises(JournalError, match=f"chmod 600 {path}"):
        Journal.open(path)


def test_wal_and_schema(tmp_path: Path) -> None:
    path = build(tmp_path / "j.sqlite")
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(1,)]
    finally:
        conn.close()


@pytest.mark.parametrize(
    "statement", ["UPDATE entries SET data = '{}' WHERE seq = 2", "DELETE FROM entries WHERE seq = 3"]
)
def test_append_only_update_and_delete_raise(tmp_path: Path, statement: str) -> None:
    path = build(tmp_path / "j.sqlite")
    conn = sqlite3.connect(path)
    try:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(statement)
    finally:
        conn.close()
    with Journal.open(path) as journal:
        assert journal.verify().ok


def test_not_a_journal_is_refused(tmp_path: Path) -> None:
    (tmp_path / "text.sqlite").write_text("hello, not a database" * 20)
    (tmp_path / "text.sqlite").chmod(0o600)
    with pytest.raises(JournalError, match="pass the journal's path"):
        Journal.open(tmp_path / "text.sqlite")
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    other.chmod(0o600)
    with pytest.raises(JournalError, match="not a shoe journal"):
        Journal.open(other)
    conn = sqlite3.connect(other)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # left as it was
    conn.close()


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = build(tmp_path / "j.sqlite")
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("INSERT INTO schema_version VALUES (2)")
    conn.close()
    with pytest.raises(JournalError, match="schema version 2"):
        Journal.open(path)


def test_closed_journal_says_so(tmp_path: Path) -> None:
    journal = Journal.open(tmp_path / "j.sqlite")
    journal.close()
    journal.close()
    with pytest.raises(JournalError, match="closed"):
        journal.append("service", {})


def test_concurrent_appends_from_four_threads(tmp_path: Path) -> None:
    start = threading.Barrier(4)
    with Journal.open(tmp_path / "j.sqlite") as journal:

        def worker(n: int) -> list[Entry]:
            start.wait()
            return [journal.append("card", {"thread": n, "i": i}, round_id=f"T{n}") for i in range(50)]

        results: list[list[Entry]] = [[] for _ in range(4)]
        threads = [threading.Thread(target=lambda n=n: results[n].extend(worker(n))) for n in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        stored = list(journal.entries())
        assert [e.seq for e in stored] == list(range(1, 201))
        assert sorted((e for r in results for e in r), key=lambda e: e.seq) == stored
        assert [e.data["i"] for e in journal.entries(round_id="T2")] == list(range(50))
        assert journal.verify().ok and journal.verify().checked == 200


def test_two_writers_on_one_file_keep_one_chain(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal.open(path) as a, Journal.open(path) as b:
        for i in range(10):
            (a if i % 2 else b).append("service", {"i": i})
        assert a.verify().ok and b.last() == a.last() and a.last().seq == 10  # type: ignore[union-attr]


def test_default_journal_path() -> None:
    home = {"HOME": "/home/dealer"}
    assert default_journal_path({**home, "SHOED_JOURNAL": "/srv/j.sqlite"}) == Path("/srv/j.sqlite")
    assert default_journal_path({**home, "XDG_STATE_HOME": "/var/state"}) == Path("/var/state/shoed/journal.sqlite")
    assert default_journal_path(home) == Path("/home/dealer/.local/state/shoed/journal.sqlite")
    relative = {**home, "XDG_STATE_HOME": "state", "SHOED_JOURNAL": ""}  # relative: ignored, per the XDG spec
    assert default_journal_path(relative) == Path("/home/dealer/.local/state/shoed/journal.sqlite")


@settings(max_examples=300, deadline=None)
@given(st.datetimes(min_value=datetime(1000, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59, 999999)))
def test_commit_time_text_is_the_strftime_text(moment: datetime) -> None:
    """The commit's time is written without strftime; the text is the one the journal always stored."""
    aware = moment.replace(tzinfo=UTC)
    assert stamp(aware) == aware.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
