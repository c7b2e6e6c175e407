"""What a new user is told: a reachable floor without the schema is "not migrated", not "unreachable";
an idle table's link is "up", not "resynced"."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from shoe.floor.audit import floor_status
from shoe.floor.client import FloorClient
from shoe.service.floor.shipper import Shipper
from tests.floor.conftest import with_database
from tests.floor.support import all_entries, journal_with, table_url


@pytest.fixture
def empty_database(pg_server: str) -> Iterator[str]:
    name = f"empty_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield with_database(pg_server, name)
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_the_shipper_says_not_migrated_for_a_reachable_floor_without_the_schema(
    empty_database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = journal_with(tmp_path / "j.sqlite", 3)
    s = Shipper(journal.path, empty_database, "T1", connect_timeout=1)
    s.start()
    try:
        for _ in range(100):
            if s.status()["state"] == "down":
                break
            s._stop.wait(0.05)
    finally:
        s.stop()
    status = s.status()
    assert status["state"] == "down" and "is not migrated" in status["last_error"], status
    assert "shoectl floor migrate" in status["last_error"]
    logged = capsys.readouterr()
    assert "not migrated" in logged.out + logged.err and "unreachable" not in logged.out + logged.err


def test_an_idle_tables_link_is_up_not_resynced(floor_url: str, tmp_path: Path) -> None:
    url = table_url(floor_url, "T1", tmp_path / "j.sqlite")
    journal = journal_with(tmp_path / "j.sqlite", 1)
    journal.append("link", {"event": "resynced", "boot_id": 1, "last_dispense_id": 0, "event_counter": 0})
    entries = all_entries(journal)
    assert FloorClient(url).ship("T1", entries[0].hash, entries).status == "ok"
    [table] = floor_status(floor_url)
    assert (table["link"], table["link_event"]) == ("up", "resynced")
    journal.append("link", {"event": "lost", "reason": "unplugged"})
    entries = all_entries(journal)
    FloorClient(url).ship("T1", entries[0].hash, entries)
    assert floor_status(floor_url)[0]["link"] == "down"
