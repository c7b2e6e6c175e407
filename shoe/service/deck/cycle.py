"""The deck cycle's adapter on the owner thread (SPEC §11): it answers the intents of the pure deck steps
(:mod:`shoe.service.deck.steps`, where the rules are) with the shoe client, the journal sink, the emulator
and the snapshot, and folds every committed journal entry into the deck's state (``note``, an observer of
the journal sink: journal before state, docs/journal.md).

What is here is I/O only: which shoe and which emulator the intents reach, the wait for a load's
DECK_LOADED (the owner's queue drained meanwhile, each DECK_LOADED handed to
:func:`~shoe.service.deck.steps.on_loaded`), the ``deck`` event when the view moved, and the log lines.
A restart rebuilds the same state from the journal (``rebuild``); what only the shoe can say comes after,
at every connect (``on_connect``).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import structlog

from drivers.deck import DeckVerdict, check_deck
from protocols import messages as m
from protocols.codes import Capability
from shoe.journal import Journal
from shoe.service.api import requests as rq
from shoe.service.config.settings import ServiceConfig
from shoe.service.deck import steps
from shoe.service.deck.device import load_emulator
from shoe.service.deck.device import remaining as _remaining
from shoe.service.deck.intents import drive
from shoe.service.deck.states import DeckState
from shoe.service.errors import ServiceError
from shoe.service.journal.sink import JournalSink
from shoe.service.link.supervisor import LinkSupervisor
from shoe.service.rounds.intents import DrainResult
from shoe.service.snapshots import Snapshots

if TYPE_CHECKING:
    from drivers.emulator.device import EmulatedShoe
__all__ = ["DeckCycle"]

log = structlog.get_logger("shoe.service")
LOAD_WAIT_S = 2.0
"""How long the load action waits for the emulator's DECK_LOADED before it journals the load itself."""


class DeckCycle:
    """The deck part of the owner thread (only the owner thread calls it): the deck steps' desk."""

    def __init__(
        self,
        config: ServiceConfig,
        sink: JournalSink,
        supervisor: LinkSupervisor,
        shown: Snapshots,
        *,
        live: Callable[[], bool],
        void: Callable[[str], None],
        drain: Callable[[], None],
        round_load: Callable[[], bool] = lambda: False,
    ) -> None:
        self.config, self.sink, self.supervisor, self.shown = config, sink, supervisor, shown
        self._live, self._void, self._drain, self._round_load = live, void, drain, round_load
        self.deck = steps.Deck(backs=config.deck_backs, check_on_load=config.check_on_load)
        self._shown_view: dict[str, Any] | None = None
        self._view: dict[str, Any] | None = None
        self._view_key: tuple[Any, ...] = ()
        sink.observers.append(self.note)

    # the deck's state, as callers and tests read it (the steps own it)
    @property
    def state(self) -> DeckState:
        return self.deck.state

    @property
    def deck_no(self) -> int:
        return self.deck.deck_no

    @property
    def count(self) -> int | None:
        return self.deck.count

    @property
    def back(self) -> str | None:
        return self.deck.back

    @property
    def check(self) -> dict[str, Any] | None:
        return self.deck.check

    @property
    def dealt_back(self) -> str | None:
        return self.deck.dealt_back

    # -- the fold over the journal ---------------------------------------------------------------

    def note(self, kind: str, data: Mapping[str, Any], round_id: str | None, ts: str) -> list[dict[str, Any]]:
        """Apply one committed journal entry; the ``deck`` event (the view) when it changed the view."""
        if not self.deck.note(kind, data, ts):
            return []
        view = self.view()
        self.shown.deck = view
        if view == self._shown_view:
            return []
        self._shown_view = view
        return [{"type": "deck", **view}]

    def rebuild(self, journal: Journal, *, ask_shoe: bool = True) -> None:
        """The state the journal left: at start (the shoe is then asked at connect, ``on_connect``), or after a
        failed item (``shoe.service.memory``: an entry committed that the fold never saw)."""
        deck = self.deck
        deck.forget()
        last_loaded = None
        for entry in journal.entries(kinds=("deck",)):
            if entry.data.get("event") == "loaded":
                last_loaded = entry
        opened = journal.last("round-opened")
        if opened is not None and isinstance(opened.data.get("deck"), Mapping):
            deck.dealt_back = str(opened.data["deck"].get("back") or "") or None
        start = last_loaded or opened  # before the deck cycle: the last round still decides in-play / used
        if start is not None:
            for entry in journal.entries(after_seq=start.seq - 1, kinds=tuple(steps.FOLDED)):
                deck.note(entry.kind, entry.data, entry.ts)
        deck.stale = deck.stale or ask_shoe

    # -- the view ----------------------------------------------------------------------------------

    def expected_back(self) -> str | None:
        """The back the next deck must have: the one after the last deck dealt (None: any of the table's)."""
        return self.deck.expected_back()

    def emulator(self) -> EmulatedShoe | Path | None:
        """What the load action reaches: the in-process emulator, or an emulator's control socket."""
        shoe, device = getattr(self.supervisor.transport, "shoe", None), sys.modules.get("drivers.emulator.device")
        return shoe if device and isinstance(shoe, device.EmulatedShoe) else self.config.emulator_control

    def view(self) -> dict[str, Any]:
        """The deck as any role may see it (docs/api.md, "Deck"; ``steps.view``).

        Built again only when one of its inputs moved: the owner asks for it after every item and every
        committed entry the deck reads, and between two loads almost none of them change it (the secrecy
        filter of a fresh view was most of the deck cycle's CPU per round). The cached dict is shared with
        the snapshot and the ``deck`` event, which are never changed in place (readers get deep copies).
        """
        deck, link_up, live, emulator = self.deck, self.shown.link == "up", self._live(), self.emulator() is not None
        key = (deck.state, deck.deck_no, deck.count, deck.back, deck.check, deck.dealt_back, link_up, live, emulator)
        if key != self._view_key or self._view is None:
            self._view = steps.view(deck, link_up=link_up, live=live, emulator=emulator)
            self._view_key = key
        return self._view

    def publish(self) -> None:
        """After every owner item: the snapshot other threads read (counts and the link move it too)."""
        self.shown.deck = self.view()

    # -- the inputs: each one step, driven here ------------------------------------------------------

    def link_lost(self) -> None:
        steps.link_lost(self.deck)

    def on_connect(self) -> None:
        """The link is (back) up: ask what the shoe holds, unless a round deals from it."""
        deck = self.deck
        if not deck.stale:
            return  # the common case (every tick's reconnect check), without a step
        status_count = (self.shown.status or {}).get("cards_remaining")
        drive(steps.on_connect(deck, connected=self.supervisor.client is not None, live=self._live(),
                               status_count=status_count), self)  # fmt: skip

    def on_status(self) -> None:
        """After a STATUS poll: the count, and a load by an older shoe that sends no DECK_LOADED (SPEC §11)."""
        client = self.supervisor.client
        count = (self.shown.status or {}).get("cards_remaining")
        if client is None or count is None:
            return
        capabilities = client.identity.capabilities if client.identity else 0
        drive(steps.on_status(self.deck, count, connected=True, live=self._live(),
                              deck_loaded_events=bool(capabilities & Capability.DECK_LOADED)), self)  # fmt: skip

    def on_loaded(self, event: m.DeckLoaded) -> None:
        """The shoe's DECK_LOADED (``steps.on_loaded``)."""
        count = None if event.count == m.DeckLoaded.UNKNOWN_COUNT else event.count
        live = self._live()
        round_load = live and self.deck.state is DeckState.IN_PLAY and self._round_load()
        drive(steps.on_loaded(self.deck, count, event.back, connected=self.supervisor.client is not None,
                              live=live, round_load=round_load), self)  # fmt: skip

    def run_check(self, who: str) -> dict[str, Any]:
        """DECK_CHECK the cards in the shoe (``steps.run_check``); the view after."""
        drive(steps.run_check(self.deck, who), self)
        return self.view()

    def load(self, request: rq.LoadDeck, who: str) -> dict[str, Any]:
        """The dealer loads a shuffled deck into an emulator (``steps.load``); the view after its DECK_LOADED
        (and the automatic check)."""
        drive(steps.load(self.deck, request, who), self)
        return self.view()

    def cards_out(self, cause: str, who: str) -> None:
        """Cards leave a checked deck outside a round (``steps.cards_out``): unchecked, before the shoe moves."""
        drive(steps.cards_out(self.deck, cause, who, live=self._live()), self)

    def load_on_top(self, codes: Sequence[str]) -> bool:
        """Seven-card stud's reshuffled burns loaded into an emulator (``steps.load_on_top``)."""
        return drive(steps.load_on_top(self.deck, codes), self)

    def release(self, who: str) -> dict[str, Any]:
        """Between rounds: the shoe presents the cards it holds (``steps.release``)."""
        return drive(steps.release(who), self)

    def for_round(self) -> tuple[int | None, dict[str, Any]]:
        """The gate of ``open-round`` (``steps.for_round``)."""
        return drive(steps.for_round(self.deck), self)

    # -- the intents' answers (shoe.service.deck.intents.DeckDesk) ------------------------------------

    def append(self, kind: str, data: dict[str, Any], round_id: str | None) -> int:
        return self.sink.append(kind, data, round_id)

    def drain(self) -> DrainResult:
        self._drain()
        return DrainResult(link_up=self.supervisor.client is not None and self.shown.link == "up")

    def raise_alarm(
        self, cause: str, detail: str, *, dispense_id: int | None = None, unjournaled: int | None = None
    ) -> None:
        self.supervisor.raise_alarm(cause, detail, dispense_id=dispense_id, unjournaled=unjournaled)

    def release_stub(self) -> int:
        return self.supervisor.release_stub()

    def shoe_count(self, confirm: bool) -> int | None:
        return _remaining(self.supervisor.shoe(), confirm=confirm)

    def check_deck(self, back: str | None) -> DeckVerdict:
        return check_deck(self.supervisor.shoe(), back=back)

    def load_emulator(self, request: rq.LoadDeck, expected_back: str | None) -> tuple[int | None, str]:
        return load_emulator(self.emulator(), request, expected_back, self.supervisor.shoe)

    def load_mid_round(self, codes: tuple[str, ...], back: str | None) -> bool:
        target = self.emulator()
        if target is None:
            return False
        from drivers.emulator import control, deck  # here, not at start: only an emulator has a deck to load

        default = deck.DEFAULT_BACK if isinstance(target, Path) else target.config.back
        spec = deck.DeckLoad(order=codes, back=back or default, mid_round=True)
        try:
            control.load_deck_at(target, spec) if isinstance(target, Path) else target.load_deck(spec)
        except (ValueError, control.ControlError) as exc:
            raise ServiceError("load-refused", f"the emulator refused the reshuffled burn cards: {exc}",
                               hint="void the hand (POST /v1/round/void)") from None  # fmt: skip
        return True

    def await_loaded(self, before: int, round_load: bool) -> bool:
        deck, deadline = self.deck, time.monotonic() + LOAD_WAIT_S

        def waiting() -> bool:
            return not deck.round_loaded if round_load else deck.deck_no == before

        while waiting() and time.monotonic() < deadline:
            self._drain()  # a DECK_LOADED: journaled (on_loaded), then checked
            if waiting():
                time.sleep(0.005)
        return self.supervisor.client is not None

    def void(self, detail: str) -> None:
        self._void(detail)

    def log(self, level: str, event: str, fields: Mapping[str, Any]) -> None:
        getattr(log, level)(event, **fields)
