"""The ``approval`` journal entries (issue 13): a step waiting for a second person, and its fate (pure).

Tagged by ``action``: ``requested`` (``by``: who asked), ``approved`` / ``rejected`` (``by``: who
decided), ``refused`` (``by``: who tried to decide and may not: their own request, a role that may
not give it, a request already decided or gone), ``lapsed`` (the round closed first). ``detail`` holds
only what is already shown at that step: a void's cause; a payout's seat, bet, hand name and amount
(the seat is being settled: its cards are turned up by the procedure, their codes stay in the
settlement entry); a hand-entered community card (face up in the dealer's hand as it is revealed).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from shoe.service.payload_base import Payload

__all__ = ["APPROVAL_PAYLOADS", "ApprovalAction"]

Kind = Literal["void", "payout", "hand-entered-card", "tamper", "maintenance-dispense"]


class ApprovalAction(StrEnum):
    REQUESTED = "requested"
    APPROVED = "approved"
    REJECTED = "rejected"
    REFUSED = "refused"
    LAPSED = "lapsed"


class _Approval(Payload, tag_field="action", kw_only=True):
    request_id: str
    kind: Kind


class Requested(_Approval, tag=ApprovalAction.REQUESTED.value):
    step: str  # the service action that waits (void, settle, reveal)
    needs: list[str]  # the employee roles that may approve it
    seat: int | None
    detail: dict[str, Any]
    rule: str


class Approved(_Approval, tag=ApprovalAction.APPROVED.value):
    requested_by: str  # the requester's employee id


class Rejected(_Approval, tag=ApprovalAction.REJECTED.value):
    requested_by: str


class Refused(_Approval, tag=ApprovalAction.REFUSED.value):
    reason: Literal["own-request", "may-not-approve", "already-decided", "no-person"]


class Lapsed(_Approval, tag=ApprovalAction.LAPSED.value):
    cause: str


APPROVAL_PAYLOADS: tuple[type[Payload], ...] = (Requested, Approved, Rejected, Refused, Lapsed)
