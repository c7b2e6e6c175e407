"""Citations for the seven-card stud machine, and the old name of its refusal type.

The stud machine refuses with the rules engine's one refusal type,
:class:`shoe.rules.errors.RuleViolation` (``.message``, ``.rule``, ``.code``).  Every refusal names
the paragraph of N.J.A.C. 13:47-20.35 it enforces (:func:`cite`) and one of the codes below.
``StudRuleViolation`` is a deprecated alias of ``RuleViolation``, kept so that callers importing it
are unchanged.
"""

from __future__ import annotations

from shoe.rules.errors import CODES as ALL_CODES
from shoe.rules.errors import RuleViolation
from shoe.rules.profiles import NJ_SEVEN_CARD_STUD

__all__ = [
    "CODES",
    "SECTION",
    "StudRuleViolation",
    "cite",
]

SECTION = NJ_SEVEN_CARD_STUD.regulation
"""The regulation the whole package implements (``N.J.A.C. 13:47-20.35``, from the NJ profile)."""

CODES: frozenset[str] = frozenset(
    {
        "bad-config",
        "bad-seats",
        "too-many-players",
        "short-stub",
        "out-of-order",
        "out-of-turn",
        "wrong-target",
        "illegal-action",
        "wrong-amount",
        "raise-cap",
        "unknown-card",
        "unknown-action",
        "invalid-transition",
    }
)
"""The codes the stud machine uses (each one is in :data:`shoe.rules.errors.CODES`)."""
assert ALL_CODES.keys() >= CODES


def cite(paragraph: str) -> str:
    """``cite("c")`` -> ``"N.J.A.C. 13:47-20.35(c)"``; ``cite("")`` is the section itself."""
    return f"{SECTION}({paragraph})" if paragraph else SECTION


StudRuleViolation = RuleViolation
"""Deprecated alias: the stud machine raises :class:`shoe.rules.errors.RuleViolation`."""
