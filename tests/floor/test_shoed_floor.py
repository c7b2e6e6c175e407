"""``shoed`` with a ``[floor]`` section, as real processes: the emulator in shoed (``emu://?autoload=1``),
rounds played over HTTP, the real server. The table killed with -9 and restarted: every entry on the
floor exactly once and the chain intact there."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from bench._shoed import ShoedProcess
from bench.service import Played, play_round
from shoe.journal import Journal
from shoe.journal.chain import verify_records
from tests.floor.support import alarms, all_entries, journal_with, query, table_url

ROOT = Path(__file__).resolve().parents[2]


def floor_config(path: Path, url: str) -> Path:
    path.write_text(f'[service]\ntable = "MS-01"\n[floor]\nurl = "{url}"\n')
    return path


def floor_chain(url: str, table: str) -> list[tuple[object, ...]]:
    return query(url, "SELECT seq, ts, kind, round_id, data, prev_hash, hash FROM floor.entries"
                      " WHERE table_name = %s ORDER BY seq", (table,))  # fmt: skip


def wait_shipped(shoed: ShoedProcess, timeout: float = 30.0) -> dict[str, object]:
    from bench._probes import Http

    http = Http(shoed.url)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = http.get_json("/v1/status")
        floor = status["floor"]
        if floor["state"] == "caught-up" and floor["acked_seq"] == status["service"]["journal_seq"]:
            return dict(floor)
        time.sleep(0.1)
    raise AssertionError(f"not shipped in {timeout}s: {status}")


def test_shoed_ships_its_rounds_and_a_kill_9_loses_and_duplicates_nothing(floor_url: str, tmp_path: Path) -> None:
    from bench._probes import Http

    journal = tmp_path / "journal.sqlite"
    config = floor_config(tmp_path / "shoed.toml", table_url(floor_url, "MS-01", journal))
    shoed = ShoedProcess("emu://?autoload=1", journal, tmp_path / "shoed.log", config)
    try:
        http = Http(shoed.url)
        play_round(http, [1, 3], Played())
        floor = wait_shipped(shoed)
        assert floor["lag_entries"] == 0 and floor["alarm"] is None and floor["table"] == "MS-01"
        metrics = http.get("/metrics").decode()
        assert "shoe_floor_lag_entries 0.0" in metrics and "shoe_floor_alarm 0.0" in metrics
        play_round(http, [2], Played())
        os.kill(shoed.pid, signal.SIGKILL)  # while the shipper may be mid-batch
        shoed.proc.wait(10)
    finally:
        shoed.close()
    shoed = ShoedProcess("emu://?autoload=1", journal, tmp_path / "shoed-2.log", config)
    try:
        play_round(Http(shoed.url), [1], Played())
        wait_shipped(shoed)
    finally:
        shoed.close()
    with Journal.open(journal) as j:
        local = [(e.seq, e.hash) for e in j.entries()]
    central = floor_chain(floor_url, "MS-01")
    assert [(s, h) for s, *_, h in central] == local  # every entry once, in order (a clean stop ships its stop)
    assert verify_records(central).ok
    rounds = query(floor_url, "SELECT count(*) FILTER (WHERE NOT live) FROM floor.rounds WHERE table_name = 'MS-01'")
    assert rounds == [(3,)]
    assert alarms(floor_url) == []


SHIP_FOREVER = """
import sys, time
from shoe.service.floor.shipper import Shipper
s = Shipper(sys.argv[1], sys.argv[2], "T-kill", batch=100, poll_s=0.01)
s.start()
time.sleep(600)
"""


def test_a_table_pc_killed_mid_batch_resumes_exactly_once(floor_url: str, tmp_path: Path) -> None:
    url = table_url(floor_url, "T-kill", tmp_path / "j.sqlite")
    journal = journal_with(tmp_path / "j.sqlite", 4000)
    journal.close()
    argv = [sys.executable, "-c", SHIP_FOREVER, str(tmp_path / "j.sqlite"), url]
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        head = 0
        while time.monotonic() < deadline and head < 800:
            head = query(floor_url, "SELECT coalesce(max(head_seq), 0) FROM floor.journals")[0][0]
            time.sleep(0.01)
        assert 800 <= head < 4000, head
        proc.send_signal(signal.SIGKILL)  # batches of 100 every few ms: one is almost surely in flight
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if query(floor_url, "SELECT head_seq FROM floor.journals")[0][0] == 4000:
                break
            time.sleep(0.1)
    finally:
        proc.kill()
        proc.wait(10)
    local = all_entries(Journal.open(tmp_path / "j.sqlite"))
    assert [(s, h) for s, *_, h in floor_chain(floor_url, "T-kill")] == [(e.seq, e.hash) for e in local]


def test_shoed_deals_on_with_the_floor_gone_and_the_backlog_drains(floor_url: str, tmp_path: Path) -> None:
    from urllib.parse import urlsplit

    from bench._probes import Http
    from tests.floor.proxy import CuttableProxy

    proxy = CuttableProxy(urlsplit(floor_url).port or 5432)
    try:
        journal = tmp_path / "journal.sqlite"
        own = table_url(floor_url, "MS-01", journal)
        via = own.replace(f":{urlsplit(floor_url).port}/", f":{proxy.port}/")
        config = floor_config(tmp_path / "shoed.toml", via)
        proxy.cut()  # the floor is gone before the table starts
        shoed = ShoedProcess("emu://?autoload=1", journal, tmp_path / "shoed.log", config)
        try:
            http = Http(shoed.url)
            for seats in ([1, 2], [3]):
                play_round(http, seats, Played())  # the rounds complete: nothing waits for the floor
            deadline = time.monotonic() + 10  # the lag figures are read at least every 0.5 s while down
            while time.monotonic() < deadline:
                status = http.get_json("/v1/status")
                floor = status["floor"]
                if floor["lag_entries"] == status["service"]["journal_seq"]:
                    break
                time.sleep(0.1)
            assert floor["state"] == "down" and floor["lag_entries"] == status["service"]["journal_seq"] > 30
            assert "cannot connect" in floor["last_error"] and floor["lag_seconds"] > 0
            assert "shoe_floor_up 0.0" in http.get("/metrics").decode()
            proxy.restore()
            wait_shipped(shoed, timeout=60)  # the backoff is at most 30 s
        finally:
            shoed.close()
    finally:
        proxy.close()
    with Journal.open(journal) as j:
        assert [(s, h) for s, *_, h in floor_chain(floor_url, "MS-01")] == [(e.seq, e.hash) for e in j.entries()]
