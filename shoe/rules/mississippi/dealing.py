"""The deal with an automated shoe: two-card stacks, the stub, the community cards.

NY 5324.38(d)(2): the shoe dispenses two-card stacks; the first goes face down to the wagering player
farthest to the dealer's left, then clockwise, one to each wagering player.  (d)(3): the dealer then
removes the stub and deals the three community cards face down by hand from it.  Rules digest: the
stub is counted every round (52 - 2 x players); community cards are identified when revealed.

A stack is something the shoe did, not a request: :meth:`deal_stack` refuses only what the dealer can
avoid (delivering to the wrong seat); an irregular stack (early, extra, other than two cards, an
unreadable, foreign or duplicate card) voids the round and comes back as a
:class:`~shoe.rules.mississippi.records.MisdealRecord`.
"""

from __future__ import annotations

from collections.abc import Sequence

from shoe.cards import Card
from shoe.rules.errors import RuleViolation
from shoe.rules.mississippi.core import CardInput, RoundCore
from shoe.rules.mississippi.records import CommunityDealtRecord, MisdealRecord, StackRecord, StubRecord
from shoe.rules.mississippi.states import RoundState
from shoe.rules.profiles import CommunitySource, Irregularity

__all__ = ["Dealing"]

_EARLY = frozenset({RoundState.OPEN, RoundState.NO_MORE_BETS, RoundState.PROGRESSIVE_LOCKED})
_AFTER_STACKS = frozenset({RoundState.STUB_COUNTED, RoundState.COMMUNITY_DEALT})


class Dealing:
    """The stacks, the stub and the community cards (NY 5324.38(d))."""

    def __init__(self, core: RoundCore) -> None:
        self._core = core

    @property
    def next_stack_seat(self) -> int | None:
        """The seat the next stack goes to, once wagering is closed; ``None`` when all are dealt."""
        return self._core.book.next_stack_seat() if self._core.book.dealing_seats else None

    def _stack_irregularity(self) -> Irregularity | None:
        if self._core.state in _EARLY and not self._core.flow.allows("deal_stack"):
            return Irregularity.EARLY_STACK
        if self._core.state in _AFTER_STACKS or (
            self._core.state is RoundState.DEALING_STACKS and self.next_stack_seat is None
        ):
            return Irregularity.EXTRA_STACK
        return None

    def _check_cards(self, cards: Sequence[CardInput], size: int, what: str) -> tuple[Card, ...] | MisdealRecord:
        if len(cards) != size:
            return self._core.misdeal(Irregularity.BAD_STACK, f"{what} had {len(cards)} cards, not {size}")
        seen = self._core.book.seen()
        good: list[Card] = []
        for raw in cards:
            card, problem, detail = self._core.identify(raw, seen)
            if problem is not None or card is None:
                return self._core.misdeal(problem or Irregularity.OTHER, f"{what}: {detail}")
            seen.add(card)
            good.append(card)
        return tuple(good)

    # -- deal_stack --------------------------------------------------------------------------------

    def verify_deal_stack(self, seat: int, cards: Sequence[CardInput]) -> None:
        """Refuse a stack delivered to the wrong seat; irregular stacks are accepted (and void the round)."""
        rule = self._core.rules.stacks
        if self._core.state is RoundState.PAUSED:
            self._core.check_step("deal_stack", f"stack for seat {seat}", rule)
        if self._stack_irregularity() is not None:
            return
        self._core.check_step("deal_stack", f"stack for seat {seat}", rule)
        entry = self._core.seat(seat, rule, f"stack for seat {seat}")
        expected = self.next_stack_seat
        if seat != expected:
            done = " (it already has its stack)" if entry.dealt else ""
            raise RuleViolation(
                f"stack for seat {seat} refused{done}: seat {expected} is next", rule=rule, code="out-of-order"
            )

    def deal_stack(self, seat: int, cards: Sequence[CardInput]) -> StackRecord | MisdealRecord:
        """Record the stack the shoe dispensed and the dealer delivered to ``seat``."""
        self.verify_deal_stack(seat, cards)
        irregular = self._stack_irregularity()
        if irregular is not None:
            return self._core.misdeal(irregular, f"a stack was dispensed in state {self._core.state.value}")
        checked = self._check_cards(cards, self._core.profile.stack_size, f"stack for seat {seat}")
        if isinstance(checked, MisdealRecord):
            return checked
        self._core.book.seats[seat].hole = checked
        self._core.book.stack_order.append(seat)
        self._core.book.stacks.append(checked)
        record = StackRecord(seat, len(self._core.book.stacks), checked, self._core.rules.stacks)
        return self._core.commit(record, "deal_stack")

    # -- release_stub ------------------------------------------------------------------------------

    def verify_release_stub(self, count: int) -> None:
        rule = self._core.rules.stub
        self._core.check_step("release_stub", "stub release", rule)
        waiting = self.next_stack_seat
        if waiting is not None:
            raise RuleViolation(
                f"stub release refused: seat {waiting} has no stack yet", rule=rule, code="out-of-order"
            )
        if type(count) is not int or count < 0:
            raise RuleViolation(f"stub count {count!r} is not a card count", rule=rule, code="bad-input")

    def release_stub(self, count: int) -> StubRecord | MisdealRecord:
        """The dealer removed the stub and counted ``count`` cards; a wrong count is a misdeal."""
        self.verify_release_stub(count)
        expected = self._core.expected_stub_count
        if count != expected:
            return self._core.misdeal(Irregularity.STUB_COUNT_WRONG, f"stub count {count}, expected {expected}")
        record = self._core.commit(StubRecord(count, expected, self._core.profile.stub_count.rule), "release_stub")
        self._core.finish_if_done()
        return record

    # -- deal_community ----------------------------------------------------------------------------

    def verify_deal_community(self, cards: Sequence[CardInput] | None = None) -> None:
        rule = self._core.rules.community
        self._core.check_step("deal_community", "community deal", rule)
        waiting = self.next_stack_seat
        if waiting is not None:
            raise RuleViolation(
                f"community deal refused: seat {waiting} has no stack yet", rule=rule, code="out-of-order"
            )
        from_shoe = self._core.profile.community_source is CommunitySource.SHOE
        if from_shoe and cards is None:
            raise RuleViolation("the shoe's community stack must come with its cards", rule=rule, code="bad-input")
        if not from_shoe and cards is not None:
            raise RuleViolation(
                "community cards dealt from the stub are identified at their reveal, not now",
                rule=rule,
                code="bad-input",
            )

    def deal_community(self, cards: Sequence[CardInput] | None = None) -> CommunityDealtRecord | MisdealRecord:
        """Three community cards face down: by hand from the stub (default) or as a shoe stack."""
        self.verify_deal_community(cards)
        known: tuple[Card, ...] | None = None
        if cards is not None:
            checked = self._check_cards(cards, self._core.profile.community_cards, "community stack")
            if isinstance(checked, MisdealRecord):
                return checked
            known = checked
            self._core.book.community_known = checked
        self._core.book.community_dealt = True
        record = CommunityDealtRecord(
            self._core.profile.community_source, self._core.profile.community_cards, known, self._core.rules.community
        )
        self._core.commit(record, "deal_community")
        self._core.finish_if_done()
        return record
