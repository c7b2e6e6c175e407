"""The snapshots other threads read: plain values the owner thread replaces whole, never edits in place.

HTTP threads (``/v1/round``, ``/v1/status``), the metrics scrape and the watchdog read these without a
lock: each attribute is one reference, swapped by the owner thread (``link`` also by the link's reader
thread, when it posts a lost or restored link). Readers copy what they hand on.

The round's view is the one snapshot built on demand. Building it (the rules round's public state,
the settlements' records, the callable actions) was about a tenth of the owner thread's CPU per round
when it was rebuilt after every item whether or not anyone read it. The owner now publishes what the
view is built from; a reader builds it, from the round itself, only while the owner is between items
(:attr:`Snapshots.busy`), so a view is always of a state whose entries are committed. While a reader
has asked in the last :data:`WANTED_S` seconds (a dealer display re-reads after every event), the
owner builds it after each item as before, so a display never waits for a long item (a deal).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from shoe.service.api.registry import DECK_ACTIONS, callable_now

if TYPE_CHECKING:
    from shoe.service.rounds.run import RoundRun

__all__ = ["WANTED_S", "Snapshots", "round_view"]

WANTED_S = 30.0
"""How long after a reader's last ask the owner keeps building the round's view after every item."""
BUSY_WAIT_S = 5.0
"""How long a reader waits for the owner to finish its item before it takes the last view built."""


def round_view(run: RoundRun, deck_actions: Collection[str] | None = None) -> dict[str, Any]:
    """The round as anyone may see it, with the actions callable now (``actions``, from the registry);
    the rules engine still decides each one. Between rounds, of the deck's actions
    only those ``deck_actions`` names (the deck view's: what the deck's state allows)."""
    actions = callable_now(run.game, not run.closed)
    if run.closed and deck_actions is not None:
        actions = [a for a in actions if a not in DECK_ACTIONS or a in deck_actions]
    return {**run.view(), "actions": actions}


@dataclass(frozen=True)
class _Source:
    """What the round's view is built from, as the owner published it after an item."""

    run: RoundRun | None
    deck_actions: Collection[str] | None


@dataclass
class Snapshots:
    link: str = "down"  # "up", "reconnecting" or "down"
    identity: dict[str, Any] | None = None  # the shoe's IDENTITY (shoe.present)
    status: dict[str, Any] | None = None  # its last STATUS
    summary: dict[str, Any] | None = None  # the current or last round's id, game, state, closed
    deck: dict[str, Any] | None = None  # the deck view (shoe.service.deck.cycle)
    heartbeat: float = field(default_factory=time.monotonic)  # when the owner last looped (the watchdog)
    busy: threading.Lock = field(default_factory=threading.Lock)
    """Held by the owner thread while it handles an item: the round may be changing, its entries not yet
    committed. A reader builds the view from the round only while it holds this lock itself."""
    views_built: int = 0
    """How many times the round's view was built (tests, and the bench's count of the work saved)."""
    _source: _Source = field(default_factory=lambda: _Source(None, None))
    _built: tuple[_Source, dict[str, Any] | None] | None = None  # the last view built, and from what
    _asked_at: float = float("-inf")  # when a reader last asked for the view (monotonic)
    _frozen: bool = False  # the owner ended: only the last view built is shown

    def freeze(self) -> None:
        """The owner thread ended, perhaps part-way through an item whose entries were never committed: from
        now on readers get the last view built, never one built from the round as memory holds it."""
        self._frozen = True

    def frozen(self) -> bool:
        return self._frozen

    def publish_round(self, run: RoundRun | None) -> None:
        """After every item the owner handled: the round's summary, and what its view is built from (the view
        itself too while a reader has asked recently). The owner holds :attr:`busy` here."""
        deck_actions = None if self.deck is None else self.deck.get("actions")
        self._source = _Source(run, deck_actions)
        self.summary = (
            None if run is None else {"id": run.round_id, "game": run.game, "state": run.state, "closed": run.closed}
        )
        if not self._frozen and time.monotonic() - self._asked_at < WANTED_S:
            self._build(self._source)

    def _build(self, source: _Source) -> dict[str, Any] | None:
        built = self._built
        if built is not None and built[0] is source:
            return built[1]
        view = None if source.run is None else round_view(source.run, source.deck_actions)
        self._built = (source, view)
        self.views_built += 1
        return view

    @property
    def view(self) -> dict[str, Any] | None:
        """The current (or last) round as anyone may see it, as of the owner's last finished item (any thread).

        Built here if it was not since that item, once the owner is between items; an owner still busy
        after :data:`BUSY_WAIT_S` (a wedged shoe: the watchdog's business) leaves the last view built.
        Callers do not edit it (they copy it).
        """
        self._asked_at = time.monotonic()
        source, built = self._source, self._built
        if built is not None and built[0] is source:
            return built[1]
        if self._frozen or not self.busy.acquire(timeout=BUSY_WAIT_S):
            return None if built is None else built[1]
        try:
            if self.frozen():  # it ended while this reader waited
                return None if self._built is None else self._built[1]
            return self._build(self._source)  # the latest source: the owner may have finished more items
        finally:
            self.busy.release()
