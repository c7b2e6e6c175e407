"""The host's half of the deck cycle (SPEC §11): what was loaded, and the deck check before the first stack.

- ``DeckWatch(client)`` subscribes to a ``ShoeClient`` and keeps the last DECK_LOADED (``loaded``),
  so a caller can wait for the dealer's load (``wait_loaded``). The event itself reaches every
  subscriber of the client, as every shoe event does.
- ``check_deck(client, back=...)`` asks DECK_CHECK and judges the report against a full deck:
  ``DeckVerdict`` names the **missing**, **duplicate** and **foreign** cards and the **extra** count.
  Against an older shoe (DECK_CHECK answered NAK UNKNOWN_MESSAGE or NOT_SUPPORTED) it falls back to
  STATUS ``cards_remaining`` and says so (``checked_faces`` False): only the count is known then.

The verdict never contains the load order (SPEC §9): faces are in card order, as DECK_REPORT gives them.
A deck that fails the check must not be dealt from; that rule is the controller's (the shoe does not
judge).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from drivers.errors import ShoeProtocolError
from protocols import messages as m
from protocols.cards import ALL_CODES, card_to_byte
from protocols.codes import NakCode

if TYPE_CHECKING:
    from drivers.client import ShoeClient
    from drivers.notices import Notice

FULL_DECK: tuple[str, ...] = tuple(ALL_CODES)
FALLBACK_NAKS = frozenset({NakCode.UNKNOWN_MESSAGE, NakCode.NOT_SUPPORTED})
"""NAKs of a shoe that cannot check its deck: the host falls back to STATUS cards_remaining."""


@dataclass(frozen=True)
class DeckVerdict:
    """The deck check judged against the expected deck. ``ok`` when nothing is wrong."""

    count: int | None  # cards the shoe holds (None: it cannot count)
    expected: int
    back: str  # the back the shoe read ("" unknown)
    expected_back: str | None
    missing: tuple[str, ...]
    duplicates: tuple[str, ...]
    foreign: tuple[str, ...]
    extra: int
    unreadable: int
    checked_faces: bool  # False: an older shoe, only the count was compared

    @property
    def wrong_back(self) -> bool:
        return self.expected_back is not None and bool(self.back) and self.back != self.expected_back

    @property
    def ok(self) -> bool:
        if self.count != self.expected or self.wrong_back:
            return False
        return not (self.missing or self.duplicates or self.foreign or self.extra or self.unreadable)

    def problems(self) -> list[str]:
        """One short phrase per problem, in a fixed order (for refusals and journals)."""
        out: list[str] = []
        if self.count is None:
            out.append("the shoe cannot count its cards")
        elif self.count != self.expected:
            out.append(f"{self.count} cards, expected {self.expected}")
        if self.wrong_back:
            out.append(f"back {self.back!r}, expected {self.expected_back!r}")
        for name, cards in (("missing", self.missing), ("duplicate", self.duplicates), ("foreign", self.foreign)):
            if cards:
                out.append(f"{name} {' '.join(cards)}")
        if self.extra:
            out.append(f"{self.extra} extra")
        if self.unreadable:
            out.append(f"{self.unreadable} unreadable")
        if not self.checked_faces:
            out.append("faces not checked: the shoe has no DECK_CHECK")
        return out

    def describe(self) -> str:
        return "deck ok" if self.ok and self.checked_faces else "deck refused: " + "; ".join(self.problems())


def judge(report: m.DeckReport, *, back: str | None = None, expected: tuple[str, ...] = FULL_DECK) -> DeckVerdict:
    """Judge a DECK_REPORT against ``expected`` faces (one of each) and ``back`` (None: any back)."""
    present = set(report.present)
    missing = tuple(sorted(set(expected) - present, key=card_to_byte))
    return DeckVerdict(
        count=report.count,
        expected=len(expected),
        back=report.back,
        expected_back=back,
        missing=missing,
        duplicates=tuple(report.duplicates),
        foreign=tuple(report.foreign),
        extra=max(0, report.count - len(expected)),
        unreadable=report.unreadable,
        checked_faces=True,
    )


def check_deck(client: ShoeClient, *, back: str | None = None, expected: tuple[str, ...] = FULL_DECK) -> DeckVerdict:
    """DECK_CHECK the loaded cards and judge them; an older shoe's count from STATUS instead (§11)."""
    try:
        report = client.deck_check()
    except ShoeProtocolError as exc:
        if exc.nak not in FALLBACK_NAKS:
            raise
        remaining = client.status().cards_remaining
        count = None if remaining == m.Status.UNKNOWN_REMAINING else remaining
        return DeckVerdict(count, len(expected), "", back, (), (), (), 0, 0, checked_faces=False)
    return judge(report, back=back, expected=expected)


class DeckWatch:
    """Keeps the shoe's last DECK_LOADED; ``wait_loaded`` blocks until a new one (or the timeout)."""

    def __init__(self, client: ShoeClient) -> None:
        self._cond = threading.Condition()
        self._loaded: m.DeckLoaded | None = None
        self._loads = 0
        self.unsubscribe = client.subscribe(self._on_item)

    def _on_item(self, item: m.Event | Notice) -> None:
        if isinstance(item, m.DeckLoaded):
            with self._cond:
                self._loaded = item
                self._loads += 1
                self._cond.notify_all()

    @property
    def loaded(self) -> m.DeckLoaded | None:
        """The last DECK_LOADED seen since this watch began (None: none yet)."""
        with self._cond:
            return self._loaded

    @property
    def loads(self) -> int:
        with self._cond:
            return self._loads

    def wait_loaded(self, timeout: float, *, after: int | None = None) -> m.DeckLoaded | None:
        """Wait until more than ``after`` loads (default: the loads so far) were seen; None on timeout."""
        with self._cond:
            seen = self._loads if after is None else after
            self._cond.wait_for(lambda: self._loads > seen, timeout=timeout)
            return self._loaded if self._loads > seen else None
