"""Fixtures of the people tests: a real ``TableService`` on the in-process emulator, its real journal and
employees store (SQLite files in the test's folder), served over loopback with configuration tokens."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from drivers.emu_transport import EmulatorTransport
from drivers.emulator import EmulatedShoe, EmulatorConfig
from shoe.api import ApiServer
from shoe.api.people_routes import open_people
from shoe.service import Role, TableService
from tests.api.conftest import TOKEN_OF, TOKENS, Answer, Client, make_config
from tests.e2e.conftest import e2e  # noqa: F401 - the real shoed's fixture
from tests.service.conftest import FAST, deck

TECH = TOKEN_OF[Role.TECHNICIAN]
DEALER_CONFIG = TOKEN_OF[Role.DEALER]


@dataclass
class Table:
    service: TableService
    server: ApiServer
    client: Client
    shoe: EmulatedShoe | None = None

    def call(self, method: str, path: str, body: object = None, token: str | None = None) -> Answer:
        return self.client.call(method, path, body, token=token)

    def ok(self, method: str, path: str, body: object = None, token: str | None = None) -> Any:
        answer = self.call(method, path, body, token)
        assert answer.status in (200, 201), (method, path, answer.status, answer.body)
        return answer.json

    def people(self, action: str | None = None) -> list[dict[str, Any]]:
        journal = self.service._owner.sink.journal
        assert journal is not None
        found = [dict(e.data) for e in journal.entries(kinds=["people"])]
        return [d for d in found if action is None or d["action"] == action]

    def entries(self, round_id: str | None = None) -> list[Any]:
        journal = self.service._owner.sink.journal
        assert journal is not None
        return list(journal.entries(round_id=round_id))

    def add(self, eid: str, name: str, roles: list[str], badge: str | None, pin: str | None) -> Any:
        body = {"id": eid, "name": name, "roles": roles, "badge": badge, "pin": pin}
        return self.ok("POST", "/v1/people", body, TECH)

    def sign_in(self, badge: str, pin: str) -> str:
        token: str = self.ok("POST", "/v1/sessions", {"badge": badge, "pin": pin}, None)["token"]
        return token


def tables(tmp_path: Path) -> Iterator[Callable[..., Table]]:
    made: list[Table] = []

    def make(*first: str, open_api: bool = False, **config: Any) -> Table:
        """A table; with ``first``, on an in-process emulator whose deck starts with those cards;
        ``open_api``: no configuration tokens (loopback: every request holds every role)."""
        shoe = EmulatedShoe(EmulatorConfig(deck=deck(*first))) if first else None
        tokens = {} if open_api else TOKENS
        cfg = replace(make_config(tmp_path, "emu://" if shoe else "emu://?seed=7", tokens), **config)
        if shoe is not None:
            cfg = replace(cfg, timeouts=FAST)
        service = TableService(cfg, transport_factory=(lambda: EmulatorTransport(shoe)) if shoe else None)
        service.start()
        server = ApiServer(service, "127.0.0.1", 0, tokens=tokens, people=open_people(service, cfg)).start()
        table = Table(service, server, Client(server.address), shoe)
        made.append(table)
        return table

    yield make
    for table in reversed(made):
        table.server.stop()
        table.service.stop()
        if table.shoe is not None:
            table.shoe.close()


@pytest.fixture
def make_table(tmp_path: Path) -> Iterator[Callable[..., Table]]:
    yield from tables(tmp_path)


@pytest.fixture
def table(make_table: Callable[..., Table]) -> Table:
    return make_table()
