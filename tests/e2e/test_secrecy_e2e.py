"""The real ``shoed`` on ``emu://?deck=...`` and ``emu://?seed=...``: its status, for
every role, and its log show the port as ``emu://``, never the deck (not even as codes written together)
nor the seed, which would let an observer predict every card of the next round."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import write_config
from tests.e2e.support import TOKENS, Proc, Shoed, deck, free_port

DECK = "".join(deck("7c", "Ts", "Jd", "Ah", "Kh", "8c", "8d", "4s", "9h", "Qh", "Jh", "Th"))
SEED = "424242"
RUN = re.compile(r"(?<![A-Za-z0-9])(?:[2-9TJQKA][cdhs]){2,}(?![A-Za-z0-9])")
"""Two or more card codes written together: a deck, or part of one."""


@pytest.fixture
def shoed(tmp_path: Path) -> Iterator[list[Proc]]:
    procs: list[Proc] = []
    yield procs
    for proc in procs:
        assert proc.stop() == 0, proc.tail()


@pytest.mark.parametrize("option", [f"deck={DECK}", f"seed={SEED}", f"seed={SEED}&deck={DECK}"])
def test_status_and_log_never_show_the_ports_options(tmp_path: Path, shoed: list[Proc], option: str) -> None:
    http_port = free_port()
    config = tmp_path / "shoed.toml"
    write_config(config, http_port)
    service = Shoed(tmp_path, f"emu://?{option}", tmp_path / "journal.sqlite", config, http_port=http_port, procs=shoed)
    service.start()
    statuses = {role: service.api.call("GET", "/v1/status", role=role) for role in TOKENS}
    assert all(reply.ok for reply in statuses.values()), statuses
    assert {reply.body["shoe"]["port"] for reply in statuses.values()} == {"emu://"}
    assert service.stop() == 0
    log = service.proc.log.read_text()
    assert "shoe connected" in log and "service ready" in log, log
    text = log + "\n".join(json.dumps(reply.body) for reply in statuses.values())
    assert SEED not in text and DECK[:8] not in text and "deck=" not in text and "seed=" not in text, text
    assert RUN.findall(text) == [], RUN.findall(text)
