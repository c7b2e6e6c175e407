"""Shared helpers of the recovery tests (power cuts, restarts, pulled cables)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

from drivers.emulator import EmulatedShoe, EmulatorConfig, serve_pty
from shoe.service import TableService
from tests.service.conftest import OBS, Table, deck

SEATS = [{"seat": 1, "ante": 500}, {"seat": 2, "ante": 500}, {"seat": 4, "ante": 1000}]
OPEN = {"game": "mississippi-stud", "jurisdiction": "NY", "seats": SEATS}


def wait_until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.02)


def state_of(service: TableService) -> str:
    view = service.round_view(OBS)
    return "" if view is None else str(view["state"])


def irregularities(table: Table) -> list[tuple[str, str | None]]:
    return [(e.data["action"], e.data.get("cause")) for e in table.entries(kinds=("irregularity",))]


def pty_table_at(tmp_path: Path) -> Iterator[Table]:
    """The emulated shoe on a pseudo-terminal, opened by the service through real pyserial."""
    shoe = EmulatedShoe(EmulatorConfig(deck=deck()))
    link = tmp_path / "ttyshoe"
    server = serve_pty(shoe, link=str(link))
    table = Table(tmp_path, shoe, None, str(link))
    yield table
    for service in table.services:
        service.stop()
    server.close()
    shoe.close()
