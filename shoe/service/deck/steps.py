"""The deck cycle as pure steps (SPEC §11): the deck's state, the fold of the journal into it, and one step
per input (a load, check or release command, the open-round gate, a DECK_LOADED, a STATUS answer, a connect,
a lost link, a check's cards leaving the deck).

States (docs/service.md, "The deck cycle"): ``awaiting-deck`` -> ``loaded`` -> ``checked`` -> ``in-play``
-> ``used`` -> ``awaiting-deck``; ``refused`` (the check failed: never dealt from); ``unknown`` (the link is
down, or the shoe was not asked yet). A Mississippi round releases its stub inside the round, so its deck
goes ``in-play`` -> ``awaiting-deck``; a seven-card stud hand's goes ``in-play`` -> ``used``.

Why generator steps (the round steps' style, :mod:`shoe.service.rounds.intents`) and not a
``step(state, input) -> (state, intents)`` function: one deck input asks the shoe several things in turn
and decides on each answer (a load is journaled, its fold makes the deck ``loaded``, the automatic check
asks DECK_CHECK and journals its verdict; the open-round gate drains, asks STATUS, asks it again to
confirm), and the state moves only when an entry commits, which inside an action's batch is after the
step. A generator keeps that order as straight code, reads the state after each answer exactly where the
service read it before, and lets a refusal from the shoe (a NAK, a discrepancy) be caught where the rule
that answers it is. A returned list of intents would need a continuation per answer instead.

So :class:`Deck` is the state and :meth:`Deck.note` the fold over committed entries (journal before
state, docs/journal.md: an append that fails changes nothing, a restart rebuilds the same state); every
other function here is a step: it yields intents (:mod:`.intents`), is sent their answers and returns.
Nothing here waits, reads a clock, logs or touches a socket, a file or the shoe: the wait for a load's
DECK_LOADED is an intent whose answer handles the shoe items meanwhile (each DECK_LOADED an input of
:func:`on_loaded`), and :class:`~shoe.service.deck.cycle.DeckCycle` is the thin adapter that answers the
intents on the owner thread. The world a step reads (a live round, the link, the shoe's last STATUS) comes
in with the input.

A round opens only on a ``checked`` deck whose count STATUS confirms (:func:`for_round`), never on an
unreachable shoe. A deck check's faces (missing, duplicate, foreign cards) name cards of a deck that is
never dealt from, in card order (never the load order, SPEC §9).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from drivers.errors import ShoeDiscrepancy, ShoeError, ShoeProtocolError
from protocols.codes import NakCode
from shoe.service.api import requests as rq
from shoe.service.deck.intents import (
    AwaitLoaded,
    CheckDeck,
    DeckStep,
    LoadEmulator,
    LoadMidRound,
    Log,
    Publish,
    ShoeCount,
    Void,
)
from shoe.service.deck.states import BETWEEN_ROUNDS, HINTS, DeckState
from shoe.service.errors import ErrorKind, ServiceError
from shoe.service.journal.secrecy import public_view
from shoe.service.rounds.intents import Alarm, Append, Drain, DrainResult, ReleaseStub

if TYPE_CHECKING:
    from drivers.deck import DeckVerdict  # a type only: drivers.deck also holds a thread-waiting watch

__all__ = [
    "FOLDED",
    "Deck",
    "cards_out",
    "for_round",
    "load",
    "load_on_top",
    "on_connect",
    "on_loaded",
    "on_status",
    "release",
    "run_check",
    "view",
]

FOLDED = frozenset({"deck", "round-opened", "round-closed", "decision", "link", "technician"})
"""The journal entry kinds the fold reads (every other kind leaves the deck as it is)."""
_CHECK_FIELDS = ("ok", "count", "back", "missing", "extra", "duplicates", "foreign", "unreadable",
                 "checked_faces", "problems", "who")  # fmt: skip


@dataclass(slots=True)
class Deck:
    """The deck's state: what the journal says (the fold) and what a step remembers between two inputs."""

    backs: tuple[str, ...] = ()  # [deck] backs: the alternation (empty: any back)
    check_on_load: bool = True  # [deck] check_on_load
    state: DeckState = DeckState.UNKNOWN
    deck_no: int = 0  # the last ``loaded`` entry's number (decks journaled so far)
    count: int | None = None  # the cards the shoe holds, as last learned
    back: str | None = None
    check: dict[str, Any] | None = None  # the current deck's check, as the view shows it
    dealt_back: str | None = None  # the back of the last deck a round was dealt from (the alternation)
    stale: bool = True  # the shoe must be asked what it holds (at start, after a lost link)
    loading_by: str | None = None  # the role whose load action is waiting for its DECK_LOADED
    absorb: int | None = None  # a DECK_LOADED of this count repeats the load found at connect
    round_loaded: bool = False  # the DECK_LOADED of a load on top of the live deck (load_on_top) was seen
    touched: bool = True  # a stack was asked of the shoe in the round dealing from the deck

    # -- the fold over the journal ---------------------------------------------------------------

    def note(self, kind: str, data: Mapping[str, Any], ts: str) -> bool:
        """Apply one committed journal entry; whether its kind is one the deck reads (its view may move)."""
        if kind not in FOLDED:
            return False
        if kind == "deck":
            self._apply(data, ts)
        elif kind == "decision":
            action = data.get("action")
            if action == "stack-for-seat":
                self.touched = True  # the shoe was asked for cards: the deck is no longer whole
            elif action == "release-stub":
                self._emptied()
        elif kind == "round-opened":
            self.state, self.touched = DeckState.IN_PLAY, False
            deck = data.get("deck")
            if isinstance(deck, Mapping):
                self.dealt_back = str(deck.get("back") or "") or None
        elif kind == "round-closed":
            if self.state is DeckState.IN_PLAY:
                # the round is over: its stub is still in the shoe; a round voided before any stack leaves the
                # deck whole and checked (the gate still compares the shoe's count with the check's)
                self.state = DeckState.USED if self.touched else DeckState.CHECKED
        elif kind == "technician":
            if data.get("action") == "maintenance-dispense" and self.count is not None and (
                self.state is not DeckState.IN_PLAY
            ):  # a failed dispense's cards too
                self.count = max(0, self.count - len(data.get("cards") or ()))
        elif data.get("event") == "stub-recovered":  # a ``link`` entry
            self._emptied()
        return True

    def _apply(self, data: Mapping[str, Any], ts: str) -> None:
        event = data.get("event")
        if event == "loaded":
            self.deck_no, self.state = int(data["deck_no"]), DeckState.LOADED
            self.count, self.back, self.check = data.get("count"), str(data.get("back") or "") or None, None
        elif event == "checked":
            self.state = DeckState.CHECKED if data.get("ok") else DeckState.REFUSED
            self.count = data.get("count")
            self.back = str(data.get("back") or "") or self.back
            self.check = {**{name: data.get(name) for name in _CHECK_FIELDS}, "at": ts}
        elif event == "released":
            self._emptied()
        elif event == "unchecked" and self.state is DeckState.CHECKED:
            self.state, self.check = DeckState.LOADED, None  # loaded, not the deck its check found: check it again

    def _emptied(self) -> None:
        self.state, self.count, self.back, self.check = DeckState.AWAITING, 0, None, None

    def forget(self) -> None:
        """Before a rebuild from the journal: nothing known but the alternation."""
        self.state, self.deck_no, self.count, self.back, self.check = DeckState.UNKNOWN, 0, None, None, None

    def expected_back(self) -> str | None:
        """The back the next deck must have: the one after the last deck dealt (None: any of the table's)."""
        backs = self.backs
        if len(backs) == 1:
            return backs[0]
        if self.dealt_back in backs:
            return backs[(backs.index(self.dealt_back) + 1) % len(backs)]
        return None


def view(deck: Deck, *, link_up: bool, live: bool, emulator: bool) -> dict[str, Any]:
    """The deck as any role may see it (docs/api.md, "Deck"; declared in shoe.service.journal.visibility).

    ``link_up``: the link is up (else the state shown is ``unknown``); ``live``: a round is live (its own
    actions, not the deck's, are offered); ``emulator``: the shoe is an emulator (``load-deck`` offered).
    """
    state = deck.state if link_up else DeckState.UNKNOWN
    if live and state is not DeckState.USED:
        actions: list[str] = []  # the round's own actions (Mississippi releases its stub in the round)
    else:
        actions = [a for a in BETWEEN_ROUNDS[state] if emulator or a != "load-deck"]
    raw = {
        "state": state.value,
        "deck_no": deck.deck_no,
        "count": deck.count,
        "back": deck.back,
        "expected_back": deck.expected_back(),
        "backs": list(deck.backs) or None,
        "check": None if deck.check is None else public_view("deck-check", deck.check),
        "emulator": emulator,
        "hint": HINTS[state],
        "actions": actions,
    }
    return public_view("deck", raw)


# -- what the shoe says ----------------------------------------------------------------------------


def _loaded(deck: Deck, count: int | None, back: str, who: str) -> DeckStep[None]:
    data = {"event": "loaded", "deck_no": deck.deck_no + 1, "count": count, "back": back, "who": who}
    yield Append("deck", data, None)  # the fold applies it once committed
    yield Log("deck loaded", {"deck_no": deck.deck_no, "count": count, "back": back, "who": who})


def _auto_check(deck: Deck, *, connected: bool) -> DeckStep[None]:
    """The check on load (``[deck] check_on_load``): a failure is logged, the deck stays ``loaded``."""
    if not deck.check_on_load or deck.state is not DeckState.LOADED or not connected:
        return
    try:
        yield from run_check(deck, "shoed")
    except (ShoeError, ServiceError) as exc:
        yield Log("the automatic deck check failed: check the deck (POST /v1/deck/check)", {"error": str(exc)},
                  "warning")  # fmt: skip


def on_connect(deck: Deck, *, connected: bool, live: bool, status_count: int | None) -> DeckStep[None]:
    """The link is (back) up: what the shoe holds (``status_count``, its last STATUS), unless a round deals
    from it. Cards in the shoe are a load (journaled, checked again: a deck may have been swapped while the
    service or the link was down); an empty shoe awaits a deck."""
    if not deck.stale or not connected:
        return
    deck.stale = False
    if live or deck.state in (DeckState.IN_PLAY, DeckState.USED):
        return
    if status_count == 0:
        if deck.state is not DeckState.AWAITING:
            deck._emptied()  # nothing was loaded: nothing to journal
            yield Publish()
        return
    yield from _loaded(deck, status_count, "", "status")
    deck.absorb = status_count
    yield from _auto_check(deck, connected=connected)


def link_lost(deck: Deck) -> None:
    """A lost link or a rebooted shoe: it is asked again what it holds at the next connect."""
    deck.stale = True


def on_status(
    deck: Deck, count: int | None, *, connected: bool, live: bool, deck_loaded_events: bool
) -> DeckStep[None]:
    """After a STATUS poll (``count``: its cards, ``None`` unknown): the count, and a load by an older shoe
    that sends no DECK_LOADED (``deck_loaded_events`` false, SPEC §11)."""
    if not connected or count is None:
        return
    checked = (deck.check or {}).get("count")
    if deck.state is DeckState.CHECKED and checked is not None and count != checked and not live:
        yield from cards_out(deck, "count-differs", "status", live=live)  # cards taken out (or added) by hand
    if deck.state is not DeckState.IN_PLAY and count != deck.count:
        deck.count = count
        yield Publish()  # between items too: the count the deck view shows is the shoe's (GET /v1/deck)
    if not deck_loaded_events and deck.state is DeckState.AWAITING and count > 0:
        yield from _loaded(deck, count, "", "status")
        yield from _auto_check(deck, connected=connected)


def on_loaded(
    deck: Deck, count: int | None, back: str, *, connected: bool, live: bool, round_load: bool
) -> DeckStep[None]:
    """The shoe's DECK_LOADED (``count`` None: it cannot count): journaled, then checked when
    ``check_on_load``. While the round's deck is still in the shoe (``live``), cards loaded on top mix two
    decks: the round is void (SPEC §11), unless the round expects them (``round_load``: seven-card stud's
    reshuffled burns)."""
    absorb, deck.absorb = deck.absorb, None
    if absorb is not None and absorb == count and deck.state is not DeckState.AWAITING:
        return  # the event log repeats the load this connect already journaled
    mixed = deck.state is DeckState.IN_PLAY and live
    if mixed and round_load:
        yield Log("cards loaded into the round's deck, as the round expects", {"count": count})
        deck.count, deck.round_loaded = count, True
        return  # the round records it (seven-card stud's reshuffled burns)
    yield from _loaded(deck, count, back, deck.loading_by or "shoe")
    if mixed:
        yield Void("cards were loaded while the round's deck was still in the shoe: two decks are mixed")
    yield from _auto_check(deck, connected=connected)


# -- the actions -----------------------------------------------------------------------------------


def run_check(deck: Deck, who: str) -> DeckStep[None]:
    """DECK_CHECK the cards in the shoe against a full deck of the expected back; journaled, then the state.

    A deck the service has not journaled yet (an older shoe's load, seen now) is journaled as loaded first;
    an empty shoe has no deck to check. A shoe that refuses the check now (BAD_STATE: a stack in its tray,
    a stub released) is a conflict, not a fault.
    """
    if deck.state in (DeckState.AWAITING, DeckState.UNKNOWN) or deck.deck_no == 0:
        count: int | None = yield ShoeCount()
        if count == 0:
            raise ServiceError("deck-not-ready", "the shoe is empty: there is no deck to check",
                               hint=HINTS[DeckState.AWAITING])  # fmt: skip
        yield from _loaded(deck, count, "", "status")
    expected, backs = deck.expected_back(), deck.backs
    try:
        verdict: DeckVerdict = yield CheckDeck(expected)
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
        "event": "checked", "deck_no": deck.deck_no, "ok": ok, "count": verdict.count, "back": verdict.back,
        "expected_back": expected, "missing": list(verdict.missing), "extra": verdict.extra,
        "duplicates": list(verdict.duplicates), "foreign": list(verdict.foreign),
        "unreadable": verdict.unreadable, "checked_faces": verdict.checked_faces, "problems": problems, "who": who,
    }  # fmt: skip
    yield Append("deck", data, None)
    yield Log("deck checked", {"deck_no": deck.deck_no, "ok": ok, "count": verdict.count, "who": who})  # no faces


def load(deck: Deck, request: rq.LoadDeck, who: str) -> DeckStep[None]:
    """The dealer loads a shuffled deck into an emulator (its faults on request); its DECK_LOADED is journaled
    with ``who`` (and checked) while the step waits for it; if it never comes, the load is journaled from what
    the emulator answered."""
    before = deck.deck_no
    deck.loading_by = who
    try:
        held, back = yield LoadEmulator(request, deck.expected_back())
        connected: bool = yield AwaitLoaded(before)
    finally:
        deck.loading_by = None
    if deck.deck_no == before:  # the event never came
        yield from _loaded(deck, held, back, who)
        yield from _auto_check(deck, connected=connected)


def cards_out(deck: Deck, cause: str, who: str, *, live: bool) -> DeckStep[None]:
    """Cards leave a checked deck outside a round: unchecked, journaled before the shoe moves (a dispense
    cut short leaves it unchecked too); no round opens on it until it is checked again or replaced."""
    if deck.state is not DeckState.CHECKED or live:
        return
    data = {"event": "unchecked", "deck_no": deck.deck_no, "cause": cause, "count": deck.count, "who": who}
    yield Append("deck", data, None)  # the fold applies it once committed
    yield Log("deck unchecked", {"deck_no": deck.deck_no, "cause": cause, "who": who})


def load_on_top(deck: Deck, codes: Sequence[str]) -> DeckStep[bool]:
    """Seven-card stud's reshuffled burns (N.J.A.C. 13:47-20.35(h): "the dealer shall shuffle the burn
    cards, burn a card and then deal the common card") loaded by the service into an emulator, which has
    no dealer's hands, on top of the card it still holds; its DECK_LOADED is the round's (:func:`on_loaded`),
    waited for here so that it is never taken for a second deck once the next card is out. ``False`` on a
    real shoe: its dealer loads them, and the shoe reports the load."""
    deck.round_loaded = False
    loaded: bool = yield LoadMidRound(tuple(codes), deck.back)
    if not loaded:
        return False
    yield AwaitLoaded(deck.deck_no, round_load=True)
    return deck.round_loaded


def release(who: str) -> DeckStep[dict[str, Any]]:
    """Between rounds: the shoe presents the cards it holds (a stub, a refused deck); the shoe is empty."""
    count: int = yield ReleaseStub()
    yield Append("deck", {"event": "released", "count": count, "who": who}, None)
    return {"count": count}


def _catch_up(deck: Deck) -> DeckStep[None]:
    """The shoe holds cards while the deck awaits one: its DECK_LOADED is on its way (waited for), or an
    older shoe sends none (the load journaled from STATUS). Checked when ``check_on_load``."""
    try:
        count: int | None = yield ShoeCount()
    except ShoeError:
        return
    if not count:
        return
    connected: bool = yield AwaitLoaded(deck.deck_no)
    if deck.state is DeckState.AWAITING:
        yield from _loaded(deck, count, "", "status")
        yield from _auto_check(deck, connected=connected)


def for_round(deck: Deck) -> DeckStep[tuple[int | None, dict[str, Any]]]:
    """The gate of ``open-round`` (both games): ``(cards_remaining, the deck's reference)``, or a refusal.

    The link is up; the deck is ``checked``; STATUS confirms the count the check found (a shoe that
    cannot count says nothing against it: the check counted the deck).
    """
    drained: DrainResult = yield Drain()  # a DECK_LOADED already on its way is handled first
    if not drained.link_up:
        raise ServiceError("shoe-unavailable", "the shoe is not connected: no round opens on an unreachable shoe",
                           kind=ErrorKind.UNAVAILABLE, hint=HINTS[DeckState.UNKNOWN])  # fmt: skip
    if deck.state is DeckState.AWAITING:
        yield from _catch_up(deck)
    if deck.state is not DeckState.CHECKED:
        why = "; ".join((deck.check or {}).get("problems") or []) if deck.state is DeckState.REFUSED else ""
        with contextlib.suppress(ShoeError):
            deck.count = yield ShoeCount()
        held = "" if deck.count is None else f", the shoe holds {deck.count} cards"
        raise ServiceError("deck-not-ready", f"the deck is {deck.state.value}{f' ({why})' if why else ''}{held}: "
                           "a round opens only on a checked deck", hint=HINTS[deck.state])  # fmt: skip
    try:
        remaining: int | None = yield ShoeCount(confirm=True)
    except ShoeDiscrepancy as exc:
        yield Alarm(exc.cause, exc.detail)
        raise ServiceError("shoe-discrepancy", f"the shoe's count is in doubt: {exc}", hint=exc.hint) from exc
    except ShoeError as exc:
        raise ServiceError("shoe-unavailable", f"the shoe did not answer STATUS: {exc}",
                           kind=ErrorKind.UNAVAILABLE, hint=exc.hint) from exc  # fmt: skip
    checked = (deck.check or {}).get("count")
    if remaining is not None and remaining != checked:
        deck.count = remaining
        raise ServiceError("deck-not-ready", f"the shoe holds {remaining} cards, the deck check counted {checked}",
                           hint="check the deck again: POST /v1/deck/check")  # fmt: skip
    return remaining, {"deck_no": deck.deck_no, "back": deck.back or ""}
