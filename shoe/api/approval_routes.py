"""The approval routes (shoe/service/people/approvals.py): what waits, and a person's decision.

``GET /v1/approvals`` lists the steps awaiting a second person, then the last decided ones. ``POST
/v1/approvals/approve`` and ``/reject`` take ``{id}`` and decide with the caller's own credential: a
signed-in employee (a session) or an employee's token, holding a role the step needs. The service
refuses the requester, anyone holding the role the step was asked as, a role that may not give it, a
digest other than the request's (``digest``: what the approver's display showed), a request that
lapsed (``409 approval-lapsed``), a request already decided (a replay, or the second of two displays
deciding at once: ``409 already-decided``), and journals each refusal.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from shoe.api.auth import Principal
from shoe.api.errors import json_bytes
from shoe.api.exchange import Reply, Request, Route
from shoe.service import Role

__all__ = ["APPROVAL_ROUTES"]

ANY = (Role.DEALER, Role.TECHNICIAN, Role.TABLE_SYSTEM, Role.OBSERVER)


class Decision(msgspec.Struct, forbid_unknown_fields=True):
    id: Annotated[str, msgspec.Meta(pattern=r"^a-[0-9a-f]{8}$", max_length=10)]
    # What the approver's display showed (the request's ``digest``): refused when the request covers another.
    digest: Annotated[str, msgspec.Meta(pattern=r"^sha256:[0-9a-f]{64}$", max_length=71)] | None = None


def _list(req: Request) -> Reply:
    service: Any = req.service
    return Reply(body=json_bytes({"approvals": service.approvals_view()}))


def _decide(approve: bool) -> Any:
    def handler(req: Request) -> Reply:
        who = req.principal
        assert isinstance(who, Principal) and isinstance(req.params, Decision)
        roles = frozenset(who.employee.roles) if who.employee is not None else frozenset()
        service: Any = req.service
        return Reply(body=json_bytes(service.decide_approval(req.params.id, approve, who.by, roles, req.params.digest)))

    handler.__name__ = "approve" if approve else "reject"
    return handler


APPROVAL_ROUTES: tuple[Route, ...] = (
    Route("GET", "/v1/approvals", _list, ANY, "listApprovals", "Steps awaiting a second person, and the last decided",
          "people"),
    Route("POST", "/v1/approvals/approve", _decide(True), ANY, "approve",
          "Approve a waiting step with your own credential (it runs now)", "people", request=Decision),
    Route("POST", "/v1/approvals/reject", _decide(False), ANY, "reject",
          "Reject a waiting step (a hand-entered card: the round is void)", "people", request=Decision),
)  # fmt: skip
