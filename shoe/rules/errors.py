"""The rules engine's one refusal: :class:`RuleViolation`, with a code and the rule it cites.

Both round machines (Mississippi stud and seven-card stud) refuse with this one type.
``RuleViolation`` carries ``.rule`` (a citation such as ``"NY 5324.38(d)(2)"``), ``.code`` (one of
:data:`CODES`, such as ``"out-of-order"``; the service maps codes to HTTP statuses) and ``.message``
(what was wrong and, where it helps, what would have been legal).  ``str(error)`` is
``"<message> (<rule>)"``.

A refused action changes nothing: the round is exactly as it was before the call.  Irregularities
(a duplicate card, a wrong stub count...) are not refusals: they void the round and come back as a
misdeal record, not as an exception.

The old per-code class names (``OutOfOrder``, ``IllegalAction``, ``RoundPaused``, ``IllegalWager``,
``UnknownSeat``, ``InvalidConfiguration``, and ``shoe.rules.stud.StudRuleViolation``) are deprecated
aliases of :class:`RuleViolation`, kept so that callers written against them still import and catch;
tell refusals apart by ``.code``.  :class:`UnknownProfile` stays a subclass because it is also a
:class:`LookupError` (a profile that does not exist is a lookup, not a round refusal).
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = [
    "CODES",
    "IllegalAction",
    "IllegalWager",
    "InvalidConfiguration",
    "OutOfOrder",
    "RoundPaused",
    "RuleViolation",
    "UnknownProfile",
    "UnknownSeat",
]

CODES: Mapping[str, str] = {
    # -- the order of play
    "out-of-order": "an action, card or stack before or after its turn, or for the wrong seat",
    "out-of-turn": "a stud betting action by a seat that is not to act",
    "wrong-target": "a stud card announced for another place than the next one",
    "invalid-in-state": "an action the round does not take in its current state",
    "invalid-transition": "the stud phase machine refused a trigger (an internal error)",
    "paused": "any action but resume or misdeal while the round is paused",
    "not-applicable": "an action this jurisdiction or table does not have",
    "not-live": "an action for a seat with nothing left at stake",
    "no-wagers": "no more bets with no ante placed",
    "system-input-required": "settlement waits for the table game system's inputs",
    "chip-count-mismatch": "the progressive chip count differs from the wagers accepted",
    # -- wagers and betting
    "illegal-wager": "a wager outside the limits, a side wager not offered, a bet other than 1x/2x/3x",
    "illegal-action": "a stud action the seat to act may not take now",
    "wrong-amount": "a stud amount other than the fixed-limit amount",
    "raise-cap": "the posted stud raise cap is reached",
    "unknown-action": "an action name the machine does not know",
    # -- inputs, seats and cards
    "unknown-seat": "a seat outside the table, or a seat with no wager where one is needed",
    "bad-input": "a value of the wrong type or shape",
    "unknown-card": "a card already dealt or not in the stub",
    "bad-seats": "stud seats outside 1..8, duplicated, or fewer than two",
    "too-many-players": "more than eight stud players",
    "short-stub": "the stud stub cannot reach 7th street",
    # -- configuration
    "invalid-configuration": "a table configuration that cannot be used",
    "configuration-required": "a table configuration value the profile needs is missing",
    "paytable-fixed": "a paytable other than the jurisdiction's fixed one",
    "paytable-below-minimum": "a paytable below the jurisdiction's minimum",
    "bad-config": "a stud table configuration that cannot be played",
    "unknown-profile": "no rules profile for that game and jurisdiction",
    "replay-mismatch": "a journal record the rebuilt round does not reproduce",
    "rule-violation": "a refusal with no more specific code",
}
"""Every code a :class:`RuleViolation` can carry, and what it means (a closed list)."""


class RuleViolation(Exception):
    """An action or configuration refused by a rule: ``.message``, ``.rule`` and ``.code``.

    ``code`` is one of :data:`CODES`; a subclass outside the rules engine (the play-script errors)
    keeps its own codes.
    """

    default_code = "rule-violation"

    def __init__(self, message: str, *, rule: str, code: str | None = None) -> None:
        code = code if code is not None else self.default_code
        if type(self).__module__ == __name__ and code not in CODES:
            raise ValueError(f"unknown RuleViolation code {code!r}; add it to shoe.rules.errors.CODES")
        self.message = message
        self.rule = rule
        self.code = code
        super().__init__(f"{message} ({rule})" if rule else message)

    def __reduce__(self) -> tuple[object, ...]:
        # Keep the keyword-only arguments through pickling (journal replays, worker processes).
        return (_rebuild, (type(self), self.message, self.rule, self.code))


def _rebuild(cls: type[RuleViolation], message: str, rule: str, code: str) -> RuleViolation:
    return cls(message, rule=rule, code=code)


class UnknownProfile(RuleViolation, LookupError):
    """No rules profile for that game and jurisdiction; the message lists the valid choices."""

    default_code = "unknown-profile"


# Deprecated aliases: the one refusal type under the names callers used before (tell them apart by
# ``.code``).  New code raises ``RuleViolation(..., code=...)``.
OutOfOrder = RuleViolation
IllegalAction = RuleViolation
RoundPaused = RuleViolation
IllegalWager = RuleViolation
UnknownSeat = RuleViolation
InvalidConfiguration = RuleViolation
