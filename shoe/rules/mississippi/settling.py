"""Settlement seat by seat, and the table game system's inputs (meters, Magic Card, Lucky seat).

NY 5324.38(e)(7), PA 655a.11(i): starting with the player farthest to the dealer's right and going
counterclockwise (descending seats), one player at a time: base wagers first (NY (e)(7)(i)-(iii), PA
(i)(1)-(3)), then, in PA, the Progressive Payout wager, Envy Bonuses, the Three Card Bonus and the
Five Card Hand Bonus (PA (i)(4); rules digest).
"""

from __future__ import annotations

from collections.abc import Mapping

from shoe.cards import Card, CardError
from shoe.hands import HandValue, evaluate5
from shoe.rules.errors import RuleViolation
from shoe.rules.mississippi.core import RoundCore
from shoe.rules.mississippi.ledger import SeatLedger
from shoe.rules.mississippi.records import Outcome, SeatSettlement, SideResult, TableSystemRecord
from shoe.rules.mississippi.settlement import settle_base, unplayed_base
from shoe.rules.mississippi.side_wagers import settle_envy, settle_five_card, settle_progressive, settle_three_card
from shoe.rules.mississippi.states import TERMINAL
from shoe.rules.profiles import SeatOrder, SideBet

__all__ = ["Settling"]


class Settling:
    """Settlement seat by seat, and the table game system's inputs (NY 5324.38(e)(7), PA 655a.11(i))."""

    def __init__(self, core: RoundCore) -> None:
        self._core = core

    @property
    def next_to_settle(self) -> int | None:
        """The next seat to settle (descending seats), once every community card is revealed."""
        pending = [s.seat for s in self._core.book.pending_seats()]
        if not pending or len(self._core.book.revealed) < self._core.profile.community_cards:
            return None
        return max(pending) if self._core.profile.settlement_order is SeatOrder.DESCENDING else min(pending)

    def _hand(self, entry: SeatLedger) -> HandValue:
        return evaluate5((*entry.hole, *self._core.book.revealed))

    def _holders(self) -> dict[int, HandValue]:
        """Hands on the table at settlement (live, or folded and kept): the Envy candidates."""
        return {
            s.seat: self._hand(s)
            for s in self._core.book.dealt_seats()
            if not s.forfeited and (s.folded_on is None or s.hand_kept)
        }

    # -- settle_next -------------------------------------------------------------------------------

    def verify_settle_next(self) -> None:
        rule = self._core.rules.settlement
        self._core.check_step("settle", "settlement", rule)
        five = any(SideBet.FIVE_CARD_HAND_BONUS in s.side for s in self._core.book.pending_seats())
        if five and (self._core.book.magic_card is None or self._core.book.lucky_seat is None):
            raise RuleViolation(
                "settlement refused: the Five Card Hand Bonus needs the system's Magic Card and Lucky seat "
                "(record_table_system)",
                rule=self._core.rules.five_card_hand_bonus,
                code="system-input-required",
            )

    def settle_next(self) -> SeatSettlement:
        """Settle the next seat (descending): base wagers, then Progressive, Envy, Three Card, Five Card."""
        record = self.preview_next()
        self._core.book.seats[record.seat].settlement = record
        self._core.commit(record, "settle")
        self._core.finish_if_done()
        return record

    def preview_next(self) -> SeatSettlement:
        """The settlement ``settle_next`` would make now, changing nothing: a payout a floorperson must
        validate first (PA 655a.11(i)(4)(i)(C), (iii)(B): ``SideResult.requires_floorperson``) is seen
        before it is settled."""
        self.verify_settle_next()
        seat = self.next_to_settle
        assert seat is not None  # the machine is in SETTLEMENT only while a seat is pending
        entry = self._core.book.seats[seat]
        community = tuple(self._core.book.revealed)
        hand = self._hand(entry)
        if entry.folded_on is not None:
            base = unplayed_base(entry.stakes, Outcome.FOLD)
        else:
            base = settle_base(hand, entry.stakes, self._core.table.paytable, self._core.table.cap)
        record = SeatSettlement(
            seat=seat,
            cards=entry.hole,
            community=community,
            hand=hand.category.value,
            line=base.line,
            outcome=base.outcome,
            wagers=base.wagers,
            computed=base.computed,
            paid=base.paid,
            cap=self._core.table.cap,
            capped=base.capped,
            net=base.net,
            side=self._side_results(entry, hand),
            rule=self._core.rules.settlement,
        )
        return record

    def _side_results(self, entry: SeatLedger, hand: HandValue) -> tuple[SideResult, ...]:
        side = self._core.table.side
        if side is None or not entry.side:
            return ()
        meters = self._core.book.meters
        lines: list[SideResult] = []
        progressive = entry.side.get(SideBet.PROGRESSIVE)
        if progressive is not None:
            lines.append(
                settle_progressive(
                    progressive,
                    hand,
                    self._core.table.progressive_paytable,
                    meters,
                    folded=entry.folded_on is not None,
                    rules=self._core.rules,
                )
            )
            if SideBet.ENVY in side.offered and side.envy is not None:
                lines.append(settle_envy(entry.seat, self._holders(), side.envy, self._core.rules))
        three = entry.side.get(SideBet.THREE_CARD_BONUS)
        if three is not None:
            lines.append(settle_three_card(three, tuple(self._core.book.revealed), side.three_card, self._core.rules))
        five = entry.side.get(SideBet.FIVE_CARD_HAND_BONUS)
        if five is not None and side.five_card is not None:
            assert self._core.book.magic_card is not None and self._core.book.lucky_seat is not None
            lines += settle_five_card(
                entry.seat,
                five,
                hand,
                (*entry.hole, *self._core.book.revealed),
                side.five_card,
                magic_card=self._core.book.magic_card,
                lucky_seat=self._core.book.lucky_seat,
                meters=meters,
                rules=self._core.rules,
            )
        return tuple(lines)

    # -- record_table_system -----------------------------------------------------------------------

    def verify_record_table_system(
        self,
        meters: Mapping[str, int] | None = None,
        magic_card: Card | str | None = None,
        lucky_seat: int | None = None,
    ) -> None:
        rule = self._core.rules.progressive or self._core.profile.regulation
        if self._core.state in TERMINAL:
            raise RuleViolation(
                f"table system input refused: the round is {self._core.state.value}", rule=rule, code="invalid-in-state"
            )
        if not self._core.table.offered:
            raise RuleViolation(
                "table system input refused: no side wager is offered at this table", rule=rule, code="not-applicable"
            )
        settled = any(s.settlement is not None for s in self._core.book.seats.values())
        if settled and (magic_card is not None or lucky_seat is not None):
            raise RuleViolation(
                "the Magic Card and Lucky seat are fixed once settlement has begun", rule=rule, code="invalid-in-state"
            )
        if lucky_seat is not None and (
            type(lucky_seat) is not int or not 1 <= lucky_seat <= self._core.profile.max_seats
        ):
            raise RuleViolation(
                f"lucky seat {lucky_seat!r} is not a seat", rule=self._core.rules.seats, code="unknown-seat"
            )
        if isinstance(magic_card, str):
            try:
                Card.parse(magic_card)
            except CardError as exc:
                raise RuleViolation(f"magic card: {exc}", rule=rule, code="bad-input") from None
        for name, value in (meters or {}).items():
            if type(value) is not int or value < 0:
                raise RuleViolation(f"meter {name!r} reading {value!r} is not whole cents", rule=rule, code="bad-input")

    def record_table_system(
        self,
        meters: Mapping[str, int] | None = None,
        magic_card: Card | str | None = None,
        lucky_seat: int | None = None,
    ) -> TableSystemRecord:
        """Inputs from the progressive table game system: meter readings (cents), the Magic Card and the
        Lucky seat it drew.  Meters may be updated until the seat is settled."""
        self.verify_record_table_system(meters, magic_card, lucky_seat)
        book = self._core.book
        book.meters.update(meters or {})
        if magic_card is not None:
            book.magic_card = Card.parse(magic_card) if isinstance(magic_card, str) else magic_card
        if lucky_seat is not None:
            book.lucky_seat = lucky_seat
        rule = self._core.rules.five_card_hand_bonus or self._core.rules.progressive
        record = TableSystemRecord(tuple(sorted(book.meters.items())), book.magic_card, book.lucky_seat, rule)
        return self._core.commit(record)
