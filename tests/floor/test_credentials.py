"""One table, one credential (docs/floor.md, "One table, one credential"): every call is bound to the
session's role, so table A's credential cannot read, extend or alarm table B, nor claim an unused table;
the alarm names A's credential, never B. Through the shipper's own code and through raw SQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import pytest

from shoe.floor.client import FloorClient
from shoe.floor.credentials import enrol, revoke, role_url
from shoe.floor.errors import FloorError
from shoe.journal import Entry
from shoe.journal.chain import canonical, entry_hash, entry_mac
from shoe.journal.mac import key_path, load_key
from shoe.service.floor.shipper import Shipper
from tests.floor.support import all_entries, copy_journal, journal_with, query, stored, table_url

FORGED_NET = {"1": 5_000_000}  # seat 1 net +$50,000, in cents


def alarms_of(url: str) -> list[dict[str, Any]]:
    rows = query(url, "SELECT alarm, table_name, claimed_table, credential, detail FROM floor.alarms ORDER BY id")
    return [dict(zip(("alarm", "table", "claimed", "credential", "detail"), r, strict=True)) for r in rows]


def role_of(url: str) -> str:
    return url.split("://", 1)[1].split(":", 1)[0]


@pytest.fixture
def two_tables(floor_url: str, tmp_path: Path) -> dict[str, Any]:
    """T-A and T-B, each enrolled and shipped; T-B's round R-B still live (opened, two cards)."""
    a_url = table_url(floor_url, "T-A", tmp_path / "a.sqlite")
    b_url = table_url(floor_url, "T-B", tmp_path / "b.sqlite")
    a = journal_with(tmp_path / "a.sqlite", 5, round_id="R-A")
    b = journal_with(tmp_path / "b.sqlite", 4, round_id="R-B")
    for url, table, journal in ((a_url, "T-A", a), (b_url, "T-B", b)):
        entries = all_entries(journal)
        assert FloorClient(url).ship(table, entries[0].hash, entries).status == "ok"
    return {"a_url": a_url, "b_url": b_url, "a": a, "b": b, "a_key": load_key(key_path(a.path))}


def forged_closing(b_entries: list[Entry], key: bytes | None) -> Entry:
    """A round-closed for T-B's live round continuing T-B's chain, MAC'd with the attacker's (A's) key."""
    head = b_entries[-1]
    seq, ts, data = head.seq + 1, "2026-12-01T15:00:00.000000Z", {"outcome": "complete", "net": FORGED_NET}
    digest = entry_hash(head.hash, seq=seq, ts=ts, kind="round-closed", round_id="R-B", data=data)
    return Entry(seq, ts, "round-closed", "R-B", data, head.hash, digest, entry_mac(key, digest) if key else None)


def assert_b_untouched_and_a_named(floor_url: str, two: dict[str, Any], before: list[tuple[int, str]]) -> None:
    assert stored(floor_url, "T-B") == before  # T-B's chain unchanged
    assert query(floor_url, "SELECT live FROM floor.rounds WHERE table_name = 'T-B'") == [(True,)]
    found = alarms_of(floor_url)
    assert found and all(a["alarm"] == "wrong-table" for a in found), found
    assert all(a["credential"] == role_of(two["a_url"]) and a["table"] == "T-A" and a["claimed"] == "T-B"
               for a in found), found  # fmt: skip
    assert not [a for a in found if a["table"] == "T-B"]  # the victim is not blamed
    from shoe.floor.audit import floor_status

    rows = {t["table"]: t for t in floor_status(floor_url)}
    assert rows["T-B"]["alarms"] == 0 and rows["T-B"]["claimed_by_others"] == len(found)
    assert rows["T-A"]["alarms"] == len(found)
    b = all_entries(two["b"])  # ... and T-B's own shipper goes on shipping, no fork, no alarm of its own
    journal_with(two["b"].path, 2, start=4, round_id="R-B")
    after = all_entries(two["b"])
    assert FloorClient(two["b_url"]).ship("T-B", b[0].hash, after).status == "ok"
    assert stored(floor_url, "T-B") == [(e.seq, e.hash) for e in after]
    assert query(floor_url, "SELECT state FROM floor.journals WHERE table_name = 'T-B'") == [("active",)]


def test_a_tables_credential_cannot_read_or_extend_another_table_through_the_shipper_code(
    floor_url: str, two_tables: dict[str, Any], tmp_path: Path
) -> None:
    two = two_tables
    b_entries = all_entries(two["b"])
    before = stored(floor_url, "T-B")
    as_a = FloorClient(two["a_url"])
    head = as_a.head("T-B", b_entries[0].hash)
    assert head.state == "refused" and (head.seq, head.hash, head.table_journal) == (0, "0" * 64, None)
    assert "enrolled for table T-A" in (head.detail or "")
    got = as_a.ship("T-B", b_entries[0].hash, [forged_closing(b_entries, two["a_key"])])
    assert got.status == "refused" and got.head_seq == 0  # nothing of T-B, not even its head
    # the whole shipper, pointed at a copy of T-B's journal with the forged closing, on A's credential
    copy = copy_journal(two["b"], tmp_path / "copy-of-b.sqlite")
    copy.close()
    shipper = Shipper(copy.path, two["a_url"], "T-B", connect_timeout=1)
    assert not shipper.step()
    assert shipper.status()["state"] == "refused" and "enrolled for table T-A" in shipper.status()["alarm"]
    shipper.stop()
    assert_b_untouched_and_a_named(floor_url, two, before)


def test_the_same_attack_in_raw_sql_with_a_tables_credential(floor_url: str, two_tables: dict[str, Any]) -> None:
    two = two_tables
    b_entries = all_entries(two["b"])
    before = stored(floor_url, "T-B")
    f = forged_closing(b_entries, two["a_key"])
    with psycopg.connect(two["a_url"], autocommit=True) as conn:
        # temporary look-alikes of the floor's tables cannot stand in for them inside its functions
        conn.execute("CREATE TEMP TABLE credentials AS SELECT session_user::text AS role_name, 'T-B' AS table_name")
        conn.execute("CREATE TEMP TABLE tables AS SELECT 'T-B'::text AS table_name, NULL::text AS journal_id")
        head = conn.execute("SELECT * FROM floor.head('T-B', %s)", (b_entries[0].hash,)).fetchone()
        assert head is not None and head[:4] == (0, "0" * 64, "refused", None)
        answer = conn.execute(
            "SELECT status, head_seq FROM floor.ship('T-B', %s, ARRAY[%s]::bigint[], ARRAY[%s], ARRAY[%s], ARRAY[%s],"
            " ARRAY[%s], ARRAY[%s], ARRAY[%s], ARRAY[%s])",
            (b_entries[0].hash, f.seq, f.ts, f.kind, f.round_id, canonical(f.data), f.prev_hash, f.hash, f.mac),
        ).fetchone()
        assert answer == ("refused", 0)
        said = conn.execute("SELECT floor.report_divergence('T-B', %s, 1, 'T-B was edited')", (b_entries[0].hash,))
        assert "enrolled for table T-A" in str(said.fetchone()[0])  # no diverged alarm filed against T-B
        for sql in ("SELECT * FROM floor.entries", "SELECT * FROM floor.journals", "SELECT * FROM floor.tables",
                    "SELECT * FROM floor.credentials", "SELECT * FROM floor.enrolments", "SELECT * FROM floor.alarms",
                    "SELECT * FROM floor.pit_entries", "SELECT floor._credential()",
                    "SELECT floor._claim(NULL::floor.credentials, 'T-B', 'x')",
                    "SELECT floor.enrol_credential('x', 'T-B', '\\x00', 'k', true)",
                    "INSERT INTO floor.alarms (table_name, alarm, detail) VALUES ('T-B', 'fork', 'x')"):  # fmt: skip
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(sql)
    assert_b_untouched_and_a_named(floor_url, two, before)


def test_an_unused_table_name_cannot_be_claimed(floor_url: str, two_tables: dict[str, Any], tmp_path: Path) -> None:
    entries = all_entries(journal_with(tmp_path / "new.sqlite", 3))
    got = FloorClient(two_tables["a_url"]).ship("T-NEW", entries[0].hash, entries)
    assert got.status == "refused" and "as table T-NEW" in (got.detail or "")
    assert query(floor_url, "SELECT count(*) FROM floor.tables WHERE table_name = 'T-NEW'") == [(0,)]
    assert query(floor_url, "SELECT count(*) FROM floor.entries WHERE table_name = 'T-NEW'") == [(0,)]
    [alarm] = alarms_of(floor_url)
    assert (alarm["alarm"], alarm["table"], alarm["claimed"]) == ("wrong-table", "T-A", "T-NEW")


def test_a_role_with_no_table_credential_ships_nothing(floor_url: str, tmp_path: Path) -> None:
    """A plain member of floor_shipper (the one shared role of the floor's first version) is refused."""
    user = f"shared_{floor_url.rsplit('_', 1)[-1]}"
    query(floor_url, f'CREATE ROLE "{user}" LOGIN IN ROLE floor_shipper')
    entries = all_entries(journal_with(tmp_path / "j.sqlite", 3))
    got = FloorClient(role_url(floor_url, user, "x")).ship("T1", entries[0].hash, entries)
    assert got.status == "refused" and "holds no table credential" in (got.detail or "")
    [alarm] = alarms_of(floor_url)
    assert (alarm["alarm"], alarm["table"], alarm["claimed"]) == ("no-credential", None, "T1")
    assert alarm["credential"] == user
    assert query(floor_url, "SELECT count(*) FROM floor.tables") == [(0,)]


def test_enrol_makes_one_credential_per_table_and_revoke_ends_it(floor_url: str, tmp_path: Path) -> None:
    done = enrol(floor_url, "T1", tmp_path / "j.sqlite.key")
    assert (tmp_path / "j.sqlite.key").stat().st_mode & 0o777 == 0o600
    assert done.url.startswith(f"postgresql://{done.role}:") and done.url.endswith(floor_url.rsplit("@", 1)[1])
    assert done.key_id not in (tmp_path / "j.sqlite.key").read_text()
    with pytest.raises(FloorError, match="already enrolled") as refused:
        enrol(floor_url, "T1", tmp_path / "other.key")
    assert refused.value.kind == "usage" and not (tmp_path / "other.key").exists()
    with pytest.raises(FloorError, match="never overwritten"):
        enrol(floor_url, "T2", tmp_path / "j.sqlite.key")  # a key file is never overwritten
    entries = all_entries(journal_with(tmp_path / "j.sqlite", 3))
    assert FloorClient(done.url).ship("T1", entries[0].hash, entries).status == "ok"
    assert revoke(floor_url, "T1")["role"] == done.role
    with pytest.raises(FloorError) as gone:
        FloorClient(done.url).head("T1", entries[0].hash)
    assert gone.value.kind == "permission"
    assert query(floor_url, "SELECT count(*) FROM floor.enrolments WHERE revoked_at IS NOT NULL") == [(1,)]


def test_role_url_keeps_the_hosts_database_and_options() -> None:
    multi = "postgresql://owner:pw@db1:5432,db2:5432/floor?target_session_attrs=read-write"
    assert role_url(multi, "t", "s3") == "postgresql://t:s3@db1:5432,db2:5432/floor?target_session_attrs=read-write"
    assert role_url("postgresql://db/floor?user=owner&password=pw", "t", "s") == "postgresql://t:s@db/floor"
