"""The approval decision as a pure function: a request, the digest of its inputs now, an attempt -> a verdict.

No I/O, no clock: the approvals desk (:mod:`shoe.service.people.approvals`) gathers the inputs on the owner
thread, asks :func:`judge`, journals the verdict's entries and runs the step only on ``grant``. The
order of the checks is the order a floor supervisor's procedure has them:

1. a request already decided (approved, rejected, lapsed) is never decided again (``409``);
2. a request whose inputs changed since it was asked (the digest differs, or the step can no longer
   be taken: ``current is None``) lapses, journaled, whoever asks (``409 approval-lapsed``): the
   approver would approve something they did not see;
3. a decision names a person (a configuration token or the open API names nobody: ``403``);
4. an approver who says which digest they saw must have seen this one (``409 digest-differs``);
5. never the requester (``403 own-request``), nor anyone holding the role the request was made as
   (``403 requester-role``: duties are separated, docs/people.md, "Who may approve what");
6. the approver holds one of the roles the step needs (``403 may-not-approve``).

Only then is the request approved (a grant for that one request and digest, used once) or rejected.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Attempt", "Request", "Verdict", "judge", "lapse"]


@dataclass(frozen=True)
class Request:
    """What a waiting request holds that a decision depends on."""

    id: str
    state: str  # pending, approved, rejected, lapsed
    digest: str
    needs: frozenset[str]
    requester_id: str
    requester_role: str  # the service role the step was asked as (dealer, technician)


@dataclass(frozen=True)
class Attempt:
    """One approve or reject, as the approver's credential and display give it."""

    approve: bool
    approver_id: str | None  # None: no person (a configuration token, the open API)
    approver_roles: frozenset[str]
    seen_digest: str | None = None  # what the approver's display showed, when it says


@dataclass(frozen=True)
class Verdict:
    state: str
    """The request's state after the attempt."""
    entries: tuple[Mapping[str, Any], ...]
    """The ``approval`` entries to journal, in order (``action`` and its fields; the desk adds the rest)."""
    grant: bool = False
    """Run the step now, once, under this request's digest."""
    error: tuple[str, str, str] | None = None
    """A refusal: ``(code, kind, message)``, ``kind`` one of ``conflict``, ``forbidden``."""
    hint: str | None = field(default=None, compare=False)


def lapse(request: Request, current: str | None) -> Verdict | None:
    """A pending request whose inputs no longer digest to the request's: its lapse; else ``None``."""
    if request.state != "pending" or current == request.digest:
        return None
    cause = "the step can no longer be taken" if current is None else "inputs-changed"
    entry: dict[str, Any] = {"action": "lapsed", "cause": cause, "digest": current}
    return Verdict("lapsed", (entry,))


def judge(request: Request, current: str | None, attempt: Attempt) -> Verdict:
    """The verdict of ``attempt`` on ``request`` whose inputs digest to ``current`` now (``None``: gone)."""
    if request.state != "pending":
        code = "approval-lapsed" if request.state == "lapsed" else "already-decided"
        reason = "lapsed" if request.state == "lapsed" else "already-decided"
        return _refused(request.state, reason, code, "conflict", f"request {request.id} is {request.state} already",
                        "ask for the step again" if request.state == "lapsed" else None)  # fmt: skip
    lapsed = lapse(request, current)
    if lapsed is not None:
        why = f"request {request.id} lapsed: what it covers changed since it was asked"
        refusal = ("approval-lapsed", "conflict", why)
        return Verdict("lapsed", lapsed.entries, error=refusal, hint="ask for the step again: a new request shows it")
    if attempt.approver_id is None:
        return _refused("pending", "no-person", "forbidden", "forbidden",
                        "an approval is given by a signed-in person with their own credential",
                        "sign in (POST /v1/sessions) and approve with that session")  # fmt: skip
    if attempt.seen_digest is not None and attempt.seen_digest != request.digest:
        return _refused("pending", "digest-differs", "digest-differs", "conflict",
                        f"request {request.id} covers {request.digest}, not the {attempt.seen_digest} you saw",
                        "GET /v1/approvals shows what it covers now")  # fmt: skip
    needs = " or ".join(sorted(request.needs))
    if attempt.approver_id == request.requester_id:
        return _refused("pending", "own-request", "own-request", "forbidden",
                        "a second person approves: not the one who asked", f"a {needs} signs in and approves it")
    if request.requester_role in attempt.approver_roles:
        return _refused("pending", "requester-role", "requester-role", "forbidden",
                        f"the step was asked as {request.requester_role}: someone who holds that role does not "
                        "approve it (separated duties)", f"a {needs} without the {request.requester_role} role "
                        "approves it")  # fmt: skip
    if not attempt.approver_roles & request.needs:
        message = f"this step is approved by a {needs}"
        return _refused("pending", "may-not-approve", "may-not-approve", "forbidden", message)
    state = "approved" if attempt.approve else "rejected"
    entry: dict[str, Any] = {"action": state, "requested_by": request.requester_id}
    if attempt.approve:
        entry["digest"] = request.digest
    return Verdict(state, (entry,), grant=attempt.approve)


def _refused(  # noqa: PLR0917 - a refusal's every part
    state: str, reason: str, code: str, kind: str, message: str, hint: str | None = None
) -> Verdict:
    return Verdict(state, ({"action": "refused", "reason": reason},), error=(code, kind, message), hint=hint)
