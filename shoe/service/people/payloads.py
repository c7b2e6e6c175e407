"""The ``people`` journal entries: employees managed, signed in and out, refused (pure).

Tagged by ``action``. No payload has a field for a PIN, a token, a token's digest or a badge number:
``forbid_unknown_fields`` refuses an entry that tries to carry one, so a change of the people desk
cannot leak a credential into the journal. A token is named by its public id (``t-...``), a session
by its short id. ``by`` (every payload's, :mod:`.payload_base`) names who made the change.
Each field declares who may see it, on itself (``Annotated[T, <rule>]``, :mod:`shoe.service.journal.show`):
ids, names, roles and reasons show to every role; a token's label is free text, card codes scrubbed.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from shoe.service.journal.payload_base import Payload
from shoe.service.journal.show import ALWAYS, TEXT

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
    CHANGE_REFUSED = "change-refused"
    SIGN_IN_FAILURES = "sign-in-failures"


Via = Literal["session", "token", "config", "open"]
"""The credential a change came through: an employee's session or API token, or the installer's (a
configuration-file token, the open loopback API). Absent on entries written before it was recorded."""


class _Person(Payload, tag_field="action", kw_only=True):
    employee_id: Annotated[str, ALWAYS]
    name: Annotated[str, ALWAYS]


class _Change(_Person, kw_only=True):
    via: Annotated[Via | None, ALWAYS] = None  # who made it is ``by`` (absent: the installer)


class EmployeeAdded(_Change, tag=PeopleAction.EMPLOYEE_ADDED.value):
    roles: Annotated[list[str], ALWAYS]


class EmployeeEnabled(_Change, tag=PeopleAction.EMPLOYEE_ENABLED.value):
    pass


class EmployeeDisabled(_Change, tag=PeopleAction.EMPLOYEE_DISABLED.value):
    pass


class EmployeeRemoved(_Change, tag=PeopleAction.EMPLOYEE_REMOVED.value):
    pass


class PinReset(_Change, tag=PeopleAction.PIN_RESET.value):
    unlocked: Annotated[bool, ALWAYS]  # the reset lifted a lockout


class TokenIssued(_Change, tag=PeopleAction.TOKEN_ISSUED.value):
    token_id: Annotated[str, ALWAYS]
    label: Annotated[str, TEXT]


class TokenRevoked(Payload, tag_field="action", tag=PeopleAction.TOKEN_REVOKED.value, kw_only=True):
    employee_id: Annotated[str, ALWAYS]
    token_id: Annotated[str, ALWAYS]
    via: Annotated[Via | None, ALWAYS] = None


class ChangeRefused(Payload, tag_field="action", tag=PeopleAction.CHANGE_REFUSED.value, kw_only=True):
    """A change to a person refused by the separation of duties (shoe/people/duties.py); ``by`` tried it."""

    operation: Annotated[
        Literal["add", "disable", "enable", "remove", "reset-pin", "issue-token", "revoke-token"], ALWAYS
    ]
    # the target as asked for (a token id, for revoke-token by someone who manages no one)
    employee_id: Annotated[str, ALWAYS]
    roles: Annotated[list[str], ALWAYS]  # the target's roles (for ``add``: the roles asked for)
    reason: Annotated[Literal["no-authority", "separation-of-duties", "incompatible-roles"], ALWAYS]
    via: Annotated[Via, ALWAYS]


class SignInFailures(Payload, tag_field="action", tag=PeopleAction.SIGN_IN_FAILURES.value, kw_only=True):
    """Failed sign-ins of one badge (an employee, or every badge nobody holds) from one client address,
    counted over a window: the first is journaled at once (``part: first``), the rest as one entry when
    the window closes (``part: rest``). Never the badge number or the PIN."""

    employee_id: Annotated[str | None, ALWAYS]  # None: badges nobody holds
    name: Annotated[str | None, ALWAYS]
    # the client address (an IPv6 one as its /64), or "*" for addresses past the tracked bound
    client: Annotated[str, ALWAYS]
    part: Annotated[Literal["first", "rest"], ALWAYS]
    count: Annotated[int, ALWAYS]
    # unknown-badge, wrong-pin, backed-off, disabled, locked: how many of each
    reasons: Annotated[dict[str, int], ALWAYS]
    window_s: Annotated[float, ALWAYS]


class SignedIn(_Person, tag=PeopleAction.SIGNED_IN.value):
    session_id: Annotated[str, ALWAYS]


class SignedOut(_Person, tag=PeopleAction.SIGNED_OUT.value):
    session_id: Annotated[str, ALWAYS]
    reason: Annotated[Literal["sign-out", "idle", "disabled", "removed"], ALWAYS]


# Written before back-offs and summaries replaced the lockout and the entry per refused sign-in; still
# read, so that older journals verify and show.
class SignInRefused(Payload, tag_field="action", tag=PeopleAction.SIGN_IN_REFUSED.value, kw_only=True):
    employee_id: Annotated[str | None, ALWAYS]  # None: a badge nobody holds
    name: Annotated[str | None, ALWAYS]
    reason: Annotated[Literal["unknown-badge", "wrong-pin", "locked", "disabled"], ALWAYS]
    failures: Annotated[int | None, ALWAYS]  # wrong PINs in a row, with this one


class LockedOut(_Person, tag=PeopleAction.LOCKED_OUT.value):
    failures: Annotated[int, ALWAYS]


class TokenRefused(_Person, tag=PeopleAction.TOKEN_REFUSED.value):
    credential: Annotated[str, ALWAYS]  # the token's or the session's public id
    reason: Annotated[Literal["revoked", "disabled", "removed"], ALWAYS]


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
    ChangeRefused,
    SignInFailures,
)
