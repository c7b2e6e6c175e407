"""The one registry of actions: each service action declared once.

An :class:`Action` names the action, the role that may call it, its request type
(:mod:`shoe.service.api.requests`), the games it applies to, its scope (when it may run) and its
handler, plus what its HTTP route needs (path, summary, tag, success status). Everything else is
derived from :data:`ACTIONS`:

- ``shoe.api.routes`` builds the action routes (``POST`` + path) and the OpenAPI document takes the
  request schemas from the same types;
- ``shoe.service.api.actions.dispatch`` checks the role, converts the parameters to the request type and
  calls the handler (round actions go to the live round's ``act``, which each game implements for
  the actions that name it in ``games``);
- :func:`callable_now` lists what may be called in the current round (the round view shows it).

A test walks the registry and the route table both ways (tests/api/test_registry.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

import msgspec

from shoe.service.api import requests as rq
from shoe.service.errors import Role

__all__ = ["ACTIONS", "BY_NAME", "DECK_ACTIONS", "GAMES", "Action", "Scope", "callable_now"]

MISSISSIPPI, STUD = "mississippi-stud", "seven-card-stud"
GAMES = frozenset({MISSISSIPPI, STUD})


class Scope(Enum):
    """When an action may run."""

    OPEN = "open"  # opens a round: refused while one is live
    ROUND = "round"  # acts on the live round (the games in ``Action.games``)
    MAINTENANCE = "maintenance"  # technician work: refused while a round is live
    DECK = "deck"  # the dealer's deck cycle between rounds (shoe.service.deck.cycle): refused while a round is live


Handler = Callable[[Any, msgspec.Struct], dict[str, Any]]


@dataclass(frozen=True)
class Action:
    name: str
    role: Role
    request: Any  # a request type of shoe.service.api.requests (open-round: a union, one type per game)
    scope: Scope
    path: str
    summary: str
    games: frozenset[str] = GAMES
    tag: str = "round"
    status: int = 200
    headers: Mapping[str, str] | None = None  # extra response headers on success
    between_rounds: bool = False  # also callable with no live round (``release-stub`` empties the shoe)
    example: Mapping[str, Any] | None = None  # a valid request, for the OpenAPI document (and its fuzzers)

    @property
    def operation_id(self) -> str:
        words = self.name.split("-")
        return words[0] + "".join(w.capitalize() for w in words[1:])


D, T, S = Role.DEALER, Role.TECHNICIAN, Role.TABLE_SYSTEM
M, ST, BOTH = frozenset({MISSISSIPPI}), frozenset({STUD}), GAMES


def _a(name: str, path: str, summary: str, request: Any = rq.Empty, **kw: Any) -> Action:
    kw.setdefault("role", D)
    kw.setdefault("scope", Scope.ROUND)
    return Action(name=name, request=request, path=path, summary=summary, **kw)


ACTIONS: tuple[Action, ...] = (
    _a("open-round", "/v1/rounds", "Open a round with the seats' wagers", rq.OpenRound,
       scope=Scope.OPEN, status=201, headers={"Location": "/v1/round"},
       example={"game": MISSISSIPPI, "jurisdiction": "NY",
                "seats": [{"seat": 1, "ante": 1000}, {"seat": 3, "ante": 500}]}),
    _a("no-more-bets", "/v1/round/no-more-bets", "Close wagering", games=M),
    _a("lock-progressive", "/v1/round/progressive/lock", "Lock the progressive wagers (PA)", games=M),
    _a("chip-count", "/v1/round/progressive/chip-count", "Record the progressive chip count (PA)", rq.ChipCount,
       games=M),
    _a("deal", "/v1/round/deal", "Deal every wagering seat's stack (stud: the street's cards) from the shoe"),
    _a("release-stub", "/v1/round/release-stub", "Release and count the stub (between rounds: empty the shoe)",
       games=M, between_rounds=True),
    _a("decide", "/v1/round/decisions", "A seat's street decision", rq.Decide, games=M,
       example={"seat": 1, "multiple": 1}),
    _a("reveal", "/v1/round/reveal", "Reveal the next community card", rq.Reveal, games=M, example={"index": 1}),
    _a("settle", "/v1/round/settle", "Settle every seat, in descending seat order (stud: the pot's awards)"),
    _a("void", "/v1/round/void", "Void the round (misdeal)", rq.Void),
    _a("forfeit", "/v1/round/forfeit", "A seat forfeits for sharing information (PA)", rq.Forfeit, games=M),
    _a("stud-action", "/v1/round/stud-actions", "A seven-card stud player's action", rq.StudAction, games=ST),
    _a("reshuffle-burns", "/v1/round/reshuffle-burns",
       "Reshuffle the burn cards into the stub for 7th street (N.J.A.C. 13:47-20.35(h))", games=ST),
    _a("progressive-inputs", "/v1/table-system/progressive-inputs",
       "The table-game system's progressive meters and draws (PA)", rq.ProgressiveInputs,
       role=S, games=M, tag="table-system"),
    _a("load-deck", "/v1/deck/load", "Load a shuffled deck into an emulator shoe (its faults on request)",
       rq.LoadDeck, scope=Scope.DECK, tag="deck", example={"back": "blue"}),
    _a("check-deck", "/v1/deck/check", "Check the deck in the shoe before the first stack", scope=Scope.DECK,
       tag="deck"),
    _a("maintenance-dispense", "/v1/maintenance/dispense", "Test dispense (refused while a round is live)",
       rq.MaintenanceDispense, role=T, scope=Scope.MAINTENANCE, tag="maintenance"),
    _a("clear-fault", "/v1/maintenance/clear-fault", "Clear a shoe fault (refused while a round is live)",
       rq.ClearFault, role=T, scope=Scope.MAINTENANCE, tag="maintenance"),
    _a("verify-journal", "/v1/maintenance/verify-journal", "Verify the journal's chain",
       role=T, scope=Scope.MAINTENANCE, tag="maintenance"),
)  # fmt: skip

DECK_ACTIONS = frozenset({"load-deck", "check-deck", "release-stub"})
"""Between rounds, callable as the deck's state allows (the deck view's ``actions``)."""

BY_NAME: Mapping[str, Action] = {a.name: a for a in ACTIONS}
assert len(BY_NAME) == len(ACTIONS), "an action is declared twice"
assert len({a.path for a in ACTIONS}) == len(ACTIONS), "two actions share a path"


def callable_now(game: str | None, live: bool) -> list[str]:
    """The actions a caller may try now (the rules engine still decides each one): for the round view.

    With a live round: the round actions of its game. Without: opening a round, the technician's
    work and what runs between rounds.
    """
    if live and game is not None:
        return [a.name for a in ACTIONS if a.scope is Scope.ROUND and game in a.games]
    return [a.name for a in ACTIONS if a.scope is not Scope.ROUND or a.between_rounds]
