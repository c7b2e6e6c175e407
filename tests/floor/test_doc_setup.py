"""docs/floor.md, "From an empty server to a shipping table", done literally as a new user would: the
section's shell commands run by bash against the scratch server (its host, port and names put in), the
configuration it shows, a real shoed, a round played, and the floor read back as the surveillance role."""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psycopg

from shoe.journal import Journal
from tests.floor.support import stored

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## From an empty server to a shipping table"


def blocks(language: str) -> list[str]:
    text = (ROOT / "docs" / "floor.md").read_text(encoding="utf-8")
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    return re.findall(rf"```{language}\n(.*?)```", section, flags=re.S)


def localise(text: str, names: dict[str, str]) -> str:
    pattern = re.compile("|".join(re.escape(k) for k in sorted(names, key=len, reverse=True)))
    return pattern.sub(lambda m: names[m.group(0)], text)


def bash(script: str) -> subprocess.CompletedProcess[str]:
    prelude = f'shoectl() {{ "{sys.executable}" -m shoe.cli.main "$@"; }}\nset -euo pipefail\n'
    return subprocess.run(["bash", "-c", prelude + script], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          check=False)  # fmt: skip


def test_the_setup_in_the_doc_gives_a_shipping_table(pg_server: str, tmp_path: Path) -> None:
    from bench._probes import Http
    from bench._shoed import ShoedProcess
    from bench.service import Played, play_round

    host, port = re.search(r"@([^:/]+):(\d+)/", pg_server).groups()  # type: ignore[union-attr]
    tag = uuid.uuid4().hex[:8]
    journal, config = tmp_path / "journal.sqlite", tmp_path / "shoed.toml"
    names = {"db.casino.lan": host, "5432": port, "casino_floor": f"casino_floor_{tag}",
             "floor_owner": f"floor_owner_{tag}", "surveillance": f"surveillance_{tag}", "pit_boss": f"pit_boss_{tag}",
             "/var/lib/shoed/journal.sqlite": str(journal), "/etc/shoed/shoed.toml": str(config)}  # fmt: skip
    setup, run = (localise(b, names) for b in blocks("sh"))
    try:
        done = bash(setup)
        assert done.returncode == 0, done.stdout + done.stderr
        url = re.findall(r"postgresql://shoe_table_ms_04_\S+", done.stdout)[-1]
        assert (tmp_path / "journal.sqlite.key").stat().st_mode & 0o777 == 0o600
        [toml] = blocks("toml")
        config.write_text(re.sub(r'url = ".*"', f'url = "{url}"', localise(toml, names)))
        shoed_line, status_line = (line for line in run.splitlines() if line and not line.startswith("#"))
        assert shoed_line.startswith(f"shoed --journal {journal} --config {config} ")  # the shoe: the emulator here
        shoed = ShoedProcess("emu://?autoload=1", journal, tmp_path / "shoed.log", config)
        try:
            play_round(Http(shoed.url), [1, 2], Played())
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                status = Http(shoed.url).get_json("/v1/status")
                if status["floor"]["state"] == "caught-up" and status["floor"]["lag_entries"] == 0:
                    break
                time.sleep(0.2)
            assert status["floor"]["state"] == "caught-up", status["floor"]
        finally:
            shoed.close()
        shown = bash(status_line)
        assert shown.returncode == 0, shown.stderr
        [row] = [line for line in shown.stdout.splitlines() if line.startswith("MS-04")]
        assert " up " in row and row.rstrip().endswith(" 0"), shown.stdout  # link up, no alarm
        admin = f"postgresql://postgres@{host}:{port}/casino_floor_{tag}"
        with Journal.open(journal) as j:  # every entry, the clean stop's included
            assert stored(admin, "MS-04") == [(e.seq, e.hash) for e in j.entries()]
    finally:
        with psycopg.connect(pg_server, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "casino_floor_{tag}" WITH (FORCE)')
            for role in ("floor_owner", "surveillance", "pit_boss"):
                with contextlib.suppress(psycopg.Error):
                    conn.execute(f'DROP ROLE IF EXISTS "{role}_{tag}"')
