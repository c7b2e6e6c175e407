"""The receiving side (docs/floor.md, "The receiving side"): keyed entries, re-sends as no-ops, continuity
checked in the database, forks refused and alarmed, never merged; concurrent shippers cannot race it."""

from __future__ import annotations

import threading
from pathlib import Path

import psycopg
import pytest

from shoe.floor.client import FloorClient
from shoe.floor.migrate import LATEST, applied_version, migrate
from tests.floor.support import alarms, all_entries, copy_journal, journal_with, query, stored, table_url


def test_one_command_creates_the_schema_and_a_second_run_changes_nothing(floor_url: str) -> None:
    assert migrate(floor_url) == (LATEST, LATEST)  # the fixture ran it once already
    with psycopg.connect(floor_url) as conn:
        assert applied_version(conn) == LATEST
    versions = query(floor_url, "SELECT version, name FROM floor.schema_version ORDER BY version")
    assert versions[0] == (1, "floor")


def test_entries_are_stored_once_and_a_resend_is_a_no_op(floor_url: str, tmp_path: Path) -> None:
    url = table_url(floor_url, "T1", tmp_path / "j.sqlite")
    journal = journal_with(tmp_path / "j.sqlite", 6)
    entries = all_entries(journal)
    client = FloorClient(url)
    jid = entries[0].hash
    assert client.ship("T1", jid, entries[:4]).status == "ok"
    again = client.ship("T1", jid, entries)  # 1-4 again, 5-6 new: at-least-once on the wire
    assert (again.status, again.head_seq, again.head_hash) == ("ok", 6, entries[-1].hash)
    assert client.ship("T1", jid, entries[2:3]).status == "ok"
    assert stored(floor_url, "T1") == [(e.seq, e.hash) for e in entries]
    assert alarms(floor_url) == []


def test_a_batch_after_a_gap_is_refused_whole_and_names_the_missing_range(floor_url: str, tmp_path: Path) -> None:
    url = table_url(floor_url, "T1", tmp_path / "j.sqlite")
    entries = all_entries(journal_with(tmp_path / "j.sqlite", 8))
    client = FloorClient(url)
    client.ship("T1", entries[0].hash, entries[:3])
    got = client.ship("T1", entries[0].hash, entries[5:])
    assert got.status == "gap" and got.head_seq == 3
    assert got.detail == "entries 4 to 5 are missing: send from entry 4"
    assert [s for s, _ in stored(floor_url, "T1")] == [1, 2, 3]


def test_a_rewritten_journal_is_a_fork_refused_alarmed_and_never_merged(floor_url: str, tmp_path: Path) -> None:
    url = table_url(floor_url, "T1", tmp_path / "a.sqlite", tmp_path / "b.sqlite")
    journal = journal_with(tmp_path / "a.sqlite", 3)
    rewritten = copy_journal(journal, tmp_path / "b.sqlite")  # the same chain up to entry 3 ...
    journal_with(tmp_path / "a.sqlite", 2, start=3)
    journal_with(tmp_path / "b.sqlite", 2, start=3, round_id="R-other")  # ... then two different entries 4
    ours, theirs = all_entries(journal), all_entries(rewritten)
    assert ours[0].hash == theirs[0].hash and ours[3].hash != theirs[3].hash
    client = FloorClient(url)
    assert client.ship("T1", ours[0].hash, ours).status == "ok"
    refused = client.ship("T1", theirs[0].hash, theirs)
    assert refused.status == "fork" and refused.head_seq == 5
    assert "entry 4 arrived with hash" in (refused.detail or "") and "never merged" in (refused.detail or "")
    assert stored(floor_url, "T1") == [(e.seq, e.hash) for e in ours]
    assert [a for a, _ in alarms(floor_url, "T1")] == ["fork"]
    assert client.ship("T1", ours[0].hash, ours).status == "fork"  # a forked journal takes nothing more
    assert query(floor_url, "SELECT state FROM floor.journals") == [("forked",)]


def test_an_entry_whose_prev_hash_is_not_the_stored_head_is_a_fork(floor_url: str, tmp_path: Path) -> None:
    url = table_url(floor_url, "T1", tmp_path / "a.sqlite", tmp_path / "b.sqlite")
    journal = journal_with(tmp_path / "a.sqlite", 3)
    other = copy_journal(journal, tmp_path / "b.sqlite")
    journal_with(tmp_path / "b.sqlite", 2, start=3, round_id="R-x")
    ours, theirs = all_entries(journal), all_entries(other)
    client = FloorClient(url)
    client.ship("T1", ours[0].hash, ours[:2])
    # entry 3 of the other chain is the same; its entry 5 continues its own entry 4, not ours
    journal_with(tmp_path / "a.sqlite", 1, start=3)
    client.ship("T1", ours[0].hash, all_entries(journal))
    got = client.ship("T1", ours[0].hash, theirs[4:])
    assert got.status == "fork" and "does not continue the chain" in (got.detail or "")


def test_an_entry_whose_hash_does_not_match_its_contents_is_refused(floor_url: str, tmp_path: Path) -> None:
    from dataclasses import replace

    url = table_url(floor_url, "T1", tmp_path / "j.sqlite")
    entries = all_entries(journal_with(tmp_path / "j.sqlite", 3))
    edited = replace(entries[1], data={**entries[1].data, "jurisdiction": "PA"})
    got = FloorClient(url).ship("T1", entries[0].hash, [entries[0], edited])
    assert got.status == "bad-hash" and got.head_seq == 1
    assert [a for a, _ in alarms(floor_url)] == ["bad-hash"]


def test_a_replaced_journal_at_a_table_is_refused_and_alarmed_once(floor_url: str, tmp_path: Path) -> None:
    url = table_url(floor_url, "T1", tmp_path / "a.sqlite", tmp_path / "b.sqlite")
    first = all_entries(journal_with(tmp_path / "a.sqlite", 3))
    second = all_entries(journal_with(tmp_path / "b.sqlite", 5))
    client = FloorClient(url)
    client.ship("T1", first[0].hash, first)
    for _ in range(2):
        got = client.ship("T1", second[0].hash, second)
        assert got.status == "replaced" and got.head_seq == 3
    assert [a for a, _ in alarms(floor_url)] == ["journal-replaced"]
    assert len(stored(floor_url, "T1")) == 3


def test_concurrent_shippers_of_one_table_store_each_entry_once(floor_url: str, tmp_path: Path) -> None:
    url = table_url(floor_url, "T1", tmp_path / "j.sqlite")
    entries = all_entries(journal_with(tmp_path / "j.sqlite", 60))
    results: list[str] = []

    def ship() -> None:
        client = FloorClient(url)
        for i in range(0, 60, 7):
            results.append(client.ship("T1", entries[0].hash, entries[i : i + 9]).status)
        client.close()

    threads = [threading.Thread(target=ship) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert set(results) <= {"ok", "gap"}
    FloorClient(url).ship("T1", entries[0].hash, entries)
    assert stored(floor_url, "T1") == [(e.seq, e.hash) for e in entries]


def test_racing_forks_one_wins_the_other_is_refused(floor_url: str, tmp_path: Path) -> None:
    url = table_url(floor_url, "T1", tmp_path / "a.sqlite", tmp_path / "b.sqlite")
    base = journal_with(tmp_path / "a.sqlite", 2)
    other = copy_journal(base, tmp_path / "b.sqlite")
    journal_with(tmp_path / "a.sqlite", 20, start=2)
    journal_with(tmp_path / "b.sqlite", 20, start=2, round_id="R-b")
    a, b = all_entries(base), all_entries(other)
    FloorClient(url).ship("T1", a[0].hash, a[:2])
    barrier, got = threading.Barrier(2), {}

    def ship(name: str, entries: list) -> None:  # type: ignore[type-arg]
        client = FloorClient(url)
        client.head("T1", a[0].hash)  # connected before the barrier
        barrier.wait()
        got[name] = client.ship("T1", a[0].hash, entries[2:]).status

    threads = [threading.Thread(target=ship, args=(n, e)) for n, e in (("a", a), ("b", b))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(got.values()) == ["fork", "ok"]
    winner = a if got["a"] == "ok" else b
    assert stored(floor_url, "T1") == [(e.seq, e.hash) for e in winner]


@pytest.fixture
def roles(floor_url: str) -> dict[str, str]:
    """Login roles in the three groups (trust authentication: a URL names the user)."""
    base = floor_url.replace("postgresql://postgres@", "postgresql://{}@")
    names = {}
    for group in ("auditor", "pit"):
        user = f"t_{group}_{floor_url.rsplit('_', 1)[-1]}"
        query(floor_url, f'CREATE ROLE "{user}" LOGIN IN ROLE floor_{group}')
        names[group] = base.format(user)
    return names


def test_the_shipper_may_only_append_and_the_pit_sees_no_card_of_a_live_round(
    floor_url: str, roles: dict[str, str], tmp_path: Path
) -> None:
    roles["shipper"] = table_url(floor_url, "T1", tmp_path / "j.sqlite")
    entries = all_entries(journal_with(tmp_path / "j.sqlite", 4))  # round R-1 opened, 2 cards, still live
    assert FloorClient(roles["shipper"]).ship("T1", entries[0].hash, entries).status == "ok"
    for sql in ("SELECT * FROM floor.entries", "DELETE FROM floor.entries", "SELECT * FROM floor.pit_cards",
                "INSERT INTO floor.alarms (table_name, alarm, detail) VALUES ('T1', 'fork', 'x')",
                "SELECT * FROM floor.credentials", "SELECT * FROM floor.enrolments"):  # fmt: skip
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            query(roles["shipper"], sql)
    assert len(query(roles["auditor"], "SELECT card FROM floor.cards")) == 2
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        query(roles["pit"], "SELECT * FROM floor.cards")
    assert query(roles["pit"], "SELECT * FROM floor.pit_cards") == []
    assert [k for (k,) in query(roles["pit"], "SELECT kind FROM floor.pit_entries ORDER BY seq")] == [
        "service", "round-opened"]  # fmt: skip
    assert query(roles["pit"], "SELECT body FROM floor.pit_entries WHERE round_id = 'R-1'") == [(None,)]
    assert query(roles["pit"], "SELECT live FROM floor.pit_rounds") == [(True,)]
    with pytest.raises(psycopg.errors.RaiseException):
        query(floor_url, "UPDATE floor.entries SET kind = 'x'")  # append-only, even for the owner
