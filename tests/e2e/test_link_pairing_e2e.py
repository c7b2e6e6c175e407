"""The journal names the pairing each session ran on, through the real ``shoed`` and ``shoectl pair``.

Every connect writes a ``link`` ``shoe-position`` entry; on an authenticated link (SPEC §13) it carries
``authenticated`` and the pairing key's identifier (``key_id``, as ``shoectl pair`` records it), never the
key. After a rotation the next session's entry names the new key, the earlier one still the old: an
auditor tells which pairing each session ran on. (Seen failing before the entry carried them: no field.)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from drivers.keyfile import load_key, record_path
from protocols import auth
from tests.e2e.conftest import Table


def _positions(table: Table) -> list[dict[str, Any]]:
    return [dict(e.data) for e in table.entries(kinds=("link",)) if e.data.get("event") == "shoe-position"]


def _named(key: bytes) -> str:
    return f"0x{auth.key_id(key):08X}"


def test_the_link_connect_entry_names_the_pairing_key_and_a_rotation_shows(e2e: Callable[..., Table]) -> None:
    table = e2e()
    key_file = table.root / "shoe.key"
    first_key = load_key(key_file)
    assert table.shoed.stop() == 0
    (first,) = _positions(table)
    assert first["authenticated"] is True and first["key_id"] == _named(first_key)
    journal_text = json.dumps([dict(e.data) for e in table.entries()])
    assert first_key.hex() not in journal_text  # the identifier, never the key

    done = table.shoectl("--port", str(table.link), "pair", "--key-file", str(key_file), "--by", "tech-7", "--json")
    assert done.returncode == 0, done.stderr
    second_key = load_key(key_file)
    assert second_key != first_key
    record = json.loads(record_path(key_file).read_text().splitlines()[-1])
    assert record["key_id"] == _named(second_key) and record["by"] == "tech-7"

    table.shoed.start()
    assert table.shoed.stop() == 0
    earlier, later = _positions(table)
    assert earlier["key_id"] == _named(first_key)
    assert later["authenticated"] is True and later["key_id"] == _named(second_key) == record["key_id"]
