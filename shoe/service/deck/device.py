"""What the deck cycle (:mod:`shoe.service.deck.cycle`) asks of the shoe or the emulator: the count, a load.

The emulator's load action: a shuffled deck of the back asked for (or the one the table expects next)
loaded into the in-process emulator or the one ``[shoe] emulator_control`` names, its faults on
request; the emulator answers the cards it now holds.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from protocols import messages as m
from shoe.service.api import requests as rq
from shoe.service.errors import ErrorKind, ServiceError

if TYPE_CHECKING:
    from drivers.emulator.device import EmulatedShoe

__all__ = ["load_emulator", "remaining"]


def remaining(client: Any, *, confirm: bool = False) -> int | None:
    """The cards the shoe holds (STATUS), ``None`` when it cannot count."""
    count: int = client.status(confirm=confirm).cards_remaining
    return None if count == m.Status.UNKNOWN_REMAINING else count


def load_emulator(
    target: EmulatedShoe | Path | None, request: rq.LoadDeck, expected_back: str | None, link_up: Callable[[], Any]
) -> tuple[int | None, str]:
    """Load a deck into the emulator ``target``; ``(the cards it holds, the back loaded)``, or a refusal.

    ``link_up`` raises ``shoe-unavailable`` when the shoe is not connected.
    """
    if target is None:
        raise ServiceError("not-an-emulator", "the shoe is not an emulator: its deck is loaded by hand",
                           hint="load a shuffled deck into the shoe: it reports the load")  # fmt: skip
    link_up()
    from drivers.emulator import control, deck  # here, not at start: only an emulator has a deck to load

    default = deck.DEFAULT_BACK if isinstance(target, Path) else target.config.back
    try:
        spec = deck.DeckLoad(back=request.back or expected_back or default, short=request.short,
                             extra=request.extra, duplicate=request.duplicate, foreign=request.foreign)  # fmt: skip
    except ValueError as exc:
        hint = "short + duplicate + foreign name cards of one 52-card deck: at most 52"
        raise ServiceError("impossible-deck", str(exc), kind=ErrorKind.BAD_INPUT, hint=hint) from None
    try:
        held = control.load_deck_at(target, spec) if isinstance(target, Path) else target.load_deck(spec)
    except (ValueError, control.ControlError) as exc:
        raise ServiceError("load-refused", f"the emulator refused the load: {exc}",
                           hint="release the stub first (POST /v1/round/release-stub)") from None  # fmt: skip
    return held, spec.back
