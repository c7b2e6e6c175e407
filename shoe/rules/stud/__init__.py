"""Seven-card stud for New Jersey casino nights (N.J.A.C. 13:47-20.35), as a pure state machine.

Start here: :class:`StudHand`.  The service feeds it each card the shoe reads (``deal``) and each
player decision (``bring_in``, ``complete``, ``check``, ``bet``, ``call``, ``raise_bet``, ``fold``,
or the generic ``act(seat, "call")``), each with its ``verify_`` and ``can_`` twin; the hand answers
who gets the next card, who acts, what is legal, and at the end who won what.  See
docs/seven-card-stud.md.
"""

from shoe.rules.stud.betting import LegalAction, default_action
from shoe.rules.stud.config import MAX_SEATS, StudTableConfig
from shoe.rules.stud.dealing import DealStep, Target
from shoe.rules.stud.errors import StudRuleViolation
from shoe.rules.stud.hand import StudHand
from shoe.rules.stud.machine import mermaid
from shoe.rules.stud.records import (
    ActionKind,
    AntePosted,
    BettingAction,
    BurnsReshuffled,
    CardDealt,
    PotAwarded,
    Record,
)
from shoe.rules.stud.script import from_script, play
from shoe.rules.stud.states import Phase, Street
from shoe.rules.stud.views import PublicView, SeatView

__all__ = [
    "MAX_SEATS",
    "ActionKind",
    "AntePosted",
    "BettingAction",
    "BurnsReshuffled",
    "CardDealt",
    "DealStep",
    "LegalAction",
    "Phase",
    "PotAwarded",
    "PublicView",
    "Record",
    "SeatView",
    "Street",
    "StudHand",
    "StudRuleViolation",
    "StudTableConfig",
    "Target",
    "default_action",
    "from_script",
    "mermaid",
    "play",
]
