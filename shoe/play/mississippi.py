"""Drive one Mississippi stud round (:class:`~shoe.rules.mississippi.MississippiRound`) from a shoe.

The automated-shoe procedure of NY 5324.38(d)(2)-(3) (NJ and PA the same, rules digest):

1. every seat's ante and side wagers, then "no more bets" (PA with a Progressive offered: the
   progressive system is locked and its chips counted, before the first stack);
2. one two-card stack per wagering seat, ascending (clockwise from the dealer's left): one
   ``DISPENSE`` each, the cards as the shoe read them;
3. ``RELEASE_STUB``: the count the shoe reports is checked against 52 - 2n;
4. the three community cards are dealt face down by hand from the stub; each street's decisions
   (ascending), then the next community card is revealed: the dealer passes it across the reader
   (one ``SCAN``), and it must be a card still in the stub;
5. settlement, descending (PA: the table system's meters, Magic Card and Lucky seat first).

Whatever the round meets on the way (an unreadable, foreign or duplicate card, a wrong stub count)
the rules engine turns into a misdeal: the round stops there and is void.  A decision the engine
refuses is the script's fault: :class:`~shoe.play.errors.ScriptError` with the decision's JSON path.
A device fault or a lost link once a card has been dealt (a jam) cannot be played through by a
script: the round is declared a misdeal (``Irregularity.OTHER``, the fault in its detail) and
:class:`~shoe.play.errors.CutShort` carries it, so its record is still printed.
"""

from __future__ import annotations

from drivers.errors import ShoeError
from shoe.play.errors import CutShort, ScriptError, at
from shoe.play.script import MississippiScript
from shoe.play.source import CardSource
from shoe.rules.errors import RuleViolation
from shoe.rules.mississippi import MisdealRecord, MississippiRound, RoundState, new_round
from shoe.rules.profiles import CommunitySource, Irregularity

__all__ = ["play_mississippi"]


def play_mississippi(script: MississippiScript, source: CardSource) -> MississippiRound:
    """Play ``script`` with cards from ``source``; the round comes back complete or void (misdeal)."""
    rnd = new_round(script.jurisdiction, script.table)
    if rnd.profile.community_source is not CommunitySource.STUB:  # pragma: no cover - no such profile yet
        raise ScriptError(f"jurisdiction: {script.jurisdiction} deals community cards from the shoe; not scripted")
    for seat in script.seats:
        with at(f'seats["{seat.seat}"]'):
            rnd.place_wagers(seat.seat, seat.ante, dict(seat.side) or None)
    rnd.no_more_bets()
    if rnd.table.progressive_lockout:
        rnd.lock_progressive()
        rnd.count_progressive_chips(rnd.progressive_wagers_accepted)
    try:
        if _deal(rnd, source):
            _streets(rnd, script, source)
    except ShoeError as exc:
        if source.tally.taken == 0:  # not one card dealt (a door open at the first stack): no round to void
            raise
        _void(rnd, exc)
        raise CutShort(exc, rnd) from exc
    if rnd.state is RoundState.SETTLEMENT:
        _settle(rnd, script)
    return rnd


def _void(rnd: MississippiRound, exc: ShoeError) -> None:
    """The shoe failed mid-round: a misdeal, every wager returned (rules digest, "Irregularities")."""
    try:
        rnd.declare_misdeal(Irregularity.OTHER, f"the round was cut short by the shoe: {exc}")
    except RuleViolation:  # pragma: no cover - the shoe is only used before settlement
        raise exc from None


def _deal(rnd: MississippiRound, source: CardSource) -> bool:
    """Stacks, stub and community; False when a misdeal voided the round."""
    while (seat := rnd.next_stack_seat) is not None:
        cards = source.dispense(rnd.profile.stack_size)
        if isinstance(rnd.deal_stack(seat, cards), MisdealRecord):
            return False
    if isinstance(rnd.release_stub(source.release_stub()), MisdealRecord):
        return False
    return not isinstance(rnd.deal_community(), MisdealRecord)


def _streets(rnd: MississippiRound, script: MississippiScript, source: CardSource) -> None:
    decisions = {s.seat: s.decisions for s in script.seats}
    for street in range(rnd.profile.community_cards):
        while (seat := rnd.next_to_decide) is not None:
            with at(f'seats["{seat}"].decisions[{street}]'):
                rnd.decide(seat, decisions[seat][street])
        if rnd.state is RoundState.COMPLETE:  # everyone folded: the rest is not revealed
            return
        if isinstance(rnd.reveal(street, source.scan()), MisdealRecord):
            return


def _settle(rnd: MississippiRound, script: MississippiScript) -> None:
    system = script.table_system
    if system is not None:
        with at("table_system"):
            rnd.record_table_system(dict(system.meters), system.magic_card, system.lucky_seat)
    while rnd.state is RoundState.SETTLEMENT:
        with at("settlement"):
            rnd.settle_next()
