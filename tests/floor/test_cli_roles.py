"""Every ``shoectl floor`` command with every role (docs/floor.md, "Roles"), as real processes against the
real server: it works, or it says in one line which role it needs (exit 2), never a traceback; a floor
never migrated says "run `shoectl floor migrate`" (exit 3); a URL that is not PostgreSQL's is a usage
error (exit 2), not an outage."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from shoe.floor.client import FloorClient
from shoe.floor.credentials import enrol
from shoe.floor.migrate import migrate
from tests.floor.conftest import with_database
from tests.floor.support import all_entries, journal_with
from tests.floor.test_cli_floor import shoectl

ROLES = ("owner", "auditor", "pit", "table", "stranger")
# command -> the roles it works for; every other role is told, in one line, which role it needs
COMMANDS: dict[str, tuple[list[str], set[str], str]] = {
    "migrate": (["floor", "migrate"], {"owner"}, "the database's owner"),
    "enrol": (["floor", "enrol", "T-NEW", "--key-file", "{tmp}/new.key"], {"owner"}, "the database's owner"),
    "revoke": (["floor", "revoke", "T-OLD"], {"owner"}, "the database's owner"),
    "status": (["floor", "status"], {"owner", "auditor"}, "the floor_auditor role"),
    "rounds": (["floor", "rounds"], {"owner", "auditor", "pit"}, "the floor_pit or floor_auditor role"),
    "reconstruct": (["floor", "reconstruct", "R-1"], {"owner", "auditor"}, "the floor_auditor role"),
    "verify": (["floor", "verify"], {"owner", "auditor"}, "the floor_auditor role"),
    "journal verify --against": (
        ["journal", "verify", "--journal", "{journal}", "--against"],
        {"owner", "auditor"},
        "the floor_auditor role",
    ),
}


def _run(command: list[str], url: str, tmp: Path, journal: Path) -> tuple[int, str]:
    args = [a.format(tmp=tmp, journal=journal) for a in command]
    args = [*args, url] if args[-1] == "--against" else [*args, "--url", url]
    out = shoectl(*args)
    return out.returncode, out.stdout + out.stderr


@pytest.fixture(scope="module")
def floor(pg_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, object]]:
    """A database owned by a login role with CREATEROLE (not a superuser), migrated by it; table T1
    enrolled and shipped, T-OLD enrolled; a login role in each group and one in none."""
    tag = uuid.uuid4().hex[:8]
    tmp = tmp_path_factory.mktemp("roles")
    names = {r: f"{r}_{tag}" for r in ROLES if r != "table"}
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{names["owner"]}" LOGIN CREATEROLE')
        conn.execute(f'CREATE DATABASE "floor_{tag}" OWNER "{names["owner"]}"')
    superuser = with_database(pg_server, f"floor_{tag}")
    base = superuser.replace("postgresql://postgres@", "postgresql://{}@")
    owner = base.format(names["owner"])
    migrate(owner)
    with psycopg.connect(owner, autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{names["auditor"]}" LOGIN IN ROLE floor_auditor')
        conn.execute(f'CREATE ROLE "{names["pit"]}" LOGIN IN ROLE floor_pit')
        conn.execute(f'CREATE ROLE "{names["stranger"]}" LOGIN')
    journal = tmp / "j.sqlite"
    table = enrol(owner, "T1", tmp / "j.sqlite.key").url
    entries = all_entries(journal_with(journal, 6))
    assert FloorClient(table).ship("T1", entries[0].hash, entries).status == "ok"
    urls = {r: base.format(n) for r, n in names.items()}
    urls["table"] = table
    yield {"urls": urls, "owner": owner, "tmp": tmp, "journal": journal, "superuser": superuser}
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "floor_{tag}" WITH (FORCE)')


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_with_every_role(floor: dict[str, object], name: str, role: str, tmp_path: Path) -> None:
    command, allowed, needs = COMMANDS[name]
    urls = floor["urls"]
    assert isinstance(urls, dict)
    if name == "revoke" and role == "owner":
        enrol(str(floor["owner"]), "T-OLD", tmp_path / "old.key")
    code, said = _run(command, urls[role], tmp_path, Path(str(floor["journal"])))
    assert "Traceback" not in said and code != 1, said
    if role in allowed:
        assert code == 0, said
    else:
        assert code == 2 and f"needs {needs}" in said, said
        assert len([line for line in said.splitlines() if "needs" in line]) == 1, said


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_on_a_floor_never_migrated_says_run_migrate(pg_server: str, name: str, tmp_path: Path) -> None:
    database = f"empty_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{database}"')
    try:
        journal = tmp_path / "j.sqlite"
        journal_with(journal, 2).close()
        code, said = _run(COMMANDS[name][0], with_database(pg_server, database), tmp_path, journal)
        assert "Traceback" not in said, said
        if name == "migrate":
            assert code == 0, said
        elif name == "revoke":  # migrate first, then there is something to revoke: the same next step
            assert code == 3 and "shoectl floor migrate" in said, said
        else:
            assert code == 3 and "run `shoectl floor migrate" in said, said
    finally:
        with psycopg.connect(pg_server, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


@pytest.mark.parametrize("url", ["http://x", "https://db/floor", "db.casino.lan"])
@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_url_that_is_not_postgresql_is_a_usage_error(name: str, url: str, tmp_path: Path) -> None:
    journal = tmp_path / "j.sqlite"
    journal_with(journal, 1).close()
    code, said = _run(COMMANDS[name][0], url, tmp_path, journal)
    assert code == 2 and "is not a PostgreSQL URL" in said and "Traceback" not in said, said
