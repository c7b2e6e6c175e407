"""The rules engine: jurisdiction profiles, paytables and the round machines (pure: no I/O).

``shoe.rules.profiles`` holds the per-jurisdiction data, ``shoe.rules.paytables`` the tables,
``shoe.rules.errors`` the error tree; ``shoe.rules.mississippi`` is the Mississippi stud round
machine.  Subpackages are imported explicitly, never from here, so that reading a profile does not
load a machine.
"""

from shoe.rules.errors import (
    IllegalAction,
    IllegalWager,
    InvalidConfiguration,
    OutOfOrder,
    RoundPaused,
    RuleViolation,
    UnknownProfile,
    UnknownSeat,
)
from shoe.rules.profiles import PROFILES, STUD_PROFILES, MississippiProfile, StudProfile, get_profile

__all__ = [
    "PROFILES",
    "STUD_PROFILES",
    "IllegalAction",
    "IllegalWager",
    "InvalidConfiguration",
    "MississippiProfile",
    "OutOfOrder",
    "RoundPaused",
    "RuleViolation",
    "StudProfile",
    "UnknownProfile",
    "UnknownSeat",
    "get_profile",
]
