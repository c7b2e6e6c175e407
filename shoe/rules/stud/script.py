"""Play a whole hand from a card sequence and a list of actions: the engine behind ``shoectl play``.

A script is the JSON object the CLI reads::

    {"game": "seven-card-stud", "jurisdiction": "NJ",
     "table": {"ante": 0, "bring_in": 100, "small_bet": 200, "big_bet": 400},
     "shoe": ["As", "Kd", ...],           # top card first, in the order the shoe reads them
     "seats": [1, 2, 3],
     "actions": [[3, "bring-in", 100], [1, "call", 100], ...]}   # optional

* ``shoe`` lists every card the shoe reads, burns and the common card included.  When (h) calls for
  the burn reshuffle, the dealer reshuffles and reloads the shoe, and the cards that follow in the list
  are the reshuffled ones (the burn, then the common card): :func:`play` calls ``reshuffle_burns()``
  itself when the plan reaches that step.
* ``actions`` are ``[seat, action, amount]`` (``amount`` may be null: the fixed-limit amount is used).
  Without ``actions`` every player checks or calls (the bring-in brings in for the bring-in amount);
  when the list runs out, the rest of the hand is checked or called too.
* :func:`play` stops early, returning the unfinished hand, when the shoe runs out of cards.
  Any refused card or action raises :class:`RuleViolation` with the script position in the message.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from shoe.cards import Card, CardError
from shoe.rules.errors import RuleViolation
from shoe.rules.stud.config import StudTableConfig
from shoe.rules.stud.dealing import Target
from shoe.rules.stud.errors import cite
from shoe.rules.stud.hand import StudHand

__all__ = ["GAME", "JURISDICTION", "from_script", "play"]

GAME = "seven-card-stud"
JURISDICTION = "NJ"

Action = Sequence[Any]
_END: Any = object()  # what next() gives once a list runs out (None may be an item: refused as such)


def play(
    config: StudTableConfig,
    seats: Iterable[int],
    shoe: Iterable[Card | str],
    actions: Iterable[Action] | None = None,
    *,
    stub_size: int = 52,
) -> StudHand:
    """Deal ``shoe`` (top card first) and apply ``actions`` in order until the hand ends."""
    hand = StudHand(config, seats, stub_size=stub_size)
    cards = iter(shoe)
    todo = iter(actions or ())
    dealt = done = 0  # how many of each list were used: the script position of a refusal
    while not hand.finished:
        step = hand.next_card
        if step is not None and step.target is Target.RESHUFFLE:
            hand.reshuffle_burns()
        elif step is not None:
            raw = next(cards, _END)
            if raw is _END:
                return hand
            dealt += 1
            card = raw if isinstance(raw, Card) else _card(raw, f"shoe[{dealt - 1}]")
            try:
                hand.deal(card)
            except RuleViolation as exc:
                raise _at(f"shoe[{dealt - 1}] {card.code}", exc) from exc
        else:
            line = next(todo, _END)
            if line is _END:
                chosen = hand.default_action()
                hand.act(chosen.seat, chosen.kind, chosen.amount)
                continue
            done += 1
            seat, kind, amount = _action(line, done)
            try:
                hand.act(seat, kind, amount)
            except RuleViolation as exc:
                raise _at(f"actions[{done - 1}] {list(line)}", exc) from exc
    return hand


def from_script(script: Mapping[str, Any]) -> StudHand:
    """Validate a script object (see the module docstring) and :func:`play` it."""
    for key, want in (("game", GAME), ("jurisdiction", JURISDICTION)):
        if script.get(key) != want:
            raise RuleViolation(
                f"script {key} is {script.get(key)!r}, expected {want!r}", rule=cite(""), code="bad-config"
            )
    for key in ("table", "shoe", "seats"):
        if key not in script:
            raise RuleViolation(f"script has no {key!r}", rule=cite(""), code="bad-config")
    config = StudTableConfig.from_mapping(dict(script["table"]))
    return play(
        config, script["seats"], script["shoe"], script.get("actions"), stub_size=int(script.get("stub_size", 52))
    )


def _card(raw: Card | str, where: str) -> Card:
    if isinstance(raw, Card):
        return raw
    try:
        return Card.parse(raw)
    except CardError as exc:
        raise RuleViolation(f"{where}: {exc}", rule=cite(""), code="unknown-card") from None


def _action(line: Action, pos: int) -> tuple[int, str, int | None]:
    if isinstance(line, str | bytes) or len(line) not in (2, 3):
        raise RuleViolation(
            f"actions[{pos - 1}] {line!r} is not [seat, action, amount]", rule=cite(""), code="unknown-action"
        )
    seat, kind = line[0], line[1]
    amount = line[2] if len(line) == 3 else None
    return seat, str(kind), amount


def _at(where: str, exc: RuleViolation) -> RuleViolation:
    """The refusal ``exc`` with its message prefixed by the script position that caused it."""
    return RuleViolation(f"{where}: {exc.message}", rule=exc.rule, code=exc.code)
