"""The rules engine's error tree: every refusal names the rule that refuses it.

``RuleViolation`` carries ``.rule`` (a citation such as ``"NY 5324.38(d)(2)"``), ``.code`` (a short
machine-readable code such as ``"out-of-order"``) and ``.message`` (what was wrong and, where it
helps, what would have been legal).  ``str(error)`` is ``"<message> (<rule>)"``.

A refused action changes nothing: the round is exactly as it was before the call.  Irregularities
(a duplicate card, a wrong stub count...) are not refusals: they void the round and come back as a
misdeal record, not as an exception.
"""

from __future__ import annotations

__all__ = [
    "IllegalAction",
    "IllegalWager",
    "InvalidConfiguration",
    "OutOfOrder",
    "RoundPaused",
    "RuleViolation",
    "UnknownProfile",
    "UnknownSeat",
]


class RuleViolation(Exception):
    """An action or configuration refused by a rule.  Subclasses fix the default ``code``."""

    default_code = "rule-violation"

    def __init__(self, message: str, *, rule: str, code: str | None = None) -> None:
        self.message = message
        self.rule = rule
        self.code = code if code is not None else self.default_code
        super().__init__(f"{message} ({rule})" if rule else message)

    def __reduce__(self) -> tuple[object, ...]:
        # Keep the keyword-only arguments through pickling (journal replays, worker processes).
        return (_rebuild, (type(self), self.message, self.rule, self.code))


def _rebuild(cls: type[RuleViolation], message: str, rule: str, code: str) -> RuleViolation:
    return cls(message, rule=rule, code=code)


class OutOfOrder(RuleViolation):
    """An action for the wrong seat, or before its turn (a stack, a decision, a reveal)."""

    default_code = "out-of-order"


class IllegalAction(RuleViolation):
    """An action the round does not take in its current state (``code`` says which case)."""

    default_code = "invalid-in-state"


class RoundPaused(IllegalAction):
    """Any action but resume or misdeal while the round is paused (e.g. the shoe link is lost)."""

    default_code = "paused"


class IllegalWager(RuleViolation):
    """A wager outside the table limits, a side wager not offered, a bet other than 1x/2x/3x."""

    default_code = "illegal-wager"


class UnknownSeat(RuleViolation):
    """A seat outside the table, or a seat with no wager where one is needed."""

    default_code = "unknown-seat"


class InvalidConfiguration(RuleViolation):
    """A table configuration that cannot be used: a paytable below the minimum, a missing amount."""

    default_code = "invalid-configuration"


class UnknownProfile(RuleViolation, LookupError):
    """No rules profile for that game and jurisdiction; the message lists the valid choices."""

    default_code = "unknown-profile"
