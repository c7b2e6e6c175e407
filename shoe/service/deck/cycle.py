"""The deck cycle on the service side (SPEC §11): which deck the shoe holds, and whether a round
may be dealt from it.

States (docs/service.md, "The deck cycle"): ``awaiting-deck`` -> ``loaded`` -> ``checked`` -> ``in-play``
-> ``used`` -> ``awaiting-deck``; ``refused`` (the check failed: never dealt from); ``unknown`` (the link is
down, or the shoe was not asked yet). A Mississippi round releases its stub inside the round, so its deck
goes ``in-play`` -> ``awaiting-deck``; a seven-card stud hand's goes ``in-play`` -> ``used``.

The state is a fold over the journal (journal before state, docs/journal.md): :class:`DeckCycle` observes
every committed entry (``note``: ``deck`` entries, ``round-opened``, ``round-closed``, a stub released), so
an append that fails changes nothing, and a restart rebuilds the same state (``rebuild``). What only the
shoe can say comes after: at every connect, cards in the shoe are a load (journaled, checked again: a deck
may have been swapped while the service or the link was down) and an empty shoe awaits a deck.

A round opens only on a ``checked`` deck whose count STATUS confirms (:meth:`DeckCycle.for_round`), never on
an unreachable shoe. A deck check's faces (missing, duplicate, foreign cards) name cards of a deck that is
never dealt from, in card order (never the load order, SPEC §9).
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import structlog

from drivers.deck import check_deck
from drivers.errors import ShoeDiscrepancy, ShoeError, ShoeProtocolError
from protocols import messages as m
from protocols.codes import Capability, NakCode
from shoe.journal import Journal
from shoe.service.api import requests as rq
from shoe.service.config.settings import ServiceConfig
from shoe.service.deck.device import load_emulator
from shoe.service.deck.device import remaining as _remaining
from shoe.service.deck.states import BETWEEN_ROUNDS, HINTS, DeckState
from shoe.service.errors import ErrorKind, ServiceError
from shoe.service.journal.secrecy import public_view
from shoe.service.journal.sink import JournalSink
from shoe.service.link.supervisor import LinkSupervisor
from shoe.service.snapshots import Snapshots

if TYPE_CHECKING:
    from drivers.emulator.device import EmulatedShoe
__all__ = ["DeckCycle"]

log = structlog.get_logger("shoe.service")
LOAD_WAIT_S = 2.0
"""How long the load action waits for the emulator's DECK_LOADED before it journals the load itself."""
_FOLDED = frozenset({"deck", "round-opened", "round-closed", "decision", "link", "technician"})


class DeckCycle:
    """The deck part of the owner thread (only the owner thread calls it)."""

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
        self.state = DeckState.UNKNOWN
        self.deck_no = 0  # the last ``loaded`` entry's number (decks journaled so far)
        self.count: int | None = None  # the cards the shoe holds, as last learned
        self.back: str | None = None
        self.check: dict[str, Any] | None = None  # the current deck's check, as the view shows it
        self.dealt_back: str | None = None  # the back of the last deck a round was dealt from (the alternation)
        self._stale = True  # the shoe must be asked what it holds (at start, after a lost link)
        self._loading_by: str | None = None  # the role whose load action is waiting for its DECK_LOADED
        self._absorb: int | None = None  # a DECK_LOADED of this count repeats the load found at connect
        self._round_loaded = False  # the DECK_LOADED of a load on top of the live deck (load_on_top) was seen
        self._replaying = False
        self._touched = True  # a stack was asked of the shoe in the round dealing from the deck
        self._shown_view: dict[str, Any] | None = None
        sink.observers.append(self.note)

    # -- the fold over the journal ---------------------------------------------------------------

    def note(self, kind: str, data: Mapping[str, Any], round_id: str | None, ts: str) -> list[dict[str, Any]]:
        """Apply one committed journal entry; the ``deck`` event (the view) when it changed the view."""
        if kind not in _FOLDED:
            return []
        if kind == "deck":
            self._apply(data, ts)
        elif kind == "round-opened":
            self.state, self._touched = DeckState.IN_PLAY, False
            deck = data.get("deck")
            if isinstance(deck, Mapping):
                self.dealt_back = str(deck.get("back") or "") or None
        elif kind == "decision" and data.get("action") == "stack-for-seat":
            self._touched = True  # the shoe was asked for cards: the deck is no longer whole
        elif kind == "round-closed" and self.state is DeckState.IN_PLAY:
            # the round is over: its stub is still in the shoe; a round voided before any stack leaves the
            # deck whole and checked (the gate still compares the shoe's count with the check's)
            self.state = DeckState.USED if self._touched else DeckState.CHECKED
        elif kind == "technician" and data.get("action") == "maintenance-dispense":
            if self.count is not None and self.state is not DeckState.IN_PLAY:  # a failed dispense's cards too
                self.count = max(0, self.count - len(data.get("cards") or ()))
        elif (kind == "decision" and data.get("action") == "release-stub") or (
            kind == "link" and data.get("event") == "stub-recovered"
        ):
            self._emptied()
        return self._changed()

    def _apply(self, data: Mapping[str, Any], ts: str) -> None:
        event = data.get("event")
        if event == "loaded":
            self.deck_no, self.state = int(data["deck_no"]), DeckState.LOADED
            self.count, self.back, self.check = data.get("count"), str(data.get("back") or "") or None, None
        elif event == "checked":
            self.state = DeckState.CHECKED if data.get("ok") else DeckState.REFUSED
            self.count = data.get("count")
            self.back = str(data.get("back") or "") or self.back
            fields = ("ok", "count", "back", "missing", "extra", "duplicates", "foreign", "unreadable",
                      "checked_faces", "problems", "who")  # fmt: skip
            self.check = {**{name: data.get(name) for name in fields}, "at": ts}
        elif event == "released":
            self._emptied()
        elif event == "unchecked" and self.state is DeckState.CHECKED:
            self.state, self.check = DeckState.LOADED, None  # loaded, not the deck its check found: check it again

    def _emptied(self) -> None:
        self.state, self.count, self.back, self.check = DeckState.AWAITING, 0, None, None

    def _changed(self) -> list[dict[str, Any]]:
        if self._replaying:
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
        self.state, self.deck_no, self.count, self.back, self.check = DeckState.UNKNOWN, 0, None, None, None
        last_loaded = None
        for entry in journal.entries(kinds=("deck",)):
            if entry.data.get("event") == "loaded":
                last_loaded = entry
        opened = journal.last("round-opened")
        if opened is not None and isinstance(opened.data.get("deck"), Mapping):
            self.dealt_back = str(opened.data["deck"].get("back") or "") or None
        start = last_loaded or opened  # before the deck cycle: the last round still decides in-play / used
        self._replaying = True
        try:
            if start is not None:
                for entry in journal.entries(after_seq=start.seq - 1, kinds=tuple(_FOLDED)):
                    self.note(entry.kind, entry.data, entry.round_id, entry.ts)
        finally:
            self._replaying = False
        self._stale = self._stale or ask_shoe

    # -- the view ----------------------------------------------------------------------------------

    def expected_back(self) -> str | None:
        """The back the next deck must have: the one after the last deck dealt (None: any of the table's)."""
        backs = self.config.deck_backs
        if len(backs) == 1:
            return backs[0]
        if self.dealt_back in backs:
            return backs[(backs.index(self.dealt_back) + 1) % len(backs)]
        return None

    def emulator(self) -> EmulatedShoe | Path | None:
        """What the load action reaches: the in-process emulator, or an emulator's control socket."""
        shoe, device = getattr(self.supervisor.transport, "shoe", None), sys.modules.get("drivers.emulator.device")
        return shoe if device and isinstance(shoe, device.EmulatedShoe) else self.config.emulator_control

    def view(self) -> dict[str, Any]:
        """The deck as any role may see it (docs/api.md, "Deck"; declared in shoe.service.journal.visibility)."""
        state = self.state if self.shown.link == "up" else DeckState.UNKNOWN
        emulator = self.emulator() is not None
        raw = {
            "state": state.value,
            "deck_no": self.deck_no,
            "count": self.count,
            "back": self.back,
            "expected_back": self.expected_back(),
            "backs": list(self.config.deck_backs) or None,
            "check": None if self.check is None else public_view("deck-check", self.check),
            "emulator": emulator,
            "hint": HINTS[state],
            "actions": self._actions(state, emulator),
        }
        return public_view("deck", raw)

    def _actions(self, state: DeckState, emulator: bool) -> list[str]:
        if self._live() and state is not DeckState.USED:
            return []  # the round's own actions (Mississippi releases its stub in the round)
        return [a for a in BETWEEN_ROUNDS[state] if emulator or a != "load-deck"]

    def publish(self) -> None:
        """After every owner item: the snapshot other threads read (counts and the link move it too)."""
        self.shown.deck = self.view()

    # -- what the shoe says ------------------------------------------------------------------------

    def link_lost(self) -> None:
        self._stale = True

    def on_connect(self) -> None:
        """The link is (back) up: ask what the shoe holds, unless a round deals from it."""
        if not self._stale or self.supervisor.client is None:
            return
        self._stale = False
        if self._live() or self.state in (DeckState.IN_PLAY, DeckState.USED):
            return
        count = (self.shown.status or {}).get("cards_remaining")
        if count == 0:
            if self.state is not DeckState.AWAITING:
                self._emptied()  # nothing was loaded: nothing to journal
                self.publish()
            return
        self._loaded(count, "", "status")  # a deck may have been swapped meanwhile: checked again
        self._absorb = count
        self._auto_check()

    def on_status(self) -> None:
        """After a STATUS poll: the count, and a load by an older shoe that sends no DECK_LOADED (SPEC §11)."""
        status, client = self.shown.status or {}, self.supervisor.client
        count = status.get("cards_remaining")
        if client is None or count is None:
            return
        checked = (self.check or {}).get("count")
        if self.state is DeckState.CHECKED and checked is not None and count != checked and not self._live():
            self.cards_out("count-differs", "status")  # cards taken out (or added) by hand: no longer the checked deck
        if self.state is not DeckState.IN_PLAY and count != self.count:
            self.count = count
            self.publish()  # between items too: the count the deck view shows is the shoe's (GET /v1/deck)
        capabilities = client.identity.capabilities if client.identity else 0
        if not capabilities & Capability.DECK_LOADED and self.state is DeckState.AWAITING and count > 0:
            self._loaded(count, "", "status")
            self._auto_check()

    def on_loaded(self, event: m.DeckLoaded) -> None:
        """The shoe's DECK_LOADED: journaled, then checked when ``check_on_load``. While the round's deck is
        still in the shoe, cards loaded on top mix two decks: the round is void (SPEC §11)."""
        count = None if event.count == m.DeckLoaded.UNKNOWN_COUNT else event.count
        absorb, self._absorb = self._absorb, None
        if absorb is not None and absorb == count and self.state is not DeckState.AWAITING:
            return  # the event log repeats the load this connect already journaled
        mixed = self.state is DeckState.IN_PLAY and self._live()
        if mixed and self._round_load():
            log.info("cards loaded into the round's deck, as the round expects", count=count)
            self.count, self._round_loaded = count, True
            return  # the round records it (seven-card stud's reshuffled burns)
        self._loaded(count, event.back, self._loading_by or "shoe")
        if mixed:
            self._void("cards were loaded while the round's deck was still in the shoe: two decks are mixed")
        self._auto_check()

    def _loaded(self, count: int | None, back: str, who: str) -> None:
        data = {"event": "loaded", "deck_no": self.deck_no + 1, "count": count, "back": back, "who": who}
        self.sink.append("deck", data, None)  # the fold applies it once committed
        log.info("deck loaded", deck_no=self.deck_no, count=count, back=back, who=who)

    def _auto_check(self) -> None:
        if not self.config.check_on_load or self.state is not DeckState.LOADED or self.supervisor.client is None:
            return
        try:
            self.run_check("shoed")
        except (ShoeError, ServiceError) as exc:
            log.warning("the automatic deck check failed: check the deck (POST /v1/deck/check)", error=str(exc))

    # -- the actions -------------------------------------------------------------------------------

    def run_check(self, who: str) -> dict[str, Any]:
        """DECK_CHECK the cards in the shoe against a full deck of the expected back; journaled, then the state."""
        client = self.supervisor.shoe()
        if self.state in (DeckState.AWAITING, DeckState.UNKNOWN) or self.deck_no == 0:
            count = _remaining(client)
            if count == 0:
                raise ServiceError("deck-not-ready", "the shoe is empty: there is no deck to check",
                                   hint=HINTS[DeckState.AWAITING])  # fmt: skip
            self._loaded(count, "", "status")  # an older shoe's load, seen now
        expected, backs = self.expected_back(), self.config.deck_backs
        try:
            verdict = check_deck(client, back=expected)
        except ShoeProtocolError as exc:
            if exc.nak is not NakCode.BAD_STATE:
                raise
            raise ServiceError("deck-check-refused", f"the shoe cannot check its cards now: {exc}",
                               hint="take the stack from the tray; after a stub release, load a deck first",
                               kind=ErrorKind.CONFLICT) from exc  # fmt: skip
        ok, problems = verdict.ok, verdict.problems()
        if expected is None and backs and verdict.back and verdict.back not in backs:
            ok = False
            problems.append(f"back {verdict.back!r} is not one of the table's ({', '.join(backs)})")
        data = {
            "event": "checked", "deck_no": self.deck_no, "ok": ok, "count": verdict.count, "back": verdict.back,
            "expected_back": expected, "missing": list(verdict.missing), "extra": verdict.extra,
            "duplicates": list(verdict.duplicates), "foreign": list(verdict.foreign),
            "unreadable": verdict.unreadable, "checked_faces": verdict.checked_faces, "problems": problems, "who": who,
        }  # fmt: skip
        self.sink.append("deck", data, None)
        log.info("deck checked", deck_no=self.deck_no, ok=ok, count=verdict.count, who=who)  # no faces in the log
        return self.view()

    def load(self, request: rq.LoadDeck, who: str) -> dict[str, Any]:
        """The dealer loads a shuffled deck into an emulator (the emulator's faults on request); the view after
        its DECK_LOADED (and the automatic check)."""
        target = self.emulator()
        before = self.deck_no
        self._loading_by = who
        try:
            held, back = load_emulator(target, request, self.expected_back(), self.supervisor.shoe)
            self._wait_loaded(before)  # its DECK_LOADED, journaled with ``who``
        finally:
            self._loading_by = None
        if self.deck_no == before:  # the event never came: the load is journaled from what the emulator said
            self._loaded(held, back, who)
            self._auto_check()
        return self.view()

    def _catch_up(self, client: Any) -> None:
        """The shoe holds cards while the deck awaits one: its DECK_LOADED is on its way (waited for), or an
        older shoe sends none (the load journaled from STATUS). Checked when ``check_on_load``."""
        try:
            count = _remaining(client)
        except ShoeError:
            return
        if not count:
            return
        self._wait_loaded(self.deck_no)
        if self.state is DeckState.AWAITING:
            self._loaded(count, "", "status")
            self._auto_check()

    def _wait_loaded(self, before: int) -> None:
        deadline = time.monotonic() + LOAD_WAIT_S
        while self.deck_no == before and time.monotonic() < deadline:
            self._drain()  # a DECK_LOADED: journaled (on_loaded), then checked
            if self.deck_no == before:
                time.sleep(0.005)

    def cards_out(self, cause: str, who: str) -> None:
        """Cards leave a checked deck outside a round: unchecked, journaled before the shoe moves (a dispense
        cut short leaves it unchecked too); no round opens on it until it is checked again or replaced."""
        if self.state is not DeckState.CHECKED or self._live():
            return
        data = {"event": "unchecked", "deck_no": self.deck_no, "cause": cause, "count": self.count, "who": who}
        self.sink.append("deck", data, None)  # the fold applies it once committed
        log.info("deck unchecked", deck_no=self.deck_no, cause=cause, who=who)

    def load_on_top(self, codes: Sequence[str]) -> bool:
        """Seven-card stud's reshuffled burns (N.J.A.C. 13:47-20.35(h): "the dealer shall shuffle the burn
        cards, burn a card and then deal the common card") loaded by the service into an emulator, which
        has no dealer's hands, on top of the card it still holds; its DECK_LOADED is the round's
        (``on_loaded``), waited for here so that it is never taken for a second deck once the next card
        is out. ``False`` on a real shoe: its dealer loads them, and the shoe reports the load."""
        target = self.emulator()
        if target is None:
            return False
        from drivers.emulator import control, deck  # here, not at start: only an emulator has a deck to load

        default = deck.DEFAULT_BACK if isinstance(target, Path) else target.config.back
        spec = deck.DeckLoad(order=tuple(codes), back=self.back or default, mid_round=True)
        self._round_loaded = False
        try:
            control.load_deck_at(target, spec) if isinstance(target, Path) else target.load_deck(spec)
        except (ValueError, control.ControlError) as exc:
            raise ServiceError("load-refused", f"the emulator refused the reshuffled burn cards: {exc}",
                               hint="void the hand (POST /v1/round/void)") from None  # fmt: skip
        deadline = time.monotonic() + LOAD_WAIT_S
        while not self._round_loaded and time.monotonic() < deadline:
            self._drain()
            if not self._round_loaded:
                time.sleep(0.005)
        return self._round_loaded

    def release(self, who: str) -> dict[str, Any]:
        """Between rounds: the shoe presents the cards it holds (a stub, a refused deck); the shoe is empty."""
        count = self.supervisor.release_stub()
        self.sink.append("deck", {"event": "released", "count": count, "who": who}, None)
        return {"count": count}

    def for_round(self) -> tuple[int | None, dict[str, Any]]:
        """The gate of ``open-round`` (both games): ``(cards_remaining, the deck's reference)``, or a refusal.

        The link is up; the deck is ``checked``; STATUS confirms the count the check found (a shoe that
        cannot count says nothing against it: the check counted the deck).
        """
        self._drain()  # a DECK_LOADED already on its way is handled first
        client = self.supervisor.client
        if client is None or self.shown.link != "up":
            raise ServiceError("shoe-unavailable", "the shoe is not connected: no round opens on an unreachable shoe",
                               kind=ErrorKind.UNAVAILABLE, hint=HINTS[DeckState.UNKNOWN])  # fmt: skip
        if self.state is DeckState.AWAITING:
            self._catch_up(client)
        if self.state is not DeckState.CHECKED:
            why = "; ".join((self.check or {}).get("problems") or []) if self.state is DeckState.REFUSED else ""
            with contextlib.suppress(ShoeError):
                self.count = _remaining(client)
            held = "" if self.count is None else f", the shoe holds {self.count} cards"
            raise ServiceError("deck-not-ready", f"the deck is {self.state.value}{f' ({why})' if why else ''}{held}: "
                               "a round opens only on a checked deck", hint=HINTS[self.state])  # fmt: skip
        try:
            remaining = _remaining(client, confirm=True)
        except ShoeDiscrepancy as exc:
            self.supervisor.raise_alarm(exc.cause, exc.detail)
            raise ServiceError("shoe-discrepancy", f"the shoe's count is in doubt: {exc}", hint=exc.hint) from exc
        except ShoeError as exc:
            raise ServiceError("shoe-unavailable", f"the shoe did not answer STATUS: {exc}",
                               kind=ErrorKind.UNAVAILABLE, hint=exc.hint) from exc  # fmt: skip
        checked = (self.check or {}).get("count")
        if remaining is not None and remaining != checked:
            self.count = remaining
            raise ServiceError("deck-not-ready", f"the shoe holds {remaining} cards, the deck check counted {checked}",
                               hint="check the deck again: POST /v1/deck/check")  # fmt: skip
        return remaining, {"deck_no": self.deck_no, "back": self.back or ""}

