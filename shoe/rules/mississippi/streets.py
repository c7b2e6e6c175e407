"""Street decisions, community reveals and the PA information-sharing forfeiture.

NY 5324.38(e)(1)-(6), PA 655a.11(b)-(g): on each street every remaining player, clockwise from the
dealer's left (ascending seats; PA (b), and the same order everywhere per the digest), bets 1x, 2x or
3x the ante or folds; a fold forfeits the ante and the earlier street bets.  Once every remaining
player has acted the next community card is revealed.  PA 655a.11(b),(h): a folded hand with a
Progressive, Three Card or Five Card Hand Bonus wager stays on the table; the fold loses the
Progressive wager but keeps the Envy, Three Card and Five Card eligibility.  PA 655a.11(a)(3):
sharing hand information before the last reveal forfeits all of that player's wagers.
"""

from __future__ import annotations

from shoe.rules.errors import RuleViolation
from shoe.rules.mississippi.core import CardInput, RoundCore
from shoe.rules.mississippi.ledger import HAND_KEEPING_BETS
from shoe.rules.mississippi.records import DecisionRecord, ForfeitRecord, MisdealRecord, RevealRecord
from shoe.rules.mississippi.settlement import WAGER_NAMES
from shoe.rules.mississippi.states import STREETS
from shoe.rules.profiles import CommunitySource, FoldHandling, Irregularity, SeatOrder, SideBet

__all__ = ["Streets"]

STREET_NAMES = ("3rd", "4th", "5th")


class Streets:
    """Street decisions, reveals and PA's information-sharing forfeiture (NY 5324.38(e)(1)-(6))."""

    def __init__(self, core: RoundCore) -> None:
        self._core = core

    @property
    def street(self) -> int | None:
        """0, 1, 2 while deciding on 3rd, 4th, 5th street; ``None`` otherwise."""
        return STREETS.index(self._core.state) if self._core.state in STREETS else None

    @property
    def next_to_decide(self) -> int | None:
        """The seat whose decision is due on this street, or ``None`` (street complete, or no street)."""
        street = self.street
        if street is None:
            return None
        order = self._core.book.dealt_seats()
        order.sort(key=lambda s: s.seat, reverse=self._core.profile.decision_order is SeatOrder.DESCENDING)
        for entry in order:
            if entry.live and len(entry.bets) == street:
                return entry.seat
        return None

    # -- decide ------------------------------------------------------------------------------------

    def verify_decide(self, seat: int, multiple: int) -> None:
        street = self.street or 0
        rule = self._core.rules.decisions[street]
        action = f"decision for seat {seat}"
        self._core.check_step("decide", action, rule)
        entry = self._core.seat(seat, rule, action)
        if not entry.live:
            why = (
                "forfeited its wagers"
                if entry.forfeited
                else f"folded on {STREET_NAMES[(entry.folded_on or 3) - 3]} street"
            )
            raise RuleViolation(f"{action} refused: seat {seat} {why}", rule=rule, code="not-live")
        expected = self.next_to_decide
        if expected is None:
            raise RuleViolation(
                f"{action} refused: {STREET_NAMES[street]} street decisions are complete; "
                f"reveal community card {street + 1} next",
                rule=self._core.rules.reveals[street],
                code="out-of-order",
            )
        if seat != expected:
            raise RuleViolation(f"{action} refused: seat {expected} is next", rule=rule, code="out-of-order")
        if type(multiple) is not int or (multiple != 0 and multiple not in self._core.profile.bet_multiples):
            raise RuleViolation(
                f"{action} refused: a bet is 1, 2 or 3 times the ante (or 0 to fold), not {multiple!r}",
                rule=rule,
                code="illegal-wager",
            )

    def decide(self, seat: int, multiple: int) -> DecisionRecord:
        """Seat ``seat`` bets ``multiple`` x its ante on this street, or folds with ``multiple=0``."""
        self.verify_decide(seat, multiple)
        street = self.street or 0
        entry = self._core.book.seats[seat]
        rule = self._core.rules.decisions[street]
        if multiple:
            amount = entry.ante * multiple
            entry.bets.append(amount)
            record = DecisionRecord(seat, street + 3, multiple, amount, (), False, rule)
        else:
            forfeited = list(zip(WAGER_NAMES, entry.stakes, strict=False))
            if SideBet.PROGRESSIVE in entry.side:
                forfeited.append((SideBet.PROGRESSIVE.value, entry.side[SideBet.PROGRESSIVE]))
            keep = self._core.profile.fold_handling is FoldHandling.KEEP_WITH_SIDE_WAGERS and bool(
                HAND_KEEPING_BETS & entry.side.keys()
            )
            entry.folded_on = street + 3
            entry.hand_kept = keep
            if keep:
                rule = f"{rule}, {self._core.rules.fold_with_side_wagers}"
            record = DecisionRecord(seat, street + 3, 0, 0, tuple(forfeited), keep, rule)
        self._core.commit(record, "decide")
        self._core.finish_if_done()
        return record

    # -- reveal ------------------------------------------------------------------------------------

    def verify_reveal(self, index: int, card: CardInput = None) -> None:
        street = self.street or 0
        rule = self._core.rules.reveals[street]
        self._core.check_step("reveal", f"reveal of {_community(index)}", rule)
        expected = len(self._core.book.revealed)
        if index != expected:
            raise RuleViolation(
                f"reveal of {_community(index)} refused: {_community(expected)} is next",
                rule=rule,
                code="out-of-order",
            )
        waiting = self.next_to_decide
        if waiting is not None:
            raise RuleViolation(
                f"reveal of {_community(index)} refused: seat {waiting} has not decided on "
                f"{STREET_NAMES[street]} street",
                rule=rule,
                code="out-of-order",
            )

    def reveal(self, index: int, card: CardInput = None) -> RevealRecord | MisdealRecord:
        """Turn over community card ``index`` (0, 1, 2: what every message, the API and ``journal show``
        call community card 1, 2, 3; ``RevealRecord.index`` keeps the 0-based value), identified now
        (stub source: it must be a card still in the stub; shoe source: ``card`` may be omitted, and
        must match the dispensed one)."""
        self.verify_reveal(index, card)
        rule = self._core.rules.reveals[self.street or 0]
        if self._core.profile.community_source is CommunitySource.SHOE:
            dispensed = self._core.book.community_known[index]
            if card is not None and card not in (dispensed, dispensed.code):
                shown = getattr(card, "code", card)
                return self._core.misdeal(
                    Irregularity.OTHER, f"revealed {shown!r}, but the shoe dispensed {dispensed.code}"
                )
            identified = dispensed
        else:
            found, problem, detail = self._core.identify(card, self._core.book.seen())
            if problem is not None or found is None:
                return self._core.misdeal(problem or Irregularity.OTHER, f"community card {index + 1}: {detail}")
            identified = found
        self._core.book.revealed.append(identified)
        record = self._core.commit(RevealRecord(index, identified, rule), "reveal")
        self._core.finish_if_done()
        return record

    # -- forfeit_information_sharing ---------------------------------------------------------------

    def verify_forfeit_information_sharing(self, seat: int) -> None:
        rule = self._core.rules.information_sharing or self._core.profile.regulation
        action = f"forfeiture at seat {seat}"
        if not self._core.profile.information_sharing_forfeits:
            raise RuleViolation(
                f"{action} refused: {self._core.profile.jurisdiction} has no information-sharing forfeiture",
                rule=rule,
                code="not-applicable",
            )
        self._core.check_step("forfeit", action, rule)
        entry = self._core.seat(seat, rule, action)
        if not entry.dealt:
            raise RuleViolation(f"{action} refused: seat {seat} has no cards yet", rule=rule, code="not-live")
        if entry.forfeited or not entry.pending:
            raise RuleViolation(f"{action} refused: seat {seat} has nothing left at stake", rule=rule, code="not-live")

    def forfeit_information_sharing(self, seat: int) -> ForfeitRecord:
        """A player shared hand information before the last reveal: all its wagers are forfeited."""
        self.verify_forfeit_information_sharing(seat)
        entry = self._core.book.seats[seat]
        at_stake: list[tuple[str, int]] = []
        if entry.live:
            at_stake += zip(WAGER_NAMES, entry.stakes, strict=False)
        for bet, amount in sorted(entry.side.items(), key=lambda kv: kv[0].value):
            if entry.live or bet is not SideBet.PROGRESSIVE:
                at_stake.append((bet.value, amount))
        entry.forfeited = True
        total = sum(amount for _, amount in at_stake)
        record = self._core.commit(
            ForfeitRecord(seat, tuple(at_stake), total, self._core.rules.information_sharing), "forfeit"
        )
        self._core.finish_if_done()
        return record


def _community(index: object) -> str:
    """The engine's 0-based ``index`` as people read it: community card 1, 2 or 3, turned over on the
    layout's 3rd, 4th or 5th street (NY 5324.38(e)(2),(4),(6)); one convention for every message."""
    if type(index) is not int:
        return f"community card {index!r}"
    street = f" ({STREET_NAMES[index]} street)" if 0 <= index < len(STREET_NAMES) else ""
    return f"community card {index + 1}{street}"
