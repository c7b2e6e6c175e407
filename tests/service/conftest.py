"""Real parts for the service tests: a real SQLite journal in tmp_path, the emulated shoe in process
(or on a pseudo-terminal through real pyserial), and helpers that play rounds through ``submit``."""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from drivers.emu_transport import EmulatorTransport
from drivers.emulator import EmulatedShoe, EmulatorConfig
from drivers.timeouts import LinkTimeouts
from shoe.cards import FULL_DECK
from shoe.journal import Entry, Journal
from shoe.service import Role, ServiceConfig, TableService

FAST = LinkTimeouts(reply=0.3, retries=3, dispense_base=1.0, dispense_per_card=1.0, scan=2.0,
                    reconnect_initial=0.02, reconnect_max=0.2, reconnect_give_up=10.0, read_poll=0.05)  # fmt: skip
D, T, OBS, S = Role.DEALER, Role.TECHNICIAN, Role.OBSERVER, Role.TABLE_SYSTEM


def deck(*first: str) -> tuple[str, ...]:
    """A 52-card deck starting with ``first``, the rest in index order."""
    rest = [c.code for c in FULL_DECK if c.code not in first]
    return (*first, *rest)


def smudge(shoe: EmulatedShoe, *numbers: int) -> None:
    """Cards ``numbers`` (1-based, of the deck loaded at start) become unreadable now: after the deck check read
    them (which refuses a deck with an unreadable card, SPEC §11), a smudge or a reader fault at the dispense."""
    mech = shoe._mech
    with shoe._cond:
        for i, card in enumerate(mech.deck):
            if card.number in numbers:
                mech.deck[i] = dataclasses.replace(card, unreadable=True)


def restack(shoe: EmulatedShoe, codes: Sequence[str]) -> None:
    """After the deck check: the shoe holds ``codes`` (top first) instead. A script's list with a card twice
    stands for cards the dealer puts back into the shoe later (seven-card stud's reshuffled burns), which a
    deck check of the loaded deck cannot contain (SPEC §11)."""
    from drivers.emulator.model import Card

    with shoe._cond:
        shoe._mech.deck = deque(Card(code, n, False) for n, code in enumerate(codes, 1))


def entries(path: Path, **kwargs: Any) -> list[Entry]:
    with Journal.open(path) as journal:
        return list(journal.entries(**kwargs))


class Table:
    """A service on an emulated shoe, and the journal path, for one test."""

    def __init__(self, tmp_path: Path, shoe: EmulatedShoe, factory: Callable[[], Any] | None, port: str) -> None:
        self.journal = tmp_path / "journal.sqlite"
        self.shoe = shoe
        self.factory = factory
        self.config = ServiceConfig(shoe_port=port, journal=self.journal, timeouts=FAST, submit_timeout=20.0)
        self.services: list[TableService] = []

    def start(self) -> TableService:
        service = TableService(self.config, transport_factory=self.factory)
        service.start()
        self.services.append(service)
        return service

    def entries(self, **kwargs: Any) -> list[Entry]:
        return entries(self.journal, **kwargs)

    def key(self) -> bytes | None:
        """The pairing key the service gave its embedded emulator (SPEC §13): another client needs it too."""
        from drivers.keyfile import load_key

        path = self.journal.parent / "shoe.key"
        return load_key(path) if path.exists() else None


@pytest.fixture
def table_factory(tmp_path: Path) -> Iterator[Callable[..., Table]]:
    tables: list[Table] = []
    shoes: list[EmulatedShoe] = []

    def build(*first: str, **config: Any) -> Table:
        shoe = EmulatedShoe(EmulatorConfig(deck=deck(*first), **config))
        shoes.append(shoe)
        table = Table(tmp_path, shoe, lambda: EmulatorTransport(shoe), "emu://")
        tables.append(table)
        return table

    yield build
    for table in tables:
        for service in table.services:
            service.stop()
    for shoe in shoes:
        shoe.close()


def play_ny(
    service: TableService, seats: dict[int, int], decisions: dict[int, list[int]] | None = None
) -> list[dict[str, Any]]:
    """Open, no more bets, deal, stub, 3 streets of decisions and reveals (by the shoe's reader), settle.

    ``decisions[seat]`` lists the multiples per street (default 1 on every street). Returns every reply.
    """
    replies = [
        service.submit("open-round", {"game": "mississippi-stud", "jurisdiction": "NY",
                                      "table": {"min_ante": 100, "max_ante": 10_000},
                                      "seats": [{"seat": s, "ante": a} for s, a in seats.items()]}, D),
        service.submit("no-more-bets", {}, D),
        service.submit("deal", {}, D),
        service.submit("release-stub", {}, D),
    ]  # fmt: skip
    replies += finish_streets(service, decisions or {})
    return replies


def finish_streets(service: TableService, decisions: dict[int, list[int]]) -> list[dict[str, Any]]:
    replies = []
    for street in range(3):
        while (view := service.round_view(OBS)) is not None and view["next_to_decide"] is not None:
            seat = view["next_to_decide"]
            multiple = decisions.get(seat, [1, 1, 1])[street]
            replies.append(service.submit("decide", {"seat": seat, "multiple": multiple}, D))
        view = service.round_view(OBS)
        if view is None or view["state"] in ("complete", "misdeal"):
            return replies
        replies.append(service.submit("reveal", {"index": street + 1}, D))
    replies.append(service.submit("settle", {}, D))
    return replies
