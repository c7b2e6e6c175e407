"""A chain a file edit cannot forge (docs/journal.md, "Threat model"): each entry carries
HMAC-SHA256(table key, hash), written at append; the floor recomputes it with its copy of the key and
refuses, with an alarm, an entry whose MAC does not verify, whenever it arrives. The offline edit (the
floor down, a settlement edited, every later hash recomputed, the lock file rewritten) was accepted
before: it is refused now, through a real shoed."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from shoe.floor.client import FloorClient
from shoe.journal import Journal, JournalError
from shoe.journal.chain import MAC_BOUNDARY_KIND, canonical, entry_hash, entry_mac
from shoe.journal.mac import key_path, load_key, new_key, write_key
from shoe.service.floor.shipper import Shipper
from tests.floor.support import all_entries, journal_with, query, stored, table_url

PAID = 5_000_000


def settle(journal: Journal, n: int = 1) -> None:
    for _ in range(n):
        journal.append("settlement", {"seat": 1, "record": {"type": "SeatSettlement", "paid": 500, "net": 500}},
                       round_id="R-1")  # fmt: skip


def edit_offline(path: Path, kind: str, change: Callable[[dict[str, object]], None],
                 mac: Callable[[str], str | None] | None = None) -> int:  # fmt: skip
    """Edit the first ``kind`` entry behind the journal's back (triggers dropped), recompute every hash
    from it on, and set each later MAC with ``mac`` (None: leave the old ones, as one without the key
    must). Returns the edited seq."""
    with sqlite3.connect(str(path)) as conn:
        conn.execute("DROP TRIGGER IF EXISTS entries_no_update")
        rows = conn.execute("SELECT seq, ts, kind, round_id, data, prev_hash FROM entries ORDER BY seq").fetchall()
        target = next(seq for seq, _, k, *_ in rows if k == kind)
        prev = None
        for seq, ts, k, round_id, data, old_prev in rows:
            if seq < target:
                continue
            parsed = json.loads(data)
            if seq == target:
                change(parsed)
            prev = old_prev if prev is None else prev
            digest = entry_hash(prev, seq=seq, ts=ts, kind=k, round_id=round_id, data=parsed)
            conn.execute("UPDATE entries SET data = ?, prev_hash = ?, hash = ? WHERE seq = ?",
                         (canonical(parsed), prev, digest, seq))  # fmt: skip
            if mac is not None:
                conn.execute("UPDATE entries SET mac = ? WHERE seq = ?", (mac(digest), seq))
            prev = digest
    return target


def pay(data: dict[str, object]) -> None:
    record = data["record"]
    assert isinstance(record, dict)
    record["paid"] = PAID


OTHER_KEY = new_key()
VARIANTS: dict[str, Callable[[str], str | None] | None] = {
    "MACs left as they were": None,
    "MACs stripped": lambda digest: None,
    "MACs made with another table's key": lambda digest: entry_mac(OTHER_KEY, digest),
    "MACs of random hex": lambda digest: "ab" * 32,
}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_an_entry_edited_before_shipping_is_refused_when_it_arrives(
    floor_url: str, tmp_path: Path, variant: str
) -> None:
    url = table_url(floor_url, "T1", tmp_path / "j.sqlite")
    journal = journal_with(tmp_path / "j.sqlite", 5)
    shipper = Shipper(journal.path, url, "T1", connect_timeout=1)
    assert shipper.step() and shipper.acked_seq == 5
    settle(journal, 3)  # the floor unreachable meanwhile: nothing of these is shipped
    journal.close()
    edited = edit_offline(journal.path, "settlement", pay, VARIANTS[variant])
    assert Journal.open(journal.path).verify().ok  # the chain alone verifies: only the MAC tells
    shipper = Shipper(journal.path, url, "T1", connect_timeout=1)
    assert not shipper.step()
    status = shipper.status()
    assert status["state"] == "refused" and f"entry {edited}" in status["alarm"] and "MAC" in status["alarm"]
    assert [s for s, _ in stored(floor_url, "T1")] == [1, 2, 3, 4, 5]  # the floor's copy is unchanged
    [(alarm, credential, table)] = query(floor_url, "SELECT alarm, credential, table_name FROM floor.alarms")
    assert (alarm, table) == ("bad-mac", "T1") and credential == url.split("://")[1].split(":")[0]
    assert query(floor_url, "SELECT count(*) FROM floor.entries WHERE data LIKE %s", (f"%{PAID}%",)) == [(0,)]
    shipper.stop()


def test_an_honest_keyed_journal_ships_with_its_macs_stored(floor_url: str, tmp_path: Path) -> None:
    url = table_url(floor_url, "T1", tmp_path / "j.sqlite")
    journal = journal_with(tmp_path / "j.sqlite", 4)
    settle(journal)
    key = load_key(key_path(journal.path))
    assert key is not None and all(e.mac == entry_mac(key, e.hash) for e in all_entries(journal))
    entries = all_entries(journal)
    assert FloorClient(url).ship("T1", entries[0].hash, entries).status == "ok"
    assert query(floor_url, "SELECT mac FROM floor.entries ORDER BY seq") == [(e.mac,) for e in entries]


def test_the_key_is_not_in_the_journal_and_is_refused_if_others_may_read_it(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    write_key(key_path(path), key := new_key())
    journal_with(path, 3).close()
    files = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name != key_path(path).name)
    assert key.hex().encode() not in files and key not in files
    key_path(path).chmod(0o640)
    with pytest.raises(JournalError, match="may be read by others"):
        Journal.open(path)
    key_path(path).chmod(0o600)
    Journal.open(path).close()


def test_a_keyed_journal_whose_key_is_gone_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    write_key(key_path(path), new_key())
    journal_with(path, 3).close()
    key_path(path).unlink()
    with Journal.open(path) as journal, pytest.raises(JournalError, match=r"key .* is missing"):
        journal.append("card", {"n": 1})
    with Journal.open(path) as journal:
        assert journal.head_seq() == 3


def test_an_old_journal_gets_a_boundary_entry_and_macs_from_it_on(floor_url: str, tmp_path: Path) -> None:
    """A journal written before its table was enrolled: enrolled with --legacy, its entries without a
    MAC are taken only until its first MAC'd one (the boundary); from there a stripped MAC is refused."""
    path = tmp_path / "j.sqlite"
    journal_with(path, 3).close()  # no key yet: no MACs (and no mac column)
    url = table_url(floor_url, "T1", path, legacy=True)
    with Journal.open(path) as journal:
        settle(journal, 2)
        entries = all_entries(journal)
    assert [e.mac is None for e in entries] == [True, True, True, False, False, False]
    assert entries[3].kind == MAC_BOUNDARY_KIND and entries[3].seq == 4
    assert FloorClient(url).ship("T1", entries[0].hash, entries).status == "ok"
    with Journal.open(path) as journal:
        settle(journal)
    edit_offline(path, "settlement", pay, lambda digest: None)  # the edit, its MAC and every later one stripped
    got = FloorClient(url).ship("T1", entries[0].hash, all_entries(Journal.open(path)))
    assert got.status == "fork"  # entry 5 was already shipped: its hash differs from the floor's
    assert [a for (a,) in query(floor_url, "SELECT alarm FROM floor.alarms")] == ["fork"]


def test_without_legacy_an_entry_without_a_mac_is_refused(floor_url: str, tmp_path: Path) -> None:
    url = table_url(floor_url, "T1", tmp_path / "j.sqlite")
    other = tmp_path / "unkeyed.sqlite"
    entries = all_entries(journal_with(other, 3))  # written without the key
    got = FloorClient(url).ship("T1", entries[0].hash, entries)
    assert got.status == "bad-mac" and "carries no MAC" in (got.detail or "")
    assert stored(floor_url, "T1") == []


def test_the_offline_edit_through_a_real_shoed_is_refused_and_the_floor_keeps_its_copy(
    floor_url: str, tmp_path: Path
) -> None:
    """The issue's reproduction: the floor down, a round played, shoed stopped, its settlement edited
    (paid 5,000,000), every later hash recomputed, the lock file rewritten; shoed restarted with the floor
    back. Before: shipped, `journal verify --against` exit 0. Now: refused, alarmed, the floor unchanged."""
    from bench._probes import Http
    from bench._shoed import ShoedProcess
    from bench.service import Played, play_round
    from shoe.journal.lock import lock_path
    from tests.floor.proxy import CuttableProxy
    from tests.floor.test_cli_floor import as_json

    journal = tmp_path / "journal.sqlite"
    own = table_url(floor_url, "MS-01", journal)
    proxy = CuttableProxy(urlsplit(floor_url).port or 5432)
    config = tmp_path / "shoed.toml"
    via = own.replace(f":{urlsplit(floor_url).port}/", f":{proxy.port}/")
    config.write_text(f'[service]\ntable = "MS-01"\n[floor]\nurl = "{via}"\n')
    try:
        shoed = ShoedProcess("emu://?autoload=1", journal, tmp_path / "shoed.log", config)
        try:
            play_round(Http(shoed.url), [1], Played())  # shipped
            deadline = time.monotonic() + 30
            while Http(shoed.url).get_json("/v1/status")["floor"]["lag_entries"] and time.monotonic() < deadline:
                time.sleep(0.1)
            shipped = len(stored(floor_url, "MS-01"))
            proxy.cut()  # the floor is down
            play_round(Http(shoed.url), [1], Played())
        finally:
            shoed.close()
        with Journal.open(journal) as j:
            old = {e.seq: e.hash for e in j.entries()}
        lock_before = lock_path(journal).read_text()
        # the first settlement not yet shipped: the edit is of the round played while the floor was down
        with sqlite3.connect(str(journal)) as conn:
            target = conn.execute("SELECT min(seq) FROM entries WHERE kind = 'settlement' AND seq > ?",
                                  (shipped,)).fetchone()[0]  # fmt: skip
        edited = _edit_from(journal, target)
        with Journal.open(journal) as j:
            new = {e.seq: e.hash for e in j.entries()}
            assert j.verify().ok
        lock = lock_before
        for seq, digest in old.items():
            lock = lock.replace(digest, new[seq])  # every hash the lock file holds, rewritten
        lock_path(journal).write_text(lock)
        proxy.restore()
        shoed = ShoedProcess("emu://?autoload=1", journal, tmp_path / "shoed-2.log", config)
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                floor = Http(shoed.url).get_json("/v1/status")["floor"]
                if floor["alarm"]:
                    break
                time.sleep(0.2)
            assert floor["state"] == "refused" and f"entry {edited}" in floor["alarm"] and "MAC" in floor["alarm"]
        finally:
            shoed.close()
    finally:
        proxy.close()
    assert max(s for s, _ in stored(floor_url, "MS-01")) == edited - 1  # up to the edit, not the forged payout
    assert query(floor_url, "SELECT count(*) FROM floor.entries WHERE data LIKE %s", (f'%"paid":{PAID}%',)) == [(0,)]
    assert [a for (a,) in query(floor_url, "SELECT alarm FROM floor.alarms")] == ["bad-mac"]
    code, doc = as_json("floor", "verify", "--url", floor_url)
    assert code == 10 and "forked" in doc["journals"][0]["problem"]
    code, doc = as_json("journal", "verify", "--journal", str(journal), "--against", floor_url)
    assert code == 10 and any(f.startswith(f"mac: entry {edited}") for f in doc["findings"]), doc


def _edit_from(journal: Path, target: int) -> int:
    """The settlement at ``target`` paid 5,000,000, every later hash recomputed; MACs left (no key)."""
    with sqlite3.connect(str(journal)) as conn:
        conn.execute("DROP TRIGGER IF EXISTS entries_no_update")
        rows = conn.execute("SELECT seq, ts, kind, round_id, data, prev_hash FROM entries WHERE seq >= ?"
                            " ORDER BY seq", (target,)).fetchall()  # fmt: skip
        prev = rows[0][5]
        for seq, ts, kind, round_id, data, _ in rows:
            parsed = json.loads(data)
            if seq == target:
                pay(parsed)
            digest = entry_hash(prev, seq=seq, ts=ts, kind=kind, round_id=round_id, data=parsed)
            conn.execute("UPDATE entries SET data = ?, prev_hash = ?, hash = ? WHERE seq = ?",
                         (canonical(parsed), prev, digest, seq))  # fmt: skip
            prev = digest
    return target
