"""The deck cycle's states, as data (pure): what each means, what to do in it, what may be tried in it.

``awaiting-deck`` -> ``loaded`` -> ``checked`` -> ``in-play`` -> ``used`` -> ``awaiting-deck``, with
``refused`` (the check failed: the deck is never dealt from) and ``unknown`` (the link is down or the shoe
was not asked yet). :mod:`shoe.service.deck.steps` moves between them; docs/service.md ("The deck cycle")
draws the same machine.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

__all__ = ["BETWEEN_ROUNDS", "HINTS", "DeckState"]


class DeckState(StrEnum):
    AWAITING = "awaiting-deck"
    LOADED = "loaded"
    CHECKED = "checked"
    IN_PLAY = "in-play"
    USED = "used"
    REFUSED = "refused"
    UNKNOWN = "unknown"


HINTS: Mapping[DeckState, str] = {
    DeckState.UNKNOWN: "the shoe is not connected (or not asked yet): check its cable and port; the service retries",
    DeckState.AWAITING: "load a shuffled deck into the shoe (on an emulator: POST /v1/deck/load)",
    DeckState.LOADED: "check the deck before the first stack: POST /v1/deck/check",
    DeckState.CHECKED: "the deck passed its check: open a round",
    DeckState.IN_PLAY: "a round is dealt from this deck",
    DeckState.USED: "release the stub (POST /v1/round/release-stub), then load a shuffled deck",
    DeckState.REFUSED: "the deck failed its check and is never dealt from: release it "
    "(POST /v1/round/release-stub) and load another",
}
"""What to do now, per state: the deck view's ``hint`` and the hint of ``open-round``'s refusal."""

BETWEEN_ROUNDS: Mapping[DeckState, tuple[str, ...]] = {
    DeckState.UNKNOWN: (),
    DeckState.AWAITING: ("load-deck",),  # on an emulator; a dealer loads a real shoe by hand
    DeckState.LOADED: ("check-deck", "release-stub"),
    DeckState.CHECKED: ("check-deck", "release-stub"),
    DeckState.IN_PLAY: (),
    DeckState.USED: ("release-stub",),
    DeckState.REFUSED: ("check-deck", "release-stub"),
}
"""The deck actions that may be tried in each state with no round live (the deck view's ``actions``)."""
