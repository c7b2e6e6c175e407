"""Fixed-limit betting rounds: legal actions, their verification and the street's chip accounting.

* (d) 3rd street opens with the forced bet of the lowest up-card: the bring-in, or a completion to the
  small bet (table configuration, rules digest).  The bring-in may not fold or check.
* (e) Then, clockwise from the bring-in: fold, call or raise.  While only the bring-in is in, the raise
  is the *completion* to the small bet; after it, raises are by the small bet.
* (f) From 4th street the first to act must bet or check (no fold); (g) each later player may fold,
  call, raise or, while nobody has bet, check.  A fold with no bet to face is allowed by the text of (g).
* (e), (g) The round is complete when the last player has responded to the most recent bet: every live
  player has acted since the last bet, completion or raise and matched it.  The bring-in is the most
  recent bet until somebody completes, so the bring-in gets no further option when all just call.
* Fixed limit, raise cap: one bet (or completion) and ``max_raises`` raises per street (config.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from shoe.rules.errors import RuleViolation
from shoe.rules.stud.dealing import clockwise_from
from shoe.rules.stud.errors import cite
from shoe.rules.stud.records import ActionKind, BettingAction
from shoe.rules.stud.states import Street

__all__ = ["BettingRound", "LegalAction", "default_action"]

_AGGRESSIVE = (ActionKind.BRING_IN, ActionKind.COMPLETE, ActionKind.BET, ActionKind.RAISE)  # `in` by identity


@dataclass(frozen=True, slots=True)
class LegalAction:
    """An action the seat to act may take: ``amount`` chips go in, making its street total ``to``."""

    seat: int
    kind: ActionKind
    amount: int
    to: int

    def as_triplet(self) -> tuple[int, str, int]:
        """``[seat, action, amount]`` as a script line writes it."""
        return (self.seat, self.kind.value, self.amount)


def default_action(legal: Sequence[LegalAction]) -> LegalAction:
    """The passive choice for scripts without ``"actions"``: check, else call, else the bring-in."""
    for kind in (ActionKind.CHECK, ActionKind.CALL, ActionKind.BRING_IN):
        for action in legal:
            if action.kind is kind:
                return action
    raise ValueError(f"no check, call or bring-in among {[a.kind.value for a in legal]}")


@lru_cache(maxsize=256)
def _forced(seat: int, bring_in: int, complete_to: int) -> tuple[LegalAction, ...]:
    """(d) The forced bet: bring in, or complete to the small bet."""
    return (
        LegalAction(seat, ActionKind.BRING_IN, bring_in, bring_in),
        LegalAction(seat, ActionKind.COMPLETE, complete_to, complete_to),
    )


@lru_cache(maxsize=4096)
def _legal(  # noqa: PLR0917
    seat: int, have: int, current_bet: int, bet_size: int, complete_to: int, third: bool, raise_ok: bool, acted: bool
) -> tuple[LegalAction, ...]:
    """(e), (f), (g) The legal actions of ``seat`` (``have`` in this street) after the forced bet: a pure
    function of its arguments, so the tuples (of frozen actions) are shared by every round that asks
    the same (bounded: a few hundred a table's limits at most)."""
    facing = current_bet - have
    out = [
        LegalAction(seat, ActionKind.CHECK, 0, have)
        if facing == 0
        else LegalAction(seat, ActionKind.CALL, facing, current_bet)
    ]
    if current_bet == 0:
        out.append(LegalAction(seat, ActionKind.BET, bet_size, bet_size))
    elif third and current_bet < complete_to:
        out.append(LegalAction(seat, ActionKind.COMPLETE, complete_to - have, complete_to))
    elif raise_ok:
        to = current_bet + bet_size
        out.append(LegalAction(seat, ActionKind.RAISE, to - have, to))
    if facing > 0 or acted or third:
        out.append(LegalAction(seat, ActionKind.FOLD, 0, have))
    return tuple(out)


class BettingRound:
    """One street's betting.  Mutated only by :meth:`apply`, after :meth:`verify` has passed."""

    def __init__(
        self,
        street: Street,
        first: int,
        live: Iterable[int],
        *,
        bet_size: int,
        max_bets: int,
        bring_in: int | None = None,
        complete_to: int = 0,
    ) -> None:
        self.street = street
        self.bet_size = bet_size
        self.max_bets = max_bets
        self.bring_in = bring_in
        self.complete_to = complete_to
        self.live: tuple[int, ...] = tuple(sorted(live))
        self.first = first
        self.forced = bring_in is not None
        self.pending: tuple[int, ...] = (first,) if self.forced else clockwise_from(first, self.live)
        self.contrib: dict[int, int] = dict.fromkeys(self.live, 0)
        self.current_bet = 0
        self.bets = 0
        self.actions = 0
        self._legal: tuple[LegalAction, ...] | None = None  # legal(), until apply() changes the round

    # -- queries -------------------------------------------------------------------------------
    @property
    def to_act(self) -> int | None:
        """The seat whose turn it is, or None once the round is complete."""
        return self.pending[0] if self.pending else None

    @property
    def closed(self) -> bool:
        """(e), (g) Every live player has responded to the most recent bet (or one player is left)."""
        return not self.pending or len(self.live) <= 1

    def rule(self) -> str:
        """The paragraph governing the next action: (d) forced bet, (e) 3rd street, (f) the opener of
        4th to 7th street (which (h) applies to 5th to 7th), (g) everyone after him."""
        if self.street is Street.THIRD:
            return cite("d" if self.forced else "e")
        return cite("f" if self.actions == 0 else "g")

    def legal(self) -> tuple[LegalAction, ...]:
        """The legal actions of the seat to act, with their fixed-limit amounts.

        Kept until :meth:`apply`, the only method that changes the round (the tuple is immutable).
        """
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def _compute_legal(self) -> tuple[LegalAction, ...]:
        if not self.pending or len(self.live) <= 1:  # nobody to act, or closed
            return ()
        seat = self.pending[0]
        third = self.street is Street.THIRD
        if self.forced:
            assert self.bring_in is not None
            return _forced(seat, self.bring_in, self.complete_to)
        raise_ok = self.bets < self.max_bets
        return _legal(seat, self.contrib[seat], self.current_bet, self.bet_size, self.complete_to, third, raise_ok,
                      self.actions > 0)  # fmt: skip

    # -- the action itself -------------------------------------------------------------------------
    def verify(self, seat: int, kind: ActionKind, amount: int | None = None) -> LegalAction:
        """Return the matching :class:`LegalAction` or raise :class:`RuleViolation` saying why not."""
        pending = self.pending
        if not pending:
            raise RuleViolation(
                f"the {self.street.label} street betting round is complete",
                rule=cite("e" if self.street is Street.THIRD else "g"),
                code="out-of-order",
            )
        if seat != pending[0]:
            raise RuleViolation(
                f"seat {seat} may not act: seat {pending[0]} is to act", rule=self.rule(), code="out-of-turn"
            )
        legal = self.legal()
        for match in legal:
            if match.kind is kind:
                break
        else:
            names = ", ".join(f"{a.kind.value} {a.amount}" for a in legal)
            capped = kind is ActionKind.RAISE and self.bets >= self.max_bets
            if capped:
                why = f"the cap of one bet and {self.max_bets - 1} raises is reached"
            elif kind is ActionKind.RAISE and self.street is Street.THIRD and self.current_bet < self.complete_to:
                why = f"only the bring-in is in: the raise is a completion to {self.complete_to}"
            elif kind is ActionKind.BET and self.current_bet:
                why = f"there is already a bet of {self.current_bet} to match"
            elif kind is ActionKind.CHECK and self.current_bet > self.contrib[seat]:
                why = f"seat {seat} faces {self.current_bet - self.contrib[seat]} and may not check"
            elif kind is ActionKind.FOLD:
                why = (
                    "the player who opens the street must bet or check"
                    if not self.forced
                    else "the lowest up-card must make the forced bet"
                )
            else:
                why = "not available now"
            raise RuleViolation(
                f"seat {seat} may not {kind.value}: {why}; legal: {names}",
                rule=self.rule(),
                code="raise-cap" if capped else "illegal-action",
            )
        if amount is not None and (type(amount) is not int or amount != match.amount):
            raise RuleViolation(
                f"{kind.value} by seat {seat} is {match.amount} (fixed limit), not {amount!r}",
                rule=self.rule(),
                code="wrong-amount",
            )
        return match

    def apply(self, action: LegalAction) -> BettingAction:
        """Apply a verified action and return its record."""
        self._legal = None
        seat, kind = action.seat, action.kind
        self.actions += 1
        if kind is ActionKind.FOLD:
            self.live = tuple(s for s in self.live if s != seat)
            self.pending = tuple(s for s in self.pending if s != seat)
        else:
            self.contrib[seat] += action.amount
            if kind in _AGGRESSIVE:
                self.current_bet = action.to
                self.bets += kind is not ActionKind.BRING_IN
                self.forced = False
                self.pending = clockwise_from(seat, self.live, include_start=False)
            else:
                self.pending = self.pending[1:]
        return BettingAction(seat, kind, self.street, action.amount, self.contrib[seat], self.current_bet)

    def state(self) -> tuple[object, ...]:
        """Everything that changes, for snapshots."""
        return (
            self.street,
            self.live,
            self.forced,
            self.pending,
            tuple(sorted(self.contrib.items())),
            self.current_bet,
            self.bets,
            self.actions,
        )
