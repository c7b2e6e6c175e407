"""Separation of duties over people (pure): who may add whom, and whose credentials and access a person
may change. docs/people.md, "Separation of duties", has the whole matrix; tests/people/test_duties.py
tests every cell of it through the API.

The rules follow the internal controls casinos run under (NIGC MICS 25 CFR 543.20, information
technology: incompatible functions segregated, user access granted by someone independent of its use;
25 CFR 543.21, surveillance independent of the operation it watches):

- **One duty per employee.** ``dealer``, ``floorperson``, ``technician``, ``surveillance`` and
  ``table-system`` (a service account) exclude each other: a dealer who is also a floorperson approves
  their own void, a technician who is also a floorperson approves their own dispense, a surveillance
  officer with an operational role watches themselves. ``observer`` only reads and may go with any.
- **Authority.** A person grants and manages only the duties within their authority, which is their own
  duty and what it supervises: a floorperson the table's staff (dealers, floorpersons), a technician the
  table's equipment staff (technicians, the table-system service accounts), surveillance its own. No
  one grants a role outside their authority, so no one grants a role they do not hold or supervise.
- **Not oneself.** No one changes their own record: another person with authority resets your PIN.
  Roles are never changed in place: a change of duty is a new employee (a new id), so each id keeps
  one duty for its whole history in the journal.
- **The installer** (a configuration-file token, or the open loopback API) is not a person: whoever
  holds the configuration can rewrite it, so it may add and disable anyone (it seats the first
  floorperson). It never sets an approver's credential (a floorperson's or surveillance officer's PIN
  or token): that would let it act under a real approver's name. An approver's credential is set only
  by another approver of that duty.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

__all__ = [
    "APPROVERS",
    "AUTHORITY",
    "DUTIES",
    "Acting",
    "Operation",
    "combination_refusal",
    "manages_people",
    "refusal",
]

DUTIES = ("dealer", "floorperson", "technician", "surveillance", "table-system")
"""The roles that exclude each other: an employee holds at most one (``observer`` goes with any)."""
APPROVERS = ("floorperson", "surveillance")
"""The duties whose credential only another holder of the same duty may set."""
AUTHORITY: dict[str, frozenset[str]] = {
    "floorperson": frozenset({"dealer", "floorperson", "observer"}),
    "technician": frozenset({"technician", "table-system", "observer"}),
    "surveillance": frozenset({"surveillance", "observer"}),
}
"""The roles each duty may grant, and whose holders it may manage."""


class Operation(StrEnum):
    ADD = "add"
    DISABLE = "disable"
    ENABLE = "enable"
    REMOVE = "remove"
    RESET_PIN = "reset-pin"
    ISSUE_TOKEN = "issue-token"
    REVOKE_TOKEN = "revoke-token"


CREDENTIAL_SETTING = frozenset({Operation.RESET_PIN, Operation.ISSUE_TOKEN})
"""The operations that hand someone a secret to act under the target's name."""


@dataclass(frozen=True)
class Acting:
    """Who makes a change: an employee (``employee_id``, their roles), or no person: the installer (a
    configuration technician token, the open loopback API) or another configuration token (manages no one)."""

    employee_id: str | None
    name: str | None
    roles: tuple[str, ...]
    via: str  # "session", "token" (an employee's); "config", "open" (no person)
    installer: bool = False

    @property
    def by(self) -> dict[str, str] | None:
        """The ``by`` of the journal entry the change makes (``None``: the installer)."""
        if self.employee_id is None or self.name is None:
            return None
        return {"id": self.employee_id, "name": self.name}


def authority(actor: Acting) -> frozenset[str]:
    """The roles ``actor`` may grant and manage (every role for the installer)."""
    if actor.installer:
        return frozenset((*DUTIES, "observer"))
    return frozenset().union(*(AUTHORITY.get(r, frozenset()) for r in actor.roles))


def manages_people(actor: Acting) -> bool:
    """Whether ``actor`` may manage (and list) anyone at all."""
    return bool(authority(actor))


def combination_refusal(roles: Iterable[str]) -> str | None:
    """Why an employee may not hold ``roles`` together (``None``: they may)."""
    duties = [r for r in roles if r in DUTIES]
    if len(duties) > 1:
        return f"{' and '.join(duties)} are separate duties: one employee holds one of them (observer may go with any)"
    return None


def refusal(actor: Acting, operation: Operation, target_id: str, target_roles: Iterable[str]) -> str | None:
    """Why ``actor`` may not do ``operation`` to the employee ``target_id`` holding ``target_roles``
    (the roles being granted, for ``add``); ``None`` when they may."""
    target_roles = tuple(target_roles)
    if actor.employee_id is not None and actor.employee_id == target_id:
        return "no one changes their own record: another person with authority does it"
    if actor.installer:
        approver = [r for r in target_roles if r in APPROVERS]
        if operation in CREDENTIAL_SETTING and approver:
            return (
                f"the installer (a configuration token) never sets a {approver[0]}'s credential: "
                f"another {approver[0]} does"
            )
        return None
    allowed = authority(actor)
    outside = [r for r in target_roles if r not in allowed]
    if not allowed:
        return f"the {', '.join(actor.roles)} role manages no one"
    if outside:
        verb = "grant" if operation is Operation.ADD else "manage"
        return f"a {'/'.join(r for r in actor.roles if r in AUTHORITY)} may not {verb} the {', '.join(outside)} role"
    return None
