"""Approvals as a step of the round (issue 13): a second person, with their own credential, approves.

An employee's command that the procedure puts under a second person waits "awaiting approval"
instead of running; the journal has the request (kind ``approval``, ``requested``, ``by`` the
requester). A person holding one of the roles the step ``needs`` approves or rejects it: never the
requester; a request already decided, or whose round closed, is refused. Every refusal is journaled
(``refused``). The owner thread runs every request and decision, one at a time, so of two displays
approving at once one wins and the other is told the request is decided (``409``).

The gated steps (:data:`GATES`):

- **void** (``floorperson``): casino procedure puts a supervisor over a void; the void runs on approval.
- **payout** (``floorperson``): a Progressive Payout win or a Five Card Hand Bonus of 500 for 1 or a
  meter percentage is validated by a floorperson or above before it is paid (PA 655a.11(i)(4)(i)(C),
  (i)(4)(iii)(B); the rules engine marks it ``requires_floorperson``). Settlement stops before that
  seat; the seats after it wait too (settlement goes seat by seat, PA 655a.11(i)). Approved, the
  settlement goes on; rejected, the seat still waits (ask again, or void the round).
- **tamper** (``floorperson``, ``surveillance``): clearing a tamper fault (by name, or "all" while the
  shoe reports one): someone opened or forced the shoe; a second person looks before it deals again.
- **maintenance-dispense** (``floorperson``): a test dispense from a checked deck, the one the shift's
  next round would be dealt from: it takes cards out of that deck.
- **hand-entered-card** (``technician``, ``floorperson``): a community card the reader could not
  identify may be entered by the dealer from its face, with a technician's confirmation (rules digest,
  "Irregularities": unreadable after re-read: identify or misdeal). The card must be one the round has
  not accounted for; rejected, the round is void (misdeal).

Commands of configuration-file tokens and the open loopback API name no person and are not gated, as
before (docs/people.md, "Approvals").
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

from shoe.rules.mississippi.records import SeatSettlement
from shoe.service import requests as rq
from shoe.service.errors import ErrorKind, ServiceError
from shoe.service.mississippi import MississippiRun
from shoe.service.registry import BY_NAME

if TYPE_CHECKING:
    from shoe.service.owner import Command, Owner

__all__ = ["GATES", "Approvals", "Gate"]

KEPT = 20  # decided requests kept in the view


@dataclass(frozen=True)
class Gate:
    kind: str
    needs: tuple[str, ...]
    rule: str


GATES: Mapping[str, Gate] = {
    "void": Gate("void", ("floorperson",), "casino procedure: a supervisor approves a void (issue 13)"),
    "payout": Gate("payout", ("floorperson",), "PA 655a.11(i)(4)(i)(C), (i)(4)(iii)(B)"),
    "tamper": Gate("tamper", ("floorperson", "surveillance"), "issue 13: a tamper fault is cleared under supervision"),
    "maintenance-dispense": Gate(
        "maintenance-dispense", ("floorperson",), "issue 13: a maintenance dispense from the shift's checked deck"
    ),
    "hand-entered-card": Gate(
        "hand-entered-card",
        ("technician", "floorperson"),
        "rules digest, Irregularities: a card unreadable after re-read",
    ),
}


@dataclass
class Pending:
    id: str
    gate: Gate
    step: str
    params: Any
    role: Any
    requester: Mapping[str, str]
    round_id: str | None  # None: a maintenance step between rounds
    key: tuple[Any, ...]
    seat: int | None
    detail: dict[str, Any]
    state: str = "pending"
    decided_by: Mapping[str, str] | None = None

    def public(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.gate.kind,
            "step": self.step,
            "round_id": self.round_id,
            "seat": self.seat,
            "detail": self.detail,
            "needs": list(self.gate.needs),
            "rule": self.gate.rule,
            "requested_by": dict(self.requester),
            "state": self.state,
            "decided_by": dict(self.decided_by) if self.decided_by else None,
        }


def _refuse(code: str, message: str, kind: ErrorKind, hint: str | None = None) -> ServiceError:
    return ServiceError(code, message, kind=kind, hint=hint)


class Approvals:
    """Owned by the owner thread; ``shown`` is what other threads read (replaced whole, never changed)."""

    def __init__(self) -> None:
        self.requests: dict[str, Pending] = {}
        self.granted: set[tuple[Any, ...]] = set()
        self.unreadable: set[tuple[str, int]] = set()  # (round, community index) the reader failed on
        self.shown: list[dict[str, Any]] = []

    # -- before and after a command ----------------------------------------------------------------

    def intercept(self, owner: Owner, cmd: Command) -> dict[str, Any] | None:
        """The reply of a command that must wait for an approval, or ``None`` to run it."""
        if cmd.by is not None and cmd.action in ("clear-fault", "maintenance-dispense"):
            return self._maintenance(owner, cmd)
        run = owner.desk.run
        if cmd.by is None or run is None or run.closed or cmd.action not in ("void", "reveal", "settle"):
            return None
        try:
            request = rq.convert(cmd.params, BY_NAME[cmd.action].request)
        except rq.RequestError:
            return None  # dispatch answers the bad request
        if cmd.action == "void":
            return self._gate(
                owner,
                cmd,
                GATES["void"],
                (run.round_id, "void"),
                None,
                {"cause": getattr(request, "cause", None) or "other"},
            )
        if cmd.action == "reveal":
            assert isinstance(request, rq.Reveal)
            if request.card is None or (run.round_id, request.index) not in self.unreadable:
                return None
            self._check_unaccounted(owner, run.round_id, request.card)
            key = (run.round_id, "card", request.index, request.card)
            return self._gate(
                owner, cmd, GATES["hand-entered-card"], key, None, {"index": request.index, "card": request.card}
            )
        if isinstance(run, MississippiRun):  # settle: each seat's payout is looked at before it is made
            run.hold = lambda record: self._hold(owner, cmd, record)
        return None

    def _maintenance(self, owner: Owner, cmd: Command) -> dict[str, Any] | None:
        if owner.desk.live_id() is not None:
            return None  # refused as round-live by dispatch
        try:
            request = rq.convert(cmd.params, BY_NAME[cmd.action].request)
        except rq.RequestError:
            return None
        if isinstance(request, rq.ClearFault):
            named = None if request.fault is None else str(request.fault).lower().replace("_", "-")
            active = {str(f.get("code")) for f in (owner.shown.status or {}).get("faults") or ()}
            if named not in ("tamper", "7") and not (named is None and "tamper" in active):
                return None
            return self._gate(owner, cmd, GATES["tamper"], (None, "tamper"), None, {"fault": "tamper"})
        if str(owner.deck.state) != "checked":
            return None
        stacks, size = getattr(request, "stacks", None), getattr(request, "size", None)
        return self._gate(
            owner,
            cmd,
            GATES["maintenance-dispense"],
            (None, "dispense", stacks, size),
            None,
            {"stacks": stacks, "size": size},
        )

    def release(self, owner: Owner) -> None:
        run = owner.desk.run
        if isinstance(run, MississippiRun):
            run.hold = None

    def failed(self, owner: Owner, cmd: Command, error: ServiceError) -> None:
        """Note a reveal the reader could not identify: a card entered for it then needs a confirmation."""
        run = owner.desk.run
        if cmd.action == "reveal" and error.code == "unreadable-card" and run is not None:
            index = cmd.params.get("index") if isinstance(cmd.params, Mapping) else getattr(cmd.params, "index", None)
            if isinstance(index, int):
                self.unreadable.add((run.round_id, index))

    def _hold(self, owner: Owner, cmd: Command, record: SeatSettlement) -> dict[str, Any] | None:
        flagged = [s for s in record.side if s.requires_floorperson]
        run = owner.desk.run
        if not flagged or run is None:
            return None
        key = (run.round_id, "payout", record.seat)
        detail = {
            "seat": record.seat,
            "bets": [
                {"bet": s.bet, "hand": s.hand, "paid": s.paid, "paid_from": s.paid_from, "note": s.note}
                for s in flagged
            ],
        }
        return self._gate(owner, cmd, GATES["payout"], key, record.seat, detail)

    def _check_unaccounted(self, owner: Owner, round_id: str, card: str) -> None:
        journal = owner.sink.journal
        assert journal is not None
        seen = {e.data.get("card") for e in journal.entries(round_id=round_id, kinds=["card"])}
        if card in seen:
            raise _refuse(
                "card-accounted-for",
                f"{card} is already dealt in this round: it cannot be the unread card",
                ErrorKind.CONFLICT,
                "read the card's face again and enter it",
            )

    def _gate(  # noqa: PLR0917 - the step's gate, its key and what the request shows
        self, owner: Owner, cmd: Command, gate: Gate, key: tuple[Any, ...], seat: int | None, detail: dict[str, Any]
    ) -> dict[str, Any] | None:
        if key in self.granted:
            self.granted.discard(key)
            return None
        for pending in self.requests.values():
            if pending.key == key and pending.state == "pending":
                return {"awaiting_approval": pending.public()}
        assert cmd.by is not None
        round_id = key[0]  # None: a maintenance step between rounds
        pending = Pending(
            "a-" + secrets.token_hex(4),
            gate,
            cmd.action,
            cmd.params,
            cmd.role,
            dict(cmd.by),
            round_id,
            key,
            seat,
            detail,
        )
        owner.desk.append(
            "approval",
            {
                "action": "requested",
                "request_id": pending.id,
                "kind": gate.kind,
                "step": cmd.action,
                "needs": list(gate.needs),
                "seat": seat,
                "detail": detail,
                "rule": gate.rule,
            },
            round_id,
        )
        self.requests[pending.id] = pending
        self._publish()
        return {"awaiting_approval": pending.public()}

    # -- deciding ----------------------------------------------------------------------------------

    def decide(self, owner: Owner, cmd: Command) -> None:
        """The owner thread's item for an approval or a rejection (``TableService.decide_approval``)."""
        if not cmd.future.set_running_or_notify_cancel():
            return
        params = cmd.params if isinstance(cmd.params, Mapping) else {}
        try:
            answer = self._decide(
                owner,
                cmd,
                str(params.get("request_id")),
                bool(params.get("approve")),
                frozenset(params.get("staff_roles") or ()),
            )
        except ServiceError as exc:
            cmd.future.set_exception(exc)
            return
        finally:
            owner.sink.by = None
            self._publish()
        cmd.future.set_result(answer)

    def _decide(
        self, owner: Owner, cmd: Command, request_id: str, approve: bool, roles: frozenset[str]
    ) -> dict[str, Any]:
        pending = self.requests.get(request_id)
        if pending is None:
            raise _refuse(
                "unknown-request",
                f"no approval request {request_id!r}",
                ErrorKind.NOT_FOUND,
                "GET /v1/approvals lists them",
            )
        who = cmd.by
        owner.sink.by = who
        base = {"request_id": pending.id, "kind": pending.gate.kind}
        if who is None:
            self._journal(owner, pending, {**base, "action": "refused", "reason": "no-person"})
            raise _refuse(
                "forbidden",
                "an approval is given by a signed-in person with their own credential",
                ErrorKind.FORBIDDEN,
                "sign in (POST /v1/sessions) and approve with that session",
            )
        run = owner.desk.run
        round_gone = run is None or run.round_id != pending.round_id or run.closed
        if pending.state == "pending" and pending.round_id is not None and round_gone:
            pending.state = "lapsed"
            self._journal(owner, pending, {**base, "action": "lapsed", "cause": "the round closed first"})
        if pending.state != "pending":
            self._journal(owner, pending, {**base, "action": "refused", "reason": "already-decided"})
            raise _refuse("already-decided", f"request {pending.id} is {pending.state} already", ErrorKind.CONFLICT)
        if who.get("id") == pending.requester.get("id"):
            self._journal(owner, pending, {**base, "action": "refused", "reason": "own-request"})
            raise _refuse(
                "own-request",
                "a second person approves: not the one who asked",
                ErrorKind.FORBIDDEN,
                f"a {' or '.join(pending.gate.needs)} signs in and approves it",
            )
        if not roles & set(pending.gate.needs):
            self._journal(owner, pending, {**base, "action": "refused", "reason": "may-not-approve"})
            needs = " or ".join(pending.gate.needs)
            raise _refuse("may-not-approve", f"a {pending.gate.kind} is approved by a {needs}", ErrorKind.FORBIDDEN)
        pending.state, pending.decided_by = ("approved" if approve else "rejected"), dict(who)
        self._journal(owner, pending, {**base, "action": pending.state, "requested_by": pending.requester["id"]})
        answer: dict[str, Any] = {"decided": pending.public()}
        if approve:
            self.granted.add(pending.key)
            answer["result"] = self._run(owner, pending.step, pending.params, pending.role, pending.requester)
        elif pending.gate.kind == "hand-entered-card":  # no confirmation: the misdeal (rules digest)
            self.granted.add((pending.round_id, "void"))
            answer["result"] = self._run(owner, "void", {"cause": "unreadable-card"}, pending.role, who)
        return answer

    def _journal(self, owner: Owner, pending: Pending, data: dict[str, Any]) -> None:
        owner.desk.append("approval", data, pending.round_id)

    def _run(self, owner: Owner, action: str, params: Any, role: Any, by: Mapping[str, str]) -> dict[str, Any]:
        from shoe.service.actions import execute  # actions calls this module: imported when first needed
        from shoe.service.owner import Command

        future: Future[dict[str, Any]] = Future()
        execute(
            owner, Command(action, params if isinstance(params, msgspec.Struct) else dict(params), role, future, by)
        )
        return future.result(timeout=0)

    def _publish(self) -> None:
        live = [p.public() for p in self.requests.values() if p.state == "pending"]
        done = [p.public() for p in self.requests.values() if p.state != "pending"][-KEPT:]
        self.shown = live + done
        if len(self.requests) > 4 * KEPT:  # decided requests are in the journal: memory keeps the recent ones
            keep = {p["id"] for p in self.shown}
            self.requests = {k: v for k, v in self.requests.items() if k in keep}
