"""``StudHand``: one hand of NJ casino-night seven-card stud, fed card by card and action by action.

The caller (the service that owns the shoe link) feeds every card the shoe reads with :meth:`deal` and
every player decision with the betting triplets (``actions.py``).  The hand says what it expects next
(:attr:`next_card`, :attr:`to_act`, :meth:`legal_actions`) and refuses anything else with a
:class:`RuleViolation` that names the rule; a refused call changes nothing, because every call is
verified completely before anything is changed.  Pure: no I/O, no threads, no clocks.

The stub: the caller says how many cards the shoe holds when the hand starts (``stub_size``, 52 for a
full deck); the hand counts every card it accepts (:attr:`stub_remaining`) and plans the 7th street
common card and the burn reshuffle of (h) from that count.
"""

from __future__ import annotations

from collections.abc import Iterable

from shoe.cards import Card
from shoe.rules.actions import can
from shoe.rules.errors import RuleViolation
from shoe.rules.profiles import NJ_SEVEN_CARD_STUD, StudProfile
from shoe.rules.stud.betting import BettingRound, LegalAction
from shoe.rules.stud.config import StudTableConfig
from shoe.rules.stud.dealing import DealStep, Target, bring_in_seat, highest_showing, street_plan
from shoe.rules.stud.errors import cite
from shoe.rules.stud.queries import HandQueries
from shoe.rules.stud.records import (
    ActionKind,
    AntePosted,
    BettingAction,
    BurnsReshuffled,
    CardDealt,
    PotAwarded,
    Record,
)
from shoe.rules.stud.showdown import Settlement, settle_showdown, settle_uncontested
from shoe.rules.stud.states import PHASE_RULE, Phase, Street

__all__ = ["StudHand"]


class StudHand(HandQueries):
    """One hand, from the first card of 3rd street to the pot paid.

    ``StudHand(config, seats, stub_size=52)``; see :class:`HandQueries` for the questions it answers.
    """

    # -- dealing ----------------------------------------------------------------------------------
    def verify_deal(self, card: Card, target: int | str | None = None) -> DealStep:
        """Raise unless ``card`` may be dealt now (to ``target``: a seat, ``"burn"`` or ``"common"``)."""
        step = self._plan[self._step] if self._dealing else None
        known = self._known_in_stub
        if (  # only the common case (a card of the stub, no target named) skips the full check in order
            step is None
            or step.target is Target.RESHUFFLE
            or target is not None
            or not isinstance(card, Card)
            or (not (known and card in known) and (self._seen >> card.index & 1 or not self._unknown_in_stub))
        ):
            return self._check_deal(card, target, step)
        return step

    def _check_deal(self, card: Card, target: int | str | None, step: DealStep | None) -> DealStep:
        """:meth:`verify_deal` in full: each refusal in turn, with the rule of the phase it was asked in."""
        street = self.phase.street
        if step is None or street is None:
            rule = cite(PHASE_RULE[self.phase])
        else:  # a dealing phase: the rule of the profile's street
            rule = self._deal_rules[street - Street.THIRD]
        if step is None:
            raise RuleViolation(f"no card is due in phase {self.phase.value!r}", rule=rule, code="out-of-order")
        if step.target is Target.RESHUFFLE:
            raise RuleViolation(
                "the burn cards must be reshuffled before the next card", rule=cite("h"), code="out-of-order"
            )
        if target is not None and target != (step.seat if step.target is Target.SEAT else step.target.value):
            raise RuleViolation(f"the next card is for {step}, not {target!r}", rule=rule, code="wrong-target")
        if not isinstance(card, Card):
            raise RuleViolation(f"{card!r} is not a card", rule=rule, code="unknown-card")
        if card not in self._known_in_stub and (self._seen >> card.index & 1 or not self._unknown_in_stub):
            raise RuleViolation(f"{card.code} is not in the stub (already dealt)", rule=rule, code="unknown-card")
        return step

    can_deal = can(verify_deal)

    def deal(self, card: Card, target: int | str | None = None) -> CardDealt:
        """Place the card the shoe just read where the plan says; start betting after the last one."""
        step = self.verify_deal(card, target)
        known = self._known_in_stub
        if known and card in known:
            known.discard(card)
        else:
            self._unknown_in_stub -= 1
        self._seen |= 1 << card.index
        where = step.target
        if where is Target.SEAT:
            assert step.seat is not None
            self._cards[step.seat].append((card, step.face_up))
        elif where is Target.BURN:
            self._burns.append(card)
        else:
            self._common, self._common_for = card, self.live_seats
        record = CardDealt(card, where, step.street, step.seat, step.face_up)
        self._records.append(record)
        self._step += 1
        if self._step == len(self._plan):
            self._open_betting(step.street)
        return record

    def verify_reshuffle_burns(self) -> int:
        """(h) Raise unless the plan calls for the burn reshuffle now; else the new stub size."""
        step = self.next_card
        if step is None or step.target is not Target.RESHUFFLE:
            raise RuleViolation(f"no burn reshuffle is due (next: {step})", rule=cite("h"), code="out-of-order")
        return len(self._burns) + self._unknown_in_stub

    can_reshuffle_burns = can(verify_reshuffle_burns)

    def reshuffle_burns(self) -> BurnsReshuffled:
        """(h) The dealer shuffled the burn cards with what was left of the stub into the shoe."""
        self.verify_reshuffle_burns()
        record = BurnsReshuffled(tuple(self._burns), self._unknown_in_stub)
        self._known_in_stub.update(self._burns)
        self._burns.clear()
        self._records.append(record)
        self._step += 1
        return record

    def _open_betting(self, street: Street) -> None:
        live = self.live_seats
        if street is Street.THIRD:
            first = self._bring_in = bring_in_seat({s: self.up_cards(s)[0] for s in live}, self.profile)
            self._round = BettingRound(
                street,
                first,
                live,
                bet_size=self.config.small_bet,
                max_bets=self.config.max_bets,
                bring_in=self.config.bring_in,
                complete_to=self.config.small_bet,
            )
        else:
            cards = self._cards
            first = highest_showing({s: [card.rank for card, up in cards[s] if up] for s in live})
            self._round = BettingRound(
                street, first, live, bet_size=self.config.bet_size(street), max_bets=self.config.max_bets
            )
        self._first[street] = first
        self._fire("cards_dealt")

    # -- betting ----------------------------------------------------------------------------------
    def verify_act(self, seat: int, action: ActionKind | str, amount: int | None = None) -> LegalAction:
        try:
            kind = ActionKind.parse(action)
        except ValueError as exc:
            raise RuleViolation(str(exc), rule=cite(""), code="unknown-action") from None
        if self._round is None or not self.legal_actions():
            raise RuleViolation(
                f"no betting action is due in phase {self.phase.value!r}",
                rule=cite(PHASE_RULE[self.phase]),
                code="out-of-order",
            )
        return self._round.verify(seat, kind, amount)

    def act(self, seat: int, action: ActionKind | str, amount: int | None = None) -> BettingAction:
        legal = self.verify_act(seat, action, amount)
        assert self._round is not None
        street = self._round.street
        record = self._round.apply(legal)
        self._contrib[seat] += legal.amount
        if legal.kind is ActionKind.FOLD:
            self._folded.append(seat)
        self._records.append(record)
        if self._phase is Phase.BRING_IN:
            self._fire("forced_bet")
        if len(self._round.live) == 1:
            self._fire("all_but_one_folded")
            self._settle(settle_uncontested(self.pot, self._round.live[0]))
        elif self._round.closed:
            self._fire("betting_closed")
            if street is Street.SEVENTH:
                self._settle(settle_showdown(self.pot, {s: self.cards(s) for s in self.live_seats}, self.profile))
            else:
                plan = street_plan(Street(street + 1), self.live_seats, self.stub_remaining, self.profile)
                self._plan, self._step = plan, 0
        return record

    def _settle(self, settlement: Settlement) -> None:
        self._settlement = settlement
        for seat, amount in sorted(settlement.shares.items()):
            odd = settlement.odd_chips if seat == settlement.odd_chip_seat else 0
            self._records.append(PotAwarded(seat, amount, odd, settlement.uncontested))

    # -- replay ------------------------------------------------------------------------------------
    @classmethod
    def replay(
        cls,
        config: StudTableConfig,
        seats: Iterable[int],
        records: Iterable[Record],
        *,
        stub_size: int = 52,
        profile: StudProfile = NJ_SEVEN_CARD_STUD,
    ) -> StudHand:
        """Rebuild a hand from its audit trail, checking that every record is reproduced exactly.

        Antes and awards are produced by the hand itself; the replay checks them too.
        """
        hand = cls(config, seats, stub_size=stub_size, profile=profile)
        expected = list(records)
        for record in expected:
            if isinstance(record, CardDealt):
                hand.deal(record.card, record.seat if record.target is Target.SEAT else record.target.value)
            elif isinstance(record, BurnsReshuffled):
                hand.reshuffle_burns()
            elif isinstance(record, BettingAction):
                hand.act(record.seat, record.kind, record.amount)
            elif not isinstance(record, AntePosted | PotAwarded):  # pragma: no cover - Record is closed
                raise TypeError(f"not a record: {record!r}")
        if hand.records != tuple(expected):
            raise RuleViolation("the replayed hand does not reproduce its records", rule=cite(""), code="out-of-order")
        return hand
