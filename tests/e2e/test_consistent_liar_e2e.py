"""The consistent liar in the cable, through the real ``shoed`` (SPEC §13): on an authenticated link, a void.

The shoe (an emulator on TCP, paired with the table's key) deals seat 1 3s Kc and scans Qs 2s Td; a man
in the middle (``drivers.emulator.mitm.TcpMitm``) rewrites seat 1's stack to Ah Kh in the CARD_READs,
STACK_READY and DISPENSE_REPORTs alike and the scans to Qh Jh Th, with every CRC recomputed. On a v1.0
link that lie agreed with itself and a royal flush was paid. On the authenticated link every rewritten
frame fails its MAC: the deal is a discrepancy, the round is voided with an alarm naming the refused
frames, and nothing is paid. (Seen failing before the link checked MACs: the deal returned Ah Kh.)
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.emulator import EmulatedShoe, EmulatorConfig, serve_tcp
from drivers.emulator.mitm import TcpMitm, consistent_liar
from drivers.keyfile import create_key
from tests.e2e.conftest import write_config
from tests.e2e.support import Proc, Shoed, deck, free_port

OPEN = {"game": "mississippi-stud", "jurisdiction": "NY", "table": {"min_ante": 100, "max_ante": 10_000},
        "seats": [{"seat": 1, "ante": 500}]}  # fmt: skip
DECK = deck("3s", "Kc", "Qs", "2s", "Td")


@pytest.fixture
def lying_table(tmp_path: Path) -> Iterator[tuple[Shoed, EmulatedShoe, TcpMitm]]:
    key_file = tmp_path / "shoe.key"
    shoe = EmulatedShoe(EmulatorConfig(deck=DECK))
    shoe.pair(create_key(key_file))
    server = serve_tcp(shoe, "127.0.0.1", 0)
    mitm = TcpMitm(f"{server.address[0]}:{server.address[1]}", [consistent_liar()])
    config, http_port = tmp_path / "shoed.toml", free_port()
    write_config(config, http_port, key_file)
    procs: list[Proc] = []
    shoed = Shoed(tmp_path, f"socket://{mitm.address[0]}:{mitm.address[1]}", tmp_path / "journal.sqlite", config,
                  http_port=http_port, procs=procs)  # fmt: skip
    try:
        shoed.start()
        yield shoed, shoe, mitm
    finally:
        for proc in procs:
            if proc.stop() is None:
                with contextlib.suppress(OSError):
                    os.kill(proc.pid, signal.SIGKILL)
        mitm.close()
        server.close()
        shoe.close()


def _alarms(shoed: Shoed) -> list[dict[str, Any]]:
    from shoe.journal import Journal

    with Journal.open(shoed.journal) as journal:
        return [dict(e.data) for e in journal.entries(kinds=("fault",)) if e.data.get("event") == "alarm"]


def test_the_consistent_liar_is_a_void_with_an_alarm_on_an_authenticated_link(
    lying_table: tuple[Shoed, EmulatedShoe, TcpMitm],
) -> None:
    shoed, shoe, mitm = lying_table
    api = shoed.api
    opened = api.call("POST", "/v1/rounds", OPEN)
    assert opened.status == 201, opened.body
    api.post("/v1/round/no-more-bets")
    dealt = api.call("POST", "/v1/round/deal")
    assert mitm.state.rewritten, "the liar rewrote nothing"
    body = dealt.body
    view = api.round()
    assert view is not None and view["closed"] is True and view["state"] == "misdeal", (body, view)
    text = str(body)
    assert "Ah" not in text and "Kh" not in text  # the lie was never shown, never journaled as dealt
    assert shoe.stats.cards_moved == 2
    settle = api.call("POST", "/v1/round/settle")
    assert settle.status >= 400  # nothing to settle: 0 paid
    shoed.proc.stop()
    alarms = _alarms(shoed)
    refused = [a for a in alarms if a["cause"] == "refused-frame"]
    assert refused, alarms
    assert any(name in refused[0]["detail"] for name in ("CARD_READ", "STACK_READY", "DISPENSE_REPORT"))
    from shoe.journal import Journal

    with Journal.open(shoed.journal) as journal:
        settlements = list(journal.entries(kinds=("settlement",)))
        cards = [e for e in journal.entries(kinds=("card",)) if e.data.get("dispense_id") is not None]
    assert settlements == [] and cards == []
