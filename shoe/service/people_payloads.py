"""The ``people`` journal entries (issue 13): employees managed, signed in and out, refused (pure).

Tagged by ``action``. No payload has a field for a PIN, a token, a token's digest or a badge number:
``forbid_unknown_fields`` refuses an entry that tries to carry one, so a change of the people desk
cannot leak a credential into the journal. A token is named by its public id (``t-...``), a session
by its short id. ``by`` (every payload's, :mod:`.payload_base`) names who made the change.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from shoe.service.payload_base import Payload

__all__ = ["PEOPLE_PAYLOADS", "PeopleAction"]


class PeopleAction(StrEnum):
    EMPLOYEE_ADDED = "employee-added"
    EMPLOYEE_ENABLED = "employee-enabled"
    EMPLOYEE_DISABLED = "employee-disabled"
    EMPLOYEE_REMOVED = "employee-removed"
    PIN_RESET = "pin-reset"
    TOKEN_ISSUED = "token-issued"
    TOKEN_REVOKED = "token-revoked"
    SIGNED_IN = "signed-in"
    SIGNED_OUT = "signed-out"
    SIGN_IN_REFUSED = "sign-in-refused"
    LOCKED_OUT = "locked-out"
    TOKEN_REFUSED = "token-refused"


class _Person(Payload, tag_field="action", kw_only=True):
    employee_id: str
    name: str


class EmployeeAdded(_Person, tag=PeopleAction.EMPLOYEE_ADDED.value):
    roles: list[str]


class EmployeeEnabled(_Person, tag=PeopleAction.EMPLOYEE_ENABLED.value):
    pass


class EmployeeDisabled(_Person, tag=PeopleAction.EMPLOYEE_DISABLED.value):
    pass


class EmployeeRemoved(_Person, tag=PeopleAction.EMPLOYEE_REMOVED.value):
    pass


class PinReset(_Person, tag=PeopleAction.PIN_RESET.value):
    unlocked: bool  # the reset lifted a lockout


class TokenIssued(_Person, tag=PeopleAction.TOKEN_ISSUED.value):
    token_id: str
    label: str


class TokenRevoked(Payload, tag_field="action", tag=PeopleAction.TOKEN_REVOKED.value, kw_only=True):
    employee_id: str
    token_id: str


class SignedIn(_Person, tag=PeopleAction.SIGNED_IN.value):
    session_id: str


class SignedOut(_Person, tag=PeopleAction.SIGNED_OUT.value):
    session_id: str
    reason: Literal["sign-out", "idle", "disabled", "removed"]


class SignInRefused(Payload, tag_field="action", tag=PeopleAction.SIGN_IN_REFUSED.value, kw_only=True):
    employee_id: str | None  # None: a badge nobody holds
    name: str | None
    reason: Literal["unknown-badge", "wrong-pin", "locked", "disabled"]
    failures: int | None  # wrong PINs in a row, with this one


class LockedOut(_Person, tag=PeopleAction.LOCKED_OUT.value):
    failures: int


class TokenRefused(_Person, tag=PeopleAction.TOKEN_REFUSED.value):
    credential: str  # the token's or the session's public id
    reason: Literal["revoked", "disabled", "removed"]


PEOPLE_PAYLOADS: tuple[type[Payload], ...] = (
    EmployeeAdded,
    EmployeeEnabled,
    EmployeeDisabled,
    EmployeeRemoved,
    PinReset,
    TokenIssued,
    TokenRevoked,
    SignedIn,
    SignedOut,
    SignInRefused,
    LockedOut,
    TokenRefused,
)
