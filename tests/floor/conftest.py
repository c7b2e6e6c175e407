"""The floor's tests run against a real PostgreSQL server (docs/floor.md, "Tests").

Where the server comes from, in order: ``SHOE_FLOOR_DSN`` (a superuser's libpq URL: CI exports it); else a
throwaway cluster this session starts with ``initdb`` when the server binaries are on this machine; else
the tests skip with the command that starts one. With ``SHOE_FLOOR_TESTS=required`` (CI) a missing
server fails them instead. Each test gets a fresh database, migrated.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.floor import pg


def _session_port() -> int:
    """The throwaway cluster's port: 55433, and under pytest-xdist one port per worker above the fixed ports
    the fault tests use (55434-55436), so two workers never start a cluster on the same one."""
    if "SHOE_FLOOR_PORT" in os.environ:
        return int(os.environ["SHOE_FLOOR_PORT"])
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    number = int(worker[2:]) if worker[2:].isdigit() else 0
    return 55433 if number == 0 else 55440 + number


PORT = _session_port()


def _missing(reason: str) -> None:
    if os.environ.get("SHOE_FLOOR_TESTS") == "required":
        pytest.fail(f"SHOE_FLOOR_TESTS=required but {reason}")
    pytest.skip(f"{reason}: start one with {pg.START_HINT}")


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A superuser URL of a running server (its ``postgres`` database)."""
    dsn = os.environ.get("SHOE_FLOOR_DSN")
    if dsn:
        yield dsn
        return
    if not pg.available():
        _missing("no PostgreSQL server (SHOE_FLOOR_DSN unset, no initdb/pg_ctl/postgres found)")
    root = Path(f"/tmp/shoe-floor-test-{os.getpid()}")
    cluster = pg.Cluster(root, PORT).init()
    try:
        cluster.start()
    except RuntimeError as exc:
        cluster.remove()
        _missing(f"a throwaway cluster on port {PORT} did not start ({exc}); set SHOE_FLOOR_PORT")
    try:
        yield cluster.dsn
    finally:
        cluster.remove()


def with_database(dsn: str, database: str) -> str:
    base, _, _ = dsn.rpartition("/")
    return f"{base}/{database}"


@pytest.fixture
def floor_url(pg_server: str) -> Iterator[str]:
    """A fresh database with the floor schema, as its superuser."""
    import psycopg

    from shoe.floor.migrate import migrate

    name = f"floor_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = with_database(pg_server, name)
    migrate(url)
    try:
        yield url
    finally:
        with psycopg.connect(pg_server, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
