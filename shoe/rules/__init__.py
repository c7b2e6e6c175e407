"""The rules engine: jurisdiction profiles, paytables and the round machines (pure: no I/O).

``shoe.rules.profiles`` holds the per-jurisdiction data (``shoe.rules.profile_data`` builds one from
TOML/JSON data), ``shoe.rules.paytables`` the tables, ``shoe.rules.errors`` the one refusal type
(``RuleViolation`` with a code and the rule it cites), ``shoe.rules.machine`` the one ``transitions``
wrapper and ``shoe.rules.actions`` the derived ``can_x``; ``shoe.rules.mississippi`` and
``shoe.rules.stud`` are the round machines.  Subpackages are imported explicitly, never from here,
so that reading a profile does not load a machine.
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
