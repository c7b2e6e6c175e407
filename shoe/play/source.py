"""Where a scripted round's cards come from: the shoe (through ``ShoeClient``), or, for the dry run,
the script's own ``"shoe"`` list dealt exactly as the emulator loaded with it would deal it.

A card source does the three things the dealer does with a shoe: ``dispense`` a stack (its reads, in
order; ``None`` for an unreadable card), ``release_stub`` (the cards left come out of the shoe; the
count) and ``scan`` (a card the dealer passes across the reader, taken from the released stub).

Port selection (docs/play-scripts.md): no port, or ``emu://`` with no ``deck``/``seed`` option, is
the in-process emulator loaded with exactly the script's ``"shoe"`` list (other ``emu://`` options,
such as ``unreadable_at=3``, still apply); any other URL is opened with ``ShoeClient.open``.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Protocol
from urllib.parse import urlsplit

from drivers.client import ShoeClient
from drivers.emu_transport import EmulatorTransport
from drivers.emulator import EmulatedShoe, EmulatorConfig
from drivers.errors import ShoeUnavailable
from protocols.cards import ALL_CODES

__all__ = [
    "CardSource",
    "ListSource",
    "OutOfCards",
    "ShoeSource",
    "Tally",
    "emulator_config",
    "known_order",
    "open_shoe",
]


class OutOfCards(Exception):
    """The dry run needs more cards than the script lists."""


@dataclasses.dataclass
class Tally:
    """What the round took from the shoe: counts only (the record shows the cards elsewhere)."""

    stacks: int = 0
    cards_dispensed: int = 0
    stub: int | None = None  # the count the shoe reported when the stub was released
    scanned: int = 0

    @property
    def taken(self) -> int:
        return self.cards_dispensed + self.scanned

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


class CardSource(Protocol):
    tally: Tally

    def dispense(self, cards: int) -> tuple[str | None, ...]: ...

    def release_stub(self) -> int: ...

    def scan(self) -> str | None: ...


class ListSource:
    """The script's card list, top first: stacks from the top, then the stub, scanned in order."""

    def __init__(self, codes: Sequence[str]) -> None:
        self._codes = tuple(codes)
        self.tally = Tally()

    def _take(self, count: int) -> tuple[str, ...]:
        start = self.tally.taken
        if start + count > len(self._codes):
            raise OutOfCards(f"the script lists {len(self._codes)} cards and the round needs more")
        return self._codes[start : start + count]

    def dispense(self, cards: int) -> tuple[str | None, ...]:
        codes = self._take(cards)
        self.tally.stacks += 1
        self.tally.cards_dispensed += cards
        return codes

    def release_stub(self) -> int:
        self.tally.stub = len(self._codes) - self.tally.taken
        return self.tally.stub

    def scan(self) -> str | None:
        (code,) = self._take(1)
        self.tally.scanned += 1
        return code


class ShoeSource:
    """A connected shoe: one DISPENSE per stack, RELEASE_STUB, one SCAN per card passed by the dealer."""

    def __init__(self, client: ShoeClient) -> None:
        self.client = client
        self.tally = Tally()

    def dispense(self, cards: int) -> tuple[str | None, ...]:
        stack = self.client.dispense(cards)
        self.tally.stacks += 1
        self.tally.cards_dispensed += len(stack.cards)
        return stack.codes

    def release_stub(self) -> int:
        self.tally.stub = self.client.release_stub()
        return self.tally.stub

    def scan(self) -> str | None:
        read = self.client.scan()
        self.tally.scanned += 1
        return read.card


def emulator_config(port: str | None, deck: Sequence[str]) -> EmulatorConfig | None:
    """The in-process emulator to build for ``port``, or ``None`` when the port names another shoe."""
    if port is None:
        return EmulatorConfig(deck=tuple(deck))
    parts = urlsplit(port)
    if parts.scheme != "emu":
        return None
    try:
        config = EmulatorConfig.from_query(parts.query)
    except ValueError as exc:
        raise ShoeUnavailable(f"port {port!r}: {exc}", hint="see shoectl emulate --help for the options") from exc
    if config.deck is None and config.seed is None:
        config = dataclasses.replace(config, deck=tuple(deck))
    return config


def known_order(port: str | None, deck: Sequence[str]) -> tuple[str, ...] | None:
    """The order the shoe at ``port`` will deal, when it can be known before dealing: an in-process
    emulator's deck (the script's list, its ``deck`` option, or the shuffle of its ``seed``, exactly as
    the emulator makes it); ``None`` for any other shoe (a real shoe's order is known only as it deals)."""
    config = emulator_config(port, deck)
    if config is None:
        return None
    if config.deck is not None:
        return tuple(config.deck)
    codes = list(ALL_CODES)
    random.Random(config.seed).shuffle(codes)  # as drivers.emulator.model.Mechanism loads a seeded deck
    return tuple(codes)


@contextmanager
def open_shoe(port: str | None, deck: Sequence[str]) -> Iterator[ShoeClient]:
    """A connected client for ``port`` (see the module docstring), closed on exit."""
    config = emulator_config(port, deck)
    if config is None:
        assert port is not None
        client = ShoeClient.open(port)
    else:
        client = ShoeClient(EmulatorTransport(EmulatedShoe(config), url=port or "emu://", owns_shoe=True))
        try:
            client.connect()
        except BaseException:
            client.close()
            raise
    try:
        yield client
    finally:
        client.close()
