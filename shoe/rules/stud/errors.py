"""The seven-card stud machine's one error: a refused action, with the rule that refuses it.

Every refusal names the paragraph of N.J.A.C. 13:47-20.35 it enforces (``.rule``) and a short
machine-readable ``.code``.  The message says what was wrong and what would have been legal.

``StudRuleViolation`` is a :class:`shoe.rules.errors.RuleViolation` (same ``.message``, ``.rule``,
``.code``, same ``str()`` form and pickling), so callers can catch either; this module adds the closed
list of codes the stud machine uses.
"""

from __future__ import annotations

from shoe.rules.errors import RuleViolation

__all__ = [
    "CODES",
    "SECTION",
    "StudRuleViolation",
    "cite",
]

SECTION = "N.J.A.C. 13:47-20.35"
"""The regulation the whole package implements."""

CODES: frozenset[str] = frozenset(
    {
        "bad-config",  # a table configuration that cannot be played
        "bad-seats",  # seats outside 1..8, duplicated, or fewer than two
        "too-many-players",  # more than eight players, (b)
        "short-stub",  # the stub cannot reach 7th street, (h)
        "out-of-order",  # an action or card the current phase does not take
        "out-of-turn",  # a betting action by a seat that is not to act
        "wrong-target",  # a card announced for another seat / burn / common than the next one
        "illegal-action",  # an action the seat to act may not take now
        "wrong-amount",  # an amount other than the fixed-limit amount
        "raise-cap",  # the posted raise cap is reached
        "unknown-card",  # a card already dealt or not in the stub
        "unknown-action",  # an action name the machine does not know
        "invalid-transition",  # the state machine refused a trigger (an internal error)
    }
)
"""Every value ``StudRuleViolation.code`` can take."""


def cite(paragraph: str) -> str:
    """``cite("c")`` -> ``"N.J.A.C. 13:47-20.35(c)"``; ``cite("")`` is the section itself."""
    return f"{SECTION}({paragraph})" if paragraph else SECTION


class StudRuleViolation(RuleViolation):
    """An action, card or setup refused by the rules of N.J.A.C. 13:47-20.35.

    ``rule`` is the citation (``"N.J.A.C. 13:47-20.35(c)"``), ``code`` one of :data:`CODES`.
    A refused action changes nothing: the machine is exactly as it was before the call.
    """

    default_code = "out-of-order"

    def __init__(self, message: str, *, rule: str, code: str | None = None) -> None:
        if code is not None and code not in CODES:
            raise ValueError(f"unknown StudRuleViolation code {code!r}")
        super().__init__(message, rule=rule, code=code)
