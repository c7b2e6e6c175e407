"""Drive one hand of seven-card stud (:class:`~shoe.rules.stud.StudHand`, N.J.A.C. 13:47-20.35) from a shoe.

Every card is a one-card stack (``DISPENSE`` of 1, the shoe reads it): the hole cards, the up cards,
the burns and the common card alike, so the controller itself knows the bring-in and who acts first.

The burn reshuffle of (h) (with one card or none left for 7th street): the protocol has no command
to load a shoe, so the tool does what a dealer does by hand.  It releases the stub (``RELEASE_STUB``:
the card left, if any, comes out), the dealer shuffles it with the burn cards, burns one and deals the
common card by hand, passing each across the reader (``SCAN``), exactly as Mississippi stud community
cards are identified.  The emulator loaded with the script's whole ``"shoe"`` list holds, at that
moment, exactly the cards the script lists after the reshuffle, so its stub reads them in order.

Actions are taken in script order; when they run out, every player checks or calls (the bring-in
brings in).  A card the shoe cannot read, or one the hand refuses (already dealt, not in the stub),
is an irregularity (rules digest): the hand is void and every chip goes back.  In the dry run on the
script's own list (``strict=True``) a refused card is the script's fault instead.

On a shoe whose order is not the script's (a real shoe) the bring-in and who acts first follow the
cards actually dealt (N.J.A.C. 13:47-20.35(d),(f)), so a scripted action may no longer fit: that
cannot be known before dealing, so the hand is void (every chip returned) and
:class:`~shoe.play.errors.CutShort` carries it with the action's JSON path.  A device fault or a lost
link mid-hand ends it the same way.  In the dry run (``strict=True``) both are the script's fault.
"""

from __future__ import annotations

from dataclasses import dataclass

from drivers.errors import ShoeError
from shoe.cards import Card
from shoe.play.errors import CutShort, ScriptError, at
from shoe.play.script import StudScript
from shoe.play.source import CardSource, OutOfCards
from shoe.rules.errors import RuleViolation
from shoe.rules.profiles import Irregularity
from shoe.rules.stud import DealStep, StudHand, Target

__all__ = ["StudPlay", "Void", "play_stud"]

_ORDINAL = {3: "3rd", 4: "4th", 5: "5th", 6: "6th", 7: "7th"}


@dataclass(frozen=True)
class Void:
    """Why the hand was voided (a misdeal, rules digest "Irregularities")."""

    cause: Irregularity
    detail: str


@dataclass(frozen=True)
class StudPlay:
    hand: StudHand
    void: Void | None


def play_stud(script: StudScript, source: CardSource, *, strict: bool = False) -> StudPlay:
    """Play ``script`` with cards from ``source``; the hand comes back finished, or unfinished and void."""
    try:
        hand = StudHand(script.table, script.seats, stub_size=script.stub_size)
    except RuleViolation as exc:
        path = "stub_size" if exc.code == "short-stub" else "seats"
        raise ScriptError(f"{path}: {exc.message}", rule=exc.rule, code=exc.code) from exc
    try:
        return _play(script, hand, source, strict=strict)
    except ShoeError as exc:
        if source.tally.taken == 0:  # not one card dealt: no hand to void
            raise
        raise CutShort(
            exc, StudPlay(hand, Void(Irregularity.OTHER, f"the hand was cut short by the shoe: {exc}"))
        ) from exc
    except ScriptError as exc:
        if strict or source.tally.taken == 0:
            raise
        detail = f"{exc.message}: the shoe's cards are not the script's, so its actions no longer fit"
        raise CutShort(exc, StudPlay(hand, Void(Irregularity.OTHER, detail))) from exc


def _play(script: StudScript, hand: StudHand, source: CardSource, *, strict: bool) -> StudPlay:
    actions = list(script.actions)
    done = 0
    released = False
    dealt: set[Card] = set()
    while not hand.finished:
        step = hand.next_card
        if step is not None and step.target is Target.RESHUFFLE:
            hand.reshuffle_burns()
            source.release_stub()
            released = True
        elif step is not None:
            code = _next_code(source, step, released)
            void = _deal(hand, step, code, dealt, source.tally.taken, strict=strict)
            if void is not None:
                return StudPlay(hand, void)
        elif done < len(actions):
            action = actions[done]
            done += 1
            if action.seat in hand.folded_seats:
                raise ScriptError(
                    f"{action.path}: a decision from seat {action.seat}, which has folded: remove it",
                    rule="N.J.A.C. 13:47-20.35(g)",
                    code="decision-after-fold",
                )
            with at(f"{action.path} {[action.seat, action.kind, action.amount]}"):
                hand.act(action.seat, action.kind, action.amount)
        else:
            chosen = hand.default_action()
            hand.act(chosen.seat, chosen.kind, chosen.amount)
    if done < len(actions):
        raise ScriptError(f"{actions[done].path}: the hand is over (phase {hand.phase.value}) before it: remove it")
    return StudPlay(hand, None)


def _next_code(source: CardSource, step: DealStep, released: bool) -> str | None:
    try:
        return source.scan() if released else source.dispense(1)[0]
    except OutOfCards as exc:
        raise ScriptError(
            f'shoe: too few cards: {exc} (next: {step}, {_ORDINAL[step.street]} street): add cards to "shoe"',
            rule="N.J.A.C. 13:47-20.35(h)",
            code="too-few-cards",
        ) from None


def _deal(
    hand: StudHand, step: DealStep, code: str | None, dealt: set[Card], number: int, *, strict: bool
) -> Void | None:
    where = f"card {number} ({step}, {_ORDINAL[step.street]} street)"
    if code is None:
        return Void(Irregularity.UNREADABLE_CARD, f"{where}: the shoe could not read it")
    card = Card.parse(code)
    if strict:
        with at(f"shoe[{number - 1}] {code}"):
            hand.deal(card)
    elif not hand.can_deal(card):
        cause = Irregularity.DUPLICATE_CARD if card in dealt else Irregularity.FOREIGN_CARD
        return Void(cause, f"{where}: the shoe read {code}, which is not in the stub")
    else:
        hand.deal(card)
    dealt.add(card)
    return None
