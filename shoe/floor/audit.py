"""Reading the floor: a local journal against its central copy, every chain end to end, the tables, the
rounds and one round's entries for its reconstruction (NY 5324.38(e)(8), PA 655a.11(j)). The chain is
checked with the table's own code (``shoe.journal.chain``), so the floor and the table agree on what
intact means.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

from shoe.floor.errors import FloorError, from_database, redact_url
from shoe.floor.migrate import connect, require_latest
from shoe.journal.chain import COLUMNS, Entry, verify_records
from shoe.journal.store import Journal

__all__ = ["central_entries", "compare", "floor_status", "round_entries", "rounds", "verify_floor"]

_PAGE = 2000
AUDITOR = "the floor_auditor role (or the database's owner)"
PIT_OR_AUDITOR = "the floor_pit or floor_auditor role"
LINK_STATE = {"lost": "down", "restored": "up", "resynced": "up", "rebooted": "up"}
"""The ``link`` column of ``floor status``: the state the table's last link entry leaves the link in.
``resynced`` is journaled at every connection, the first one included (the service's state read back
from the shoe), so an idle table's last link entry is that one: it means "up", not a recovery."""


@contextlib.contextmanager
def session(url: str, doing: str, needs: str) -> Iterator[Any]:
    """A connection to the floor at ``url`` for ``doing``; every database error a FloorError with a next step
    (not migrated: run migrate; permission denied: the role ``needs``)."""
    import psycopg

    with connect(url) as conn:
        require_latest(conn, url)
        try:
            yield conn
        except psycopg.Error as exc:
            raise from_database(exc, url, doing, needs=needs) from exc


def _pages(conn: Any, table: str, journal_id: str, columns: str) -> Iterator[tuple[Any, ...]]:
    after = 0
    while True:
        rows = conn.execute(
            f"SELECT {columns} FROM floor.entries WHERE table_name = %s AND journal_id = %s AND seq > %s"
            f" ORDER BY seq LIMIT {_PAGE}",
            (table, journal_id, after),
        ).fetchall()
        yield from rows
        if len(rows) < _PAGE:
            return
        after = rows[-1][0]


def central_entries(conn: Any, table: str, journal_id: str) -> Iterator[tuple[Any, ...]]:
    """A journal's records as stored on the floor, in seq order (the columns of ``shoe.journal.chain``)."""
    return _pages(conn, table, journal_id, ", ".join(COLUMNS))


def _ranges(seqs: list[int]) -> list[str]:
    out: list[str] = []
    for seq in seqs:
        if out and out[-1].rsplit("-", 1)[-1] == str(seq - 1):
            out[-1] = f"{out[-1].split('-')[0]}-{seq}"
        else:
            out.append(str(seq))
    return out


def compare(journal: Journal, url: str, table: str | None = None) -> dict[str, Any]:
    """The local journal against the floor's copy: ``{"ok", "findings": [...], ...}``.

    Names a replaced journal (its first entry is not the floor's), a truncated tail (the floor holds
    entries past the local end), a missing range (entries the floor holds that the local file lacks),
    an edited entry (stored hash differs) and the local chain's own first problem. Entries past the
    floor's head are the shipping lag, not a finding.
    """
    first, last = journal.first(), journal.last()
    local_chain = journal.verify()
    findings: list[str] = []
    result: dict[str, Any] = {"journal": str(journal.path), "floor": redact_url(url), "table": table,
                              "journal_id": first.hash if first else None, "local_last_seq": last.seq if last else 0,
                              "floor_head_seq": None, "not_yet_shipped": 0}  # fmt: skip
    with session(url, "`shoectl journal verify --against`", AUDITOR) as conn:
        if first is None:
            findings.append("the local journal is empty")
            return {**result, "ok": False, "findings": findings}
        jid = first.hash
        if table is None:
            row = conn.execute("SELECT table_name FROM floor.journals WHERE journal_id = %s", (jid,)).fetchone()
            table = row[0] if row else None
        result["table"] = table
        if table is None:
            findings.append("this journal is not on the floor (no table ships it): pass --table T to compare with T")
            return {**result, "ok": False, "findings": findings}
        t = conn.execute("SELECT journal_id FROM floor.tables WHERE table_name = %s", (table,)).fetchone()
        if t is None or t[0] is None:
            findings.append(f"the floor holds no journal for table {table}")
            return {**result, "ok": False, "findings": findings}
        if t[0] != jid:
            findings.append(f"replaced: the local journal's first entry ({jid}) is not the first entry of table "
                            f"{table}'s journal on the floor ({t[0]}): the file was replaced")  # fmt: skip
            return {**result, "ok": False, "findings": findings}
        head = conn.execute("SELECT head_seq FROM floor.journals WHERE table_name = %s AND journal_id = %s",
                            (table, jid)).fetchone()[0]  # fmt: skip
        result["floor_head_seq"] = head
        local: dict[int, str] = {e.seq: e.hash for e in journal.entries()}
        missing, edited = [], []
        for seq, digest in _pages(conn, table, jid, "seq, hash"):
            mine = local.get(seq)
            if mine is None:
                missing.append(seq)
            elif mine != digest:
                edited.append(seq)
    local_last = result["local_last_seq"]
    tail = [s for s in missing if s > local_last]
    inner = [s for s in missing if s <= local_last]
    if tail:
        findings.append(f"truncated: the local journal ends at entry {local_last}, the floor holds entries up to "
                        f"{head}: entries {tail[0]}-{tail[-1]} were cut off the end")  # fmt: skip
    if inner:
        findings.append(f"missing: entries {', '.join(_ranges(inner))} are on the floor but not in the local journal")
    if edited:
        findings.append(f"edited: entr{'y' if len(edited) == 1 else 'ies'} {', '.join(_ranges(edited))} differ from "
                        "the floor's copy (changed on the table after shipping)")  # fmt: skip
    if not local_chain.ok:
        findings.append(f"local chain: {local_chain.problem}")
    macs = journal.verify_macs()  # run where the table key is readable (the service's user): else None
    if macs is not None and not macs.ok:
        findings.append(f"mac: {macs.problem}")
    result["macs_checked"] = None if macs is None else macs.checked
    result["not_yet_shipped"] = max(0, local_last - head) if not tail else 0
    return {**result, "ok": not findings, "findings": findings}


def verify_floor(url: str) -> list[dict[str, Any]]:
    """Every journal on the floor, end to end with the table's chain code, and its stored head."""
    out = []
    with session(url, "`shoectl floor verify`", AUDITOR) as conn:
        journals = conn.execute("SELECT table_name, journal_id, head_seq, head_hash, state FROM floor.journals"
                                " ORDER BY table_name, first_seen").fetchall()  # fmt: skip
        for table, jid, head_seq, head_hash, state in journals:
            records = list(central_entries(conn, table, jid))
            result = verify_records(records)
            problem = result.problem
            if result.ok and records and (records[-1][0], records[-1][6]) != (head_seq, head_hash):
                problem = f"the stored head ({head_seq}) is not the last entry ({records[-1][0]})"
            if result.ok and records and records[0][6] != jid:
                problem = "the journal id is not the hash of its entry 1"
            out.append({"table": table, "journal_id": jid, "entries": len(records), "head_seq": head_seq,
                        "state": state, "ok": problem is None and state == "active",
                        "problem": problem or (None if state == "active" else "forked: see floor.alarms")})  # fmt: skip
    return out


def floor_status(url: str) -> list[dict[str, Any]]:
    """Every table: its last entry, when it arrived, its link, its live round, its alarms, and how many
    alarms other credentials raised by claiming to be it (``claimed_by_others``: it is their alarm, not
    this table's, but surveillance wants to see who was targeted)."""
    with session(url, "`shoectl floor status`", AUDITOR) as conn:
        rows = conn.execute("""
            SELECT t.table_name, j.journal_id, j.head_seq, j.head_ts, j.state,
                   round(extract(epoch FROM now() - j.last_received)::numeric, 1),
                   (SELECT e.body ->> 'event' FROM floor.entries e WHERE e.table_name = t.table_name
                     AND e.journal_id = j.journal_id AND e.kind = 'link' ORDER BY e.seq DESC LIMIT 1),
                   (SELECT r.round_id FROM floor.rounds r WHERE r.table_name = t.table_name AND r.live
                     ORDER BY r.first_seq DESC LIMIT 1),
                   (SELECT count(*) FROM floor.alarms a WHERE a.table_name = t.table_name),
                   (SELECT a.detail FROM floor.alarms a WHERE a.table_name = t.table_name ORDER BY a.id DESC LIMIT 1),
                   (SELECT count(*) FROM floor.alarms a WHERE a.claimed_table = t.table_name
                     AND a.table_name IS DISTINCT FROM t.table_name)
              FROM floor.tables t LEFT JOIN floor.journals j ON j.table_name = t.table_name
                   AND j.journal_id = t.journal_id ORDER BY t.table_name""").fetchall()
    keys = ("table", "journal_id", "last_seq", "last_ts", "state", "since_last_received_s", "link", "live_round",
            "alarms", "last_alarm", "claimed_by_others")  # fmt: skip
    out = []
    for row in rows:
        table = dict(zip(keys, row, strict=True))
        if table["since_last_received_s"] is not None:
            table["since_last_received_s"] = float(table["since_last_received_s"])
        table["link_event"] = table["link"]
        table["link"] = LINK_STATE.get(table["link"], table["link"]) if table["link"] else None
        out.append(table)
    return out


def rounds(url: str, table: str | None, start: str | None, end: str | None) -> list[dict[str, Any]]:
    """Rounds on the floor, by table and by the opening's time (ISO 8601 UTC text, compared as stored)."""
    where, params = ["true"], []
    for clause, value in (("table_name = %s", table), ("opened >= %s", start), ("opened < %s", end)):
        if value is not None:
            where.append(clause)
            params.append(value)
    with session(url, "`shoectl floor rounds`", PIT_OR_AUDITOR) as conn:
        cur = conn.execute("SELECT table_name, round_id, game, jurisdiction, opened, entries, closed, first_seq,"
                           f" last_seq FROM floor.pit_rounds WHERE {' AND '.join(where)} ORDER BY opened, table_name",
                           params)  # fmt: skip
        names = [d.name for d in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def round_entries(url: str, round_id: str, table: str | None) -> tuple[str, list[Entry], dict[str, Any]]:
    """One round's entries from the floor, and the chain check from the entry before it to its last."""
    with session(url, "`shoectl floor reconstruct`", AUDITOR) as conn:
        found = conn.execute(
            "SELECT table_name, journal_id, first_seq, last_seq FROM floor.rounds WHERE round_id = %s"
            " AND (%s::text IS NULL OR table_name = %s)",
            (round_id, table, table),
        ).fetchall()
        if not found:
            raise FloorError(f"no round {round_id!r} on the floor" + (f" for table {table}" if table else ""))
        if len(found) > 1:
            raise FloorError(f"round {round_id!r} is on {len(found)} tables: pass --table")
        t, jid, first, last = found[0]
        span = conn.execute(
            f"SELECT {', '.join(COLUMNS)} FROM floor.entries WHERE table_name = %s AND journal_id = %s"
            " AND seq BETWEEN %s AND %s ORDER BY seq",
            (t, jid, max(1, first - 1), last),
        ).fetchall()
    records = [tuple(r) for r in span]
    start = records[0] if first > 1 and records and records[0][0] == first - 1 else None
    check = verify_records(records[1:] if start else records, start_seq=first,
                           start_prev=str(start[6]) if start else "0" * 64)  # fmt: skip
    entries = [Entry(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5], r[6]) for r in records if r[3] == round_id]
    return t, entries, {"ok": check.ok, "first_bad_seq": check.first_bad_seq, "problem": check.problem}
