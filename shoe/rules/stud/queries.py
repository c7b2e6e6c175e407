"""The hand's state and every read-only question about it; ``hand.py`` adds the moves.

Privileged queries (:meth:`HandQueries.cards`, :meth:`HandQueries.down_cards`,
:meth:`HandQueries.best_hand`) see face-down cards: they are for the controller, the journal and the
tests.  Anything shown to players goes through :meth:`HandQueries.public_view`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from shoe.cards import FULL_DECK, Card
from shoe.hands import Category, HandValue, best_hand
from shoe.rules.errors import RuleViolation
from shoe.rules.profiles import NJ_SEVEN_CARD_STUD, StudProfile
from shoe.rules.stud.actions import BettingTriplets
from shoe.rules.stud.betting import BettingRound, LegalAction, default_action
from shoe.rules.stud.config import StudTableConfig
from shoe.rules.stud.dealing import DealStep, cards_before_seventh, third_street_plan
from shoe.rules.stud.errors import cite
from shoe.rules.stud.machine import PhaseMachine
from shoe.rules.stud.records import AntePosted, Record
from shoe.rules.stud.showdown import Settlement
from shoe.rules.stud.states import BETTING_PHASES, DEALING_PHASES, TERMINAL_PHASES, Phase, Street
from shoe.rules.stud.views import PublicView, SeatView

__all__ = ["HandQueries"]

_DEALING = tuple(DEALING_PHASES.values())  # tuples: an Enum's hash is a Python call, `is` is not
_ACTING = (Phase.BRING_IN, *BETTING_PHASES.values())  # a seat is to act (d), (e), (f), (g)
_ENDED = tuple(TERMINAL_PHASES)
_STREET_NAMES = [f"{s.value}{'rd' if s is Street.THIRD else 'th'}" for s in Street]  # "3rd" .. "7th"


def _check_seats(seats: Iterable[int], config: StudTableConfig, profile: StudProfile) -> tuple[int, ...]:
    order = tuple(sorted(seats))
    limit = min(config.max_seats, profile.max_seats)  # (b): the posted table, within the profile's limit
    if len(order) > limit:
        message = f"{len(order)} players: a table takes at most {limit}"
        raise RuleViolation(message, rule=cite("b"), code="too-many-players")
    if any(type(s) is not int or not 1 <= s <= limit for s in order) or len(set(order)) != len(order):
        raise RuleViolation(f"seats {order} must be distinct ints 1..{limit}", rule=cite("b"), code="bad-seats")
    if len(order) < 2:
        raise RuleViolation("a hand needs at least two players", rule=cite("b"), code="bad-seats")
    return order


def _check_profile(profile: StudProfile) -> StudProfile:
    """The streets must be 3rd to 7th, in order: the phase table has exactly those five."""
    names = [spec.name for spec in profile.streets]
    if names != _STREET_NAMES:
        raise RuleViolation(f"profile streets {names} must be {_STREET_NAMES}", rule=cite("c"), code="bad-config")
    return profile


class HandQueries(BettingTriplets):
    """State of one hand and the questions the controller, the CLI and the table display ask."""

    def __init__(
        self,
        config: StudTableConfig,
        seats: Iterable[int],
        *,
        stub_size: int = 52,
        profile: StudProfile = NJ_SEVEN_CARD_STUD,
    ) -> None:
        self.config = config
        self.profile = _check_profile(profile)
        self.seats = _check_seats(seats, config, profile)
        self.stub_size = stub_size
        need = cards_before_seventh(len(self.seats), profile)  # NJ: 3rd street, a burn and a card on 4th-6th
        if type(stub_size) is not int or not need <= stub_size <= 52:
            raise RuleViolation(
                f"a stub of {stub_size!r} cards cannot reach 7th street with "
                f"{len(self.seats)} players (need {need}..52)",
                rule=cite("h"),
                code="short-stub",
            )
        self._deal_rules = tuple(spec.rule for spec in self.profile.streets)  # each street's citation, 3rd to 7th
        self._machine = PhaseMachine()
        self._keep(self._machine.phase)
        self._cards: dict[int, list[tuple[Card, bool]]] = {s: [] for s in self.seats}
        self._burns: list[Card] = []
        self._common: Card | None = None
        self._common_for: tuple[int, ...] = ()
        self._seen = 0  # bit i: the card of index i was accepted (Card.index; an int, not a set of hashes)
        self._known_in_stub: set[Card] = set()  # burns shuffled back in (h)
        self._unknown_in_stub = stub_size
        self._plan: tuple[DealStep, ...] = third_street_plan(self.seats, profile)
        self._step = 0
        self._folded: list[int] = []
        self._contrib: dict[int, int] = dict.fromkeys(self.seats, 0)
        self._round: BettingRound | None = None
        self._bring_in: int | None = None
        self._first: dict[Street, int] = {}
        self._settlement: Settlement | None = None
        self._records: list[Record] = []
        if config.ante:  # (b) the posted ante, from every player in the round
            for seat in self.seats:
                self._contrib[seat] += config.ante
                self._records.append(AntePosted(seat, config.ante))

    # -- where the hand is -------------------------------------------------------------------------
    def _fire(self, trigger: str) -> None:
        """Move the phase machine; the hand keeps the phase it answers with, so that reading the phase
        (many times an action) is an attribute, not a walk into the machine."""
        self._keep(self._machine.fire(trigger))

    def _keep(self, phase: Phase) -> None:
        self._phase = phase
        self._dealing, self._acting, self._finished = phase in _DEALING, phase in _ACTING, phase in _ENDED

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def street(self) -> Street | None:
        return self._phase.street

    @property
    def finished(self) -> bool:
        return self._finished

    @property
    def live_seats(self) -> tuple[int, ...]:
        """Seats that have not folded, ascending (clockwise from the dealer's left)."""
        return tuple(s for s in self.seats if s not in self._folded)

    @property
    def folded_seats(self) -> tuple[int, ...]:
        """Seats in the order they folded."""
        return tuple(self._folded)

    @property
    def stub_remaining(self) -> int:
        """Cards left in the shoe: ``stub_size`` less every card accepted, plus reshuffled burns."""
        return len(self._known_in_stub) + self._unknown_in_stub

    @property
    def dealing_order(self) -> tuple[DealStep, ...]:
        """The plan of the street being (or last) dealt: seats, burn, common card, reshuffle."""
        return self._plan

    @property
    def next_card(self) -> DealStep | None:
        """What the next card is for, or None when the hand is not dealing."""
        if not self._dealing:
            return None
        return self._plan[self._step]

    @property
    def records(self) -> tuple[Record, ...]:
        """The audit trail: antes, cards, reshuffle, actions and awards, in order."""
        return tuple(self._records)

    # -- betting -----------------------------------------------------------------------------------
    def legal_actions(self) -> tuple[LegalAction, ...]:
        """The legal actions of the seat to act, with amounts; empty when nobody is to act."""
        if self._round is None or not self._acting:
            return ()
        return self._round.legal()

    def default_action(self) -> LegalAction:
        """Check, else call, else bring in: what a script without ``"actions"`` plays."""
        return default_action(self.legal_actions())

    @property
    def to_act(self) -> int | None:
        """The seat whose turn it is (None while dealing and after the end)."""
        legal = self.legal_actions()
        return legal[0].seat if legal else None

    @property
    def bring_in_seat(self) -> int | None:
        """(d) The seat with the lowest up-card, once 3rd street is dealt."""
        return self._bring_in

    def first_to_act(self, street: str | int | Street) -> int | None:
        """(d), (f) Who opened ``street`` ("3" is the bring-in); None while not yet known."""
        st = Street.parse(street)
        return self._bring_in if st is Street.THIRD else self._first.get(st)

    @property
    def contributions(self) -> dict[int, int]:
        """Each seat's chips in the pot (antes included), cents."""
        return dict(self._contrib)

    @property
    def pot(self) -> int:
        return sum(self._contrib.values())

    # -- cards -------------------------------------------------------------------------------------
    @property
    def common_card(self) -> Card | None:
        """(h) The common card, once dealt."""
        return self._common

    @property
    def burn_count(self) -> int:
        """Cards in the burn pile now (reshuffled burns leave it)."""
        return len(self._burns)

    def cards(self, seat: int) -> tuple[Card, ...]:
        """Privileged: every card of ``seat`` in the order dealt, the common card last if it plays."""
        own = tuple(card for card, _ in self._cards[seat])
        return (*own, self._common) if self._common is not None and seat in self._common_for else own

    def up_cards(self, seat: int) -> tuple[Card, ...]:
        """The seat's own face-up cards (not the common card)."""
        return tuple(card for card, up in self._cards[seat] if up)

    def down_cards(self, seat: int) -> tuple[Card, ...]:
        """Privileged: the seat's face-down cards."""
        return tuple(card for card, up in self._cards[seat] if not up)

    def best_hand(self, seat: int) -> HandValue | None:
        """Privileged: the best five-card hand of the seat's cards (None under five cards)."""
        cards = self.cards(seat)
        return best_hand(cards) if len(cards) >= 5 else None

    def hand_category(self, seat: int) -> Category | None:
        value = self.best_hand(seat)
        return None if value is None else value.category

    # -- the end ----------------------------------------------------------------------------------
    @property
    def settlement(self) -> Settlement | None:
        return self._settlement

    @property
    def winners(self) -> tuple[int, ...]:
        """(i) The seats paid, once the hand is over."""
        return () if self._settlement is None else self._settlement.winners

    @property
    def pot_shares(self) -> dict[int, int]:
        """(i) Seat -> cents paid, once the hand is over (odd chip included)."""
        return {} if self._settlement is None else dict(self._settlement.shares)

    # -- views -------------------------------------------------------------------------------------
    def public_view(self) -> PublicView:
        """What the players may see: no face-down card before the showdown, no folded down cards ever."""
        shown = self.phase is Phase.SHOWDOWN
        seats = []
        for seat in self.seats:
            show = shown and seat not in self._folded
            seats.append(
                SeatView(
                    seat=seat,
                    folded=seat in self._folded,
                    up_cards=self.up_cards(seat),
                    down_count=len(self.down_cards(seat)),
                    contributed=self._contrib[seat],
                    down_cards=self.down_cards(seat) if show else None,
                    category=self.hand_category(seat) if show else None,
                )
            )
        return PublicView(
            phase=self.phase,
            street=self.street,
            seats=tuple(seats),
            common_card=self._common,
            pot=self.pot,
            to_act=self.to_act,
            bring_in_seat=self._bring_in,
            burn_count=len(self._burns),
            stub_remaining=self.stub_remaining,
            legal_actions=self.legal_actions(),
            winners=self.winners,
            pot_shares=self.pot_shares,
        )

    def snapshot(self) -> tuple[object, ...]:
        """Everything that can change, for comparison: a refused call leaves it equal."""
        settlement: Mapping[str, object] | None = (
            None
            if self._settlement is None
            else {"winners": self._settlement.winners, "shares": dict(self._settlement.shares)}
        )
        return (
            self.phase,
            tuple((s, tuple(c)) for s, c in self._cards.items()),
            tuple(self._burns),
            self._common,
            self._common_for,
            frozenset(c for c in FULL_DECK if self._seen >> c.index & 1),
            frozenset(self._known_in_stub),
            self._unknown_in_stub,
            self._plan,
            self._step,
            tuple(self._folded),
            tuple(sorted(self._contrib.items())),
            None if self._round is None else self._round.state(),
            self._bring_in,
            tuple(sorted(self._first.items())),
            settlement,
            tuple(self._records),
        )
