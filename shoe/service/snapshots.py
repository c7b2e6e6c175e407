"""The snapshots other threads read: plain values the owner thread replaces whole, never edits in place.

HTTP threads (``/v1/round``, ``/v1/status``), the metrics scrape and the watchdog read these without a
lock: each attribute is one reference, swapped by the owner thread (``link`` also by the link's reader
thread, when it posts a lost or restored link). Readers copy what they hand on.
"""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from shoe.service.api.registry import DECK_ACTIONS, callable_now

if TYPE_CHECKING:
    from shoe.service.rounds.run import RoundRun

__all__ = ["Snapshots", "round_view"]


def round_view(run: RoundRun, deck_actions: Collection[str] | None = None) -> dict[str, Any]:
    """The round as anyone may see it, with the actions callable now (``actions``, from the registry);
    the rules engine still decides each one. Between rounds, of the deck's actions
    only those ``deck_actions`` names (the deck view's: what the deck's state allows)."""
    actions = callable_now(run.game, not run.closed)
    if run.closed and deck_actions is not None:
        actions = [a for a in actions if a not in DECK_ACTIONS or a in deck_actions]
    return {**run.view(), "actions": actions}


@dataclass
class Snapshots:
    link: str = "down"  # "up", "reconnecting" or "down"
    identity: dict[str, Any] | None = None  # the shoe's IDENTITY (shoe.present)
    status: dict[str, Any] | None = None  # its last STATUS
    view: dict[str, Any] | None = None  # the current or last round, as anyone may see it
    summary: dict[str, Any] | None = None  # that round's id, game, state, closed
    deck: dict[str, Any] | None = None  # the deck view (shoe.service.deck.cycle)
    heartbeat: float = field(default_factory=time.monotonic)  # when the owner last looped (the watchdog)

    def publish_round(self, run: RoundRun | None) -> None:
        """The round's view and summary, after every item the owner handled."""
        deck_actions = None if self.deck is None else self.deck.get("actions")
        self.view = None if run is None else round_view(run, deck_actions)
        self.summary = (
            None if run is None else {"id": run.round_id, "game": run.game, "state": run.state, "closed": run.closed}
        )
