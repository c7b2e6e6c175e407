"""The shoe's mechanism, without any protocol: deck, feeder, reader, output tray, stub, door, faults.

Decisions (the SPEC leaves them to the device):

- Card numbers are 1-based positions from the top of the deck as loaded. Positional faults from the
  config refer to the deck loaded at start; ``inject_jam(n)`` refers to the deck loaded now.
- A **jam** takes the jammed card out of the shoe (the technician removes it, the others keep their
  order); it does not reach the tray. A **double feed** puts the card and the one under it in the tray
  unread. A **misfeed** moves nothing. Each raises its fault and interrupts the stack.
- An **unreadable** card is a property of the physical card: it reads SMUDGED when dispensed and when
  scanned, and a deck check counts it as unreadable. ``misreads`` counts every unreadable read.
- **Deck check** lists each identity once (ascending), ``duplicates`` once per repeated identity, and
  ``count`` is every card in the shoe, unreadable ones included.
- ``RELEASE_STUB`` presents every card left in the shoe; the shoe is empty until ``load``. SCAN reads
  the presented cards in their order, one per SCAN.
- Faults persist over a reboot (they are physical or need a person), except INTERNAL_ERROR, which a
  reboot clears. ``count_known=False`` models a shoe without a card counter.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from drivers.emulator.config import EmulatorConfig
from drivers.emulator.impairment import random_for
from protocols.cards import ALL_CODES, card_to_byte
from protocols.codes import FaultCode, ReadStatus, SelfTestComponent, ShoeState
from protocols.fields import CardRead

BLOCKING = frozenset(
    {
        FaultCode.JAM,
        FaultCode.DOUBLE_FEED,
        FaultCode.MISFEED,
        FaultCode.DOOR_OPEN,
        FaultCode.TAMPER,
        FaultCode.INTERNAL_ERROR,
    }
)
"""Faults that refuse DISPENSE, SCAN and RELEASE_STUB (SPEC §8.2)."""

CLEARABLE = frozenset(FaultCode) - {FaultCode.DOOR_OPEN, FaultCode.INTERNAL_ERROR}
"""Faults CLEAR_FAULT removes; DOOR_OPEN clears when the door closes, INTERNAL_ERROR on reboot."""


class Refused(Exception):
    """The mechanism cannot do it now. ``fault`` is True when a blocking fault is the reason."""

    def __init__(self, reason: str, *, fault: bool = False) -> None:
        super().__init__(reason)
        self.fault = fault


@dataclass(frozen=True, slots=True)
class Card:
    code: str
    number: int
    unreadable: bool
    foreign: bool = False  # another back design than the deck's (SPEC §8.4, §11)

    @property
    def read(self) -> CardRead:
        if self.foreign:
            return CardRead(None, ReadStatus.FOREIGN_CARD)
        return CardRead(None, ReadStatus.SMUDGED) if self.unreadable else CardRead(self.code)


@dataclass
class Counters:
    """Lifetime counters (non-volatile), in COUNTERS order."""

    cards: int = 0
    stacks: int = 0
    jams: int = 0
    misreads: int = 0
    power_cycles: int = 0
    double_feeds: int = 0
    misfeeds: int = 0

    def values(self) -> tuple[int, ...]:
        # Field by field: dataclasses.astuple deep-copies each value (a GET_COUNTERS per check).
        return (self.cards, self.stacks, self.jams, self.misreads, self.power_cycles, self.double_feeds,
                self.misfeeds)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Feed:
    """What one feed did: a card read into the tray, or a fault (and how many cards left the shoe)."""

    read: CardRead | None = None
    fault: FaultCode | None = None
    moved: int = 0


class Mechanism:
    def __init__(self, config: EmulatorConfig) -> None:
        seed = config.seed
        self._rng = random_for(seed, "unreadable")
        self._unreadable_rate = config.unreadable_rate
        if config.deck is not None:
            codes: list[str] = list(config.deck)
        else:
            codes = list(ALL_CODES)
            random.Random(seed).shuffle(codes)
        self.deck: deque[Card] = self._cards(codes, config.unreadable_at)
        self.back = config.back
        self.stub: deque[Card] = deque()
        self.stub_released = False
        self.tray_cards = 0
        self.tray_id = 0
        self.door_open = config.door_open
        self.faults: set[FaultCode] = {FaultCode.DOOR_OPEN} if config.door_open else set()
        self.counters = Counters()
        self.count_known = config.count_known
        self.moved = 0  # physical cards that left the shoe (a statistic, not a protocol counter)
        self._jam_next = False
        self._jam_at = {n for n in (config.jam_at,) if n is not None}
        self._double_at = {n for n in (config.double_feed_at,) if n is not None}
        self._misfeed_at = {n for n in (config.misfeed_at,) if n is not None}

    def _cards(self, codes: Sequence[str], unreadable_at: Iterable[int]) -> deque[Card]:
        marked = set(unreadable_at)
        return deque(
            Card(code, n, n in marked or (self._unreadable_rate > 0 and self._rng.random() < self._unreadable_rate))
            for n, code in enumerate(codes, 1)
        )

    # --- state ---------------------------------------------------------------------------------

    @property
    def tray_occupied(self) -> bool:
        return self.tray_cards > 0

    def blocking(self) -> list[FaultCode]:
        return sorted(self.faults & BLOCKING)

    def fault_flags(self) -> int:
        return sum(code.flag for code in self.faults)

    def cards_remaining(self) -> int | None:
        return len(self.deck) if self.count_known else None

    def state(self, *, dispensing: bool, scanning: bool) -> ShoeState:
        if self.blocking():
            return ShoeState.FAULT
        if dispensing:
            return ShoeState.DISPENSING
        if scanning:
            return ShoeState.SCANNING
        if self.tray_occupied:
            return ShoeState.STACK_IN_TRAY
        if self.stub_released:
            return ShoeState.STUB_RELEASED
        return ShoeState.IDLE

    def _check_blocking(self, what: str) -> None:
        active = self.blocking()
        if active:
            names = ", ".join(code.name for code in active)
            raise Refused(f"{what} refused: fault {names} is active", fault=True)

    # --- dispensing -----------------------------------------------------------------------------

    def verify_dispense(self, cards: int) -> None:
        self._check_blocking("DISPENSE")
        if self.tray_occupied:
            raise Refused(f"the output tray holds {self.tray_cards} card(s) of dispense {self.tray_id}")
        if self.stub_released:
            raise Refused("the stub was released: load a deck first")
        if self.count_known and len(self.deck) < cards:
            raise Refused(f"{len(self.deck)} card(s) remain, {cards} requested")

    def begin_stack(self, dispense_id: int) -> None:
        self.tray_id = dispense_id

    def feed(self) -> Feed:
        """Feed the next card towards the tray through the reader."""
        if not self.deck:
            self.faults.add(FaultCode.SHOE_EMPTY)
            return Feed(fault=FaultCode.SHOE_EMPTY)
        number = self.deck[0].number
        if self._jam_next or number in self._jam_at:
            self._jam_next = False
            self._jam_at.discard(number)
            self.deck.popleft()
            self.moved += 1
            self.counters.jams += 1
            self.faults.add(FaultCode.JAM)
            return Feed(fault=FaultCode.JAM, moved=1)
        if number in self._double_at:
            self._double_at.discard(number)
            moved = min(2, len(self.deck))
            for _ in range(moved):
                self.deck.popleft()
            self._to_tray(moved)
            self.counters.double_feeds += 1
            self.faults.add(FaultCode.DOUBLE_FEED)
            return Feed(fault=FaultCode.DOUBLE_FEED, moved=moved)
        if number in self._misfeed_at:
            self._misfeed_at.discard(number)
            self.counters.misfeeds += 1
            self.faults.add(FaultCode.MISFEED)
            return Feed(fault=FaultCode.MISFEED)
        card = self.deck.popleft()
        self._to_tray(1)
        if card.unreadable:
            self.counters.misreads += 1
        return Feed(read=card.read, moved=1)

    def _to_tray(self, count: int) -> None:
        self.tray_cards += count
        self.counters.cards += count
        self.moved += count

    def take(self) -> int | None:
        """The dealer takes the stack: the dispense id it belonged to, or None if the tray was empty."""
        if not self.tray_occupied:
            return None
        self.tray_cards = 0
        return self.tray_id

    def inject_jam(self, at_card: int | None) -> None:
        if at_card is None:
            self._jam_next = True
        elif at_card < 1:
            raise ValueError(f"card number {at_card} is not 1-based")
        else:
            self._jam_at.add(at_card)

    # --- stub, scan, deck -----------------------------------------------------------------------

    def release_stub(self) -> int:
        self._check_blocking("RELEASE_STUB")
        if self.stub_released:
            raise Refused("the stub is already released")
        self.stub, self.deck = self.deck, deque()
        self.stub_released = True
        return len(self.stub)

    def verify_scan(self) -> None:
        self._check_blocking("SCAN")
        if not self.stub_released and not self.stub:  # a stub stays in the dealer's hand when the next deck is loaded
            raise Refused("nothing to scan: SCAN reads the cards of a released stub")

    def scan(self) -> CardRead | None:
        """Read the next presented card, or None when every presented card has been read."""
        if not self.stub:
            return None
        card = self.stub.popleft()
        if card.unreadable:
            self.counters.misreads += 1
        return card.read

    def deck_check(self) -> tuple[int, tuple[str, ...], tuple[str, ...], int, str, tuple[str, ...]]:
        """DECK_REPORT's fields: count, present, duplicates, unreadable, back, foreign (SPEC §11)."""
        self._check_blocking("DECK_CHECK")
        if self.tray_occupied or self.stub_released:
            raise Refused("DECK_CHECK needs an idle shoe with its deck loaded")
        seen: dict[str, int] = {}
        foreign: set[str] = set()
        for card in self.deck:
            if card.foreign:
                foreign.add(card.code)
            elif not card.unreadable:
                seen[card.code] = seen.get(card.code, 0) + 1
        present = tuple(sorted(seen, key=card_to_byte))
        duplicates = tuple(code for code in present if seen[code] > 1)
        unreadable = sum(1 for card in self.deck if card.unreadable and not card.foreign)
        back = self.back if self.deck else ""
        return len(self.deck), present, duplicates, unreadable, back, tuple(sorted(foreign, key=card_to_byte))

    def load(self, codes: Sequence[str]) -> bool:
        """Load a new deck into an empty shoe. Returns True when this cleared SHOE_EMPTY."""
        return self.load_cards([(code, False) for code in codes], self.back)

    def load_cards(self, cards: Sequence[tuple[str, bool]], back: str, *, mid_round: bool = False) -> bool:
        """Load ``(code, foreign)`` cards with ``back``; ``mid_round`` puts them on top of cards still held.

        Returns True when this cleared SHOE_EMPTY.
        """
        if self.deck and not self.stub_released and not mid_round:
            raise ValueError(f"the shoe still holds {len(self.deck)} cards: release the stub first")
        new = deque(Card(code, n, False, foreign) for n, (code, foreign) in enumerate(cards, 1))
        if mid_round and not self.stub_released:
            new.extend(self.deck)
        self.deck = new
        self.back = back
        if not self.stub_released:
            self.stub.clear()  # a released stub is the dealer's: its cards are still scanned (the community cards)
        self.stub_released = False
        self._jam_at.clear()
        self._double_at.clear()
        self._misfeed_at.clear()
        return self.clear_fault(FaultCode.SHOE_EMPTY)

    # --- faults, door, self test ----------------------------------------------------------------

    def raise_fault(self, code: FaultCode) -> bool:
        new = code not in self.faults
        self.faults.add(code)
        return new

    def clear_fault(self, code: FaultCode) -> bool:
        if code in self.faults:
            self.faults.discard(code)
            return True
        return False

    def set_door(self, is_open: bool) -> bool:
        """Returns True when the DOOR_OPEN fault changed."""
        self.door_open = is_open
        return self.raise_fault(FaultCode.DOOR_OPEN) if is_open else self.clear_fault(FaultCode.DOOR_OPEN)

    def self_test(self) -> tuple[tuple[int, bool], ...]:
        feeder = not self.faults & {FaultCode.JAM, FaultCode.MISFEED, FaultCode.DOUBLE_FEED}
        return (
            (SelfTestComponent.FEEDER, feeder),
            (SelfTestComponent.READER, True),
            (SelfTestComponent.TRAY_SENSOR, FaultCode.TAMPER not in self.faults),
            (SelfTestComponent.DOOR_SENSOR, True),
            (SelfTestComponent.MEMORY, FaultCode.INTERNAL_ERROR not in self.faults),
        )

    def reboot(self) -> None:
        self.faults.discard(FaultCode.INTERNAL_ERROR)
