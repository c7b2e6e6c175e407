"""The betting-action triplets of ``StudHand``: ``verify_<action>``, ``can_<action>``, ``<action>``.

Every action exists three ways (the pokerkit pattern): ``verify_x`` raises
:class:`~shoe.rules.errors.RuleViolation` with the reason and the rule, ``can_x`` answers
True/False, and ``x`` does it and returns a frozen :class:`~shoe.rules.stud.records.BettingAction`.
``amount``, when given, is checked against the fixed-limit amount (the chips the seat puts in with
this action); leave it out to let the machine fill it in.  A refused action changes nothing.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from shoe.rules.actions import can
from shoe.rules.stud.betting import LegalAction
from shoe.rules.stud.records import ActionKind, BettingAction

__all__ = ["BettingTriplets"]

_K = ActionKind


class BettingTriplets(ABC):
    """Named triplets over the generic :meth:`verify_act` / :meth:`can_act` / :meth:`act`."""

    @abstractmethod
    def verify_act(self, seat: int, action: ActionKind | str, amount: int | None = None) -> LegalAction:
        """Raise if ``seat`` may not take ``action`` (with ``amount``) now; else the legal action."""

    @abstractmethod
    def act(self, seat: int, action: ActionKind | str, amount: int | None = None) -> BettingAction:
        """Take ``action`` for ``seat`` and return its record."""

    can_act = can(verify_act)

    # (d) the forced bet -------------------------------------------------------------------------
    def verify_bring_in(self, seat: int, amount: int | None = None) -> LegalAction:
        """(d) The lowest up-card posts the bring-in."""
        return self.verify_act(seat, _K.BRING_IN, amount)

    can_bring_in = can(verify_bring_in)

    def bring_in(self, seat: int, amount: int | None = None) -> BettingAction:
        return self.act(seat, _K.BRING_IN, amount)

    # (d), (e) completion to the small bet ---------------------------------------------------------
    def verify_complete(self, seat: int, amount: int | None = None) -> LegalAction:
        """(d), (e) Complete the bring-in to the small bet (the bring-in himself, or a later player)."""
        return self.verify_act(seat, _K.COMPLETE, amount)

    can_complete = can(verify_complete)

    def complete(self, seat: int, amount: int | None = None) -> BettingAction:
        return self.act(seat, _K.COMPLETE, amount)

    # (f), (g) check ----------------------------------------------------------------------------
    def verify_check(self, seat: int, amount: int | None = None) -> LegalAction:
        """(f), (g) Check while nobody has bet on this street."""
        return self.verify_act(seat, _K.CHECK, amount)

    can_check = can(verify_check)

    def check(self, seat: int, amount: int | None = None) -> BettingAction:
        return self.act(seat, _K.CHECK, amount)

    # (f), (g) bet ------------------------------------------------------------------------------
    def verify_bet(self, seat: int, amount: int | None = None) -> LegalAction:
        """(f), (g) Open the betting on 4th to 7th street (small bet on 4th, big bet after)."""
        return self.verify_act(seat, _K.BET, amount)

    can_bet = can(verify_bet)

    def bet(self, seat: int, amount: int | None = None) -> BettingAction:
        return self.act(seat, _K.BET, amount)

    # (e), (g) call -----------------------------------------------------------------------------
    def verify_call(self, seat: int, amount: int | None = None) -> LegalAction:
        """(e), (g) Match the most recent bet (or the bring-in)."""
        return self.verify_act(seat, _K.CALL, amount)

    can_call = can(verify_call)

    def call(self, seat: int, amount: int | None = None) -> BettingAction:
        return self.act(seat, _K.CALL, amount)

    # (e), (g) raise ----------------------------------------------------------------------------
    def verify_raise_bet(self, seat: int, amount: int | None = None) -> LegalAction:
        """(e), (g) Raise by one fixed bet, up to the posted cap.  (``raise`` is a Python keyword.)"""
        return self.verify_act(seat, _K.RAISE, amount)

    can_raise_bet = can(verify_raise_bet)

    def raise_bet(self, seat: int, amount: int | None = None) -> BettingAction:
        return self.act(seat, _K.RAISE, amount)

    # (e), (g) fold -----------------------------------------------------------------------------
    def verify_fold(self, seat: int, amount: int | None = None) -> LegalAction:
        """(e), (g) Fold: not for the forced bet (d), nor for the opener of 4th to 7th street (f)."""
        return self.verify_act(seat, _K.FOLD, amount)

    can_fold = can(verify_fold)

    def fold(self, seat: int, amount: int | None = None) -> BettingAction:
        return self.act(seat, _K.FOLD, amount)
