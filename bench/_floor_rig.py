"""The tables of ``bench/floor``: journals written as a dealing table writes them and shippers sending them.

A worker process (``bench/floor --worker SPEC``) runs a slice of the tables: for each, a real journal
(``shoe.journal.Journal``, ``synchronous=FULL``, one commit per entry in the steady phase) and a real
``Shipper`` thread on its own PostgreSQL connection. The rounds' entries are the rules engine's (made by
the coordinator with ``tests.math.soak_journal``: the service's ``MississippiRun`` dealing seeded decks),
given new round ids per table. Each table has its own credential and key (enrolled by the coordinator:
``shoectl floor enrol``'s code, the key beside the journal), so every entry carries its MAC and the
floor checks it, as on a casino floor. It prints one JSON document: counts, and each entry's lag from its
append to the floor's acknowledgement.
"""

from __future__ import annotations

import json
import random
import sqlite3
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from shoe.journal import GENESIS, Journal
from shoe.journal.chain import canonical, entry_hash, entry_mac
from shoe.journal.mac import key_path, load_key
from shoe.service.floor.shipper import Shipper


class TimedShipper(Shipper):
    """A shipper that notes when each acknowledgement arrived (``acks``: (seq, wall time))."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.acks: list[tuple[int, float]] = []
        super().__init__(*args, **kwargs)

    def _ack(self, seq: int, digest: str, *, save: bool = True) -> None:
        super()._ack(seq, digest, save=save)
        self.acks.append((seq, time.time()))


def _ts_epoch(ts: str) -> float:
    return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()


def prefill(path: Path, rounds: list[list[list[Any]]], count: int, table: str, rng: random.Random) -> int:
    """A journal of ``count`` rounds written in bulk (one transaction): the backlog of the flat-out phase."""
    Journal.open(path).close()
    key = load_key(key_path(path))
    conn = sqlite3.connect(str(path), isolation_level=None)
    conn.execute("PRAGMA synchronous=OFF")
    if key is not None:
        conn.execute("ALTER TABLE entries ADD COLUMN mac TEXT")
    seq, prev, at = 0, GENESIS, datetime.now(UTC) - timedelta(hours=1)
    conn.execute("BEGIN")
    for n in range(count):
        round_id = f"{table}-{n:05d}"
        for kind, data in rng.choice(rounds):
            seq += 1
            at += timedelta(milliseconds=1)
            ts = at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
            digest = entry_hash(prev, seq=seq, ts=ts, kind=kind, round_id=round_id, data=data)
            row = (seq, ts, kind, round_id, canonical(data), prev, digest)
            if key is None:
                conn.execute("INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?)", row)
            else:
                conn.execute("INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (*row, entry_mac(key, digest)))
            prev = digest
    conn.execute("COMMIT")
    conn.close()
    return seq


def _shippers(spec: dict[str, Any], folder: Path, names: list[str]) -> list[TimedShipper]:
    return [
        TimedShipper(
            folder / f"{name}.sqlite",
            spec["urls"][name],
            name,
            batch=spec["batch"],
            poll_s=spec["poll_s"],
            max_backoff_s=1.0,
            connect_timeout=2,
        )
        for name in names
    ]


def _lags(shippers: list[TimedShipper], folder: Path, since: float) -> tuple[list[float], int]:
    """Each entry appended after ``since``: seconds from its ``ts`` to the acknowledgement that covered it."""
    lags: list[float] = []
    shipped = 0
    for s in shippers:
        with Journal.open(folder / f"{s.table}.sqlite") as journal:
            entries = [(e.seq, _ts_epoch(e.ts)) for e in journal.entries()]
        acks, i = sorted(s.acks), 0
        for seq, appended in entries:
            while i < len(acks) and acks[i][0] < seq:
                i += 1
            if i < len(acks) and appended >= since:
                lags.append(max(0.0, acks[i][1] - appended))
        shipped += s.acked_seq
    return lags, shipped


def steady(spec: dict[str, Any]) -> dict[str, Any]:
    """Tables dealing at ``rounds_per_hour`` for ``duration_s``; their shippers follow."""
    folder, rng = Path(spec["folder"]), random.Random(spec["seed"])
    rounds: list[list[list[Any]]] = spec["rounds"]
    names = spec["tables"]
    journals = {n: Journal.open(folder / f"{n}.sqlite") for n in names}
    for name, journal in journals.items():
        journal.append("service", {"event": "start", "pid": 1, "open_round": None, "table": name})
    shippers = _shippers(spec, folder, names)
    for s in shippers:
        s.start()
    period = 3600.0 / spec["rounds_per_hour"]
    start = time.time()
    # each table: its round's entries spread over the round's period, rounds starting at a random phase
    schedule: list[tuple[float, str, int, int]] = []  # (due, table, round number, entry index)
    for name in names:
        t0, n = start + rng.random() * period, 0
        while t0 < start + spec["duration_s"]:
            template = rng.randrange(len(rounds))
            step = period * 0.9 / len(rounds[template])
            schedule += [(t0 + i * step, name, n * 1000 + template, i) for i in range(len(rounds[template]))]
            t0, n = t0 + period, n + 1
    schedule.sort()
    appended = len(names)
    for due, name, code, i in schedule:
        if due > start + spec["duration_s"]:
            break
        time.sleep(max(0.0, due - time.time()))
        kind, data = rounds[code % 1000][i]
        journals[name].append(kind, data, round_id=f"{name}-{code // 1000:05d}")
        appended += 1
    end = time.time()
    deadline = end + spec.get("drain_s", 120)
    for s in shippers:
        s.wait_caught_up(max(0.1, deadline - time.time()))
    for s in shippers:
        s.stop()
    for journal in journals.values():
        journal.close()
    lags, shipped = _lags(shippers, folder, start)
    return {
        "appended": appended,
        "shipped": shipped,
        "seconds": end - start,
        "lags": lags,
        "states": sorted({s.status()["state"] for s in shippers}),
        "alarms": [s.alarm for s in shippers if s.alarm],
    }


def flat(spec: dict[str, Any]) -> dict[str, Any]:
    """Every table's journal already holds ``backlog_rounds`` rounds: ship them as fast as the floor takes them."""
    folder, rng = Path(spec["folder"]), random.Random(spec["seed"])
    names = spec["tables"]
    total = sum(prefill(folder / f"{n}.sqlite", spec["rounds"], spec["backlog_rounds"], n, rng) for n in names)
    shippers = _shippers(spec, folder, names)
    print(json.dumps({"ready": True}), flush=True)
    sys.stdin.readline()  # the coordinator starts every worker's shippers at once
    start = time.time()
    for s in shippers:
        s.start()
    for s in shippers:
        s.wait_caught_up(spec.get("drain_s", 600))
    end = max((s.acks[-1][1] for s in shippers if s.acks), default=time.time())
    for s in shippers:
        s.stop()
    return {
        "appended": total,
        "shipped": sum(s.acked_seq for s in shippers),
        "seconds": end - start,
        "alarms": [s.alarm for s in shippers if s.alarm],
    }


def worker(spec_path: str) -> None:
    spec = json.loads(Path(spec_path).read_text())
    result = steady(spec) if spec["phase"] == "steady" else flat(spec)
    threading.excepthook = lambda args: None
    print(json.dumps(result), flush=True)
