"""The ``approval`` journal entries: a step waiting for a second person, and its fate (pure).

Tagged by ``action``: ``requested`` (``by``: who asked), ``approved`` / ``rejected`` (``by``: who
decided), ``refused`` (``by``: who tried to decide and may not: their own request, a role that may
not give it, a request already decided or gone), ``lapsed`` (the round closed first). ``detail`` holds
only what is already shown at that step: a void's cause; a payout's seat, bet, hand name and amount
(the seat is being settled: its cards are turned up by the procedure, their codes stay in the
settlement entry); a hand-entered community card (face up in the dealer's hand as it is revealed).

A request shows what the approval covers: ``params`` (the step's request), ``inputs`` (every input the
step depends on: the round's id, state and record count, a payout's bets and meter readings, the deck a
dispense takes from) and their ``digest`` (``shoe.journal.approvals.approval_digest``); ``approved``
names the digest it approved, ``lapsed`` the digest of the inputs when they changed (``None``: the step
can no longer be taken). ``round`` names the request's round on every entry: an entry after that
round's closing is journaled outside any round (round_id ``null``). Requests of an older release have
no digest (the fields default).

Each field declares who may see it, on itself (``Annotated[T, <rule>]``, :mod:`shoe.service.journal.show`):
every field shows to every role, since ``detail`` holds only what its step already shows.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

import msgspec

from shoe.service.journal.payload_base import Payload
from shoe.service.journal.show import ALWAYS

__all__ = ["APPROVAL_PAYLOADS", "ApprovalAction"]

Kind = Literal["void", "payout", "hand-entered-card", "tamper", "maintenance-dispense"]


class ApprovalAction(StrEnum):
    REQUESTED = "requested"
    APPROVED = "approved"
    REJECTED = "rejected"
    REFUSED = "refused"
    LAPSED = "lapsed"


class _Approval(Payload, tag_field="action", kw_only=True):
    request_id: Annotated[str, ALWAYS]
    kind: Annotated[Kind, ALWAYS]
    round: Annotated[str | None, ALWAYS] = None  # the request's round (None: a maintenance step between rounds)


class Requested(_Approval, tag=ApprovalAction.REQUESTED.value):
    step: Annotated[str, ALWAYS]  # the service action that waits (void, settle, reveal)
    needs: Annotated[list[str], ALWAYS]  # the employee roles that may approve it
    seat: Annotated[int | None, ALWAYS]
    detail: Annotated[dict[str, Any], ALWAYS]
    rule: Annotated[str, ALWAYS]
    params: Annotated[dict[str, Any], ALWAYS] = msgspec.field(default_factory=dict)  # the step's request
    # every input the step depends on, as shown
    inputs: Annotated[dict[str, Any], ALWAYS] = msgspec.field(default_factory=dict)
    digest: Annotated[str | None, ALWAYS] = None  # approval_digest(kind, step, params, inputs)


class Approved(_Approval, tag=ApprovalAction.APPROVED.value):
    requested_by: Annotated[str, ALWAYS]  # the requester's employee id
    digest: Annotated[str | None, ALWAYS] = None  # the request's digest: what was approved


class Rejected(_Approval, tag=ApprovalAction.REJECTED.value):
    requested_by: Annotated[str, ALWAYS]


class Refused(_Approval, tag=ApprovalAction.REFUSED.value):
    reason: Annotated[
        Literal[
            "own-request", "requester-role", "may-not-approve", "already-decided", "lapsed", "digest-differs",
            "no-person",
        ],
        ALWAYS,
    ]


class Lapsed(_Approval, tag=ApprovalAction.LAPSED.value):
    cause: Annotated[str, ALWAYS]
    # the inputs' digest when the request lapsed (None: the step can no longer be taken)
    digest: Annotated[str | None, ALWAYS] = None


APPROVAL_PAYLOADS: tuple[type[Payload], ...] = (Requested, Approved, Rejected, Refused, Lapsed)
