"""Approvals as a step of the round: a second person, with their own credential, approves.

An employee's command that the procedure puts under a second person waits "awaiting approval"
instead of running; the journal has the request (kind ``approval``, ``requested``, ``by`` the
requester). A person holding one of the roles the step ``needs`` approves or rejects it: never the
requester, nor anyone holding the role it was asked as; a request already decided, or lapsed, is
refused. Every refusal is journaled (``refused``). The owner thread runs every request and decision,
one at a time, so of two displays approving at once one wins and the other is told the request is
decided (``409``).

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

An approval covers exactly what the approver was shown: the request journals and shows the step, its
parameters and every input the step depends on, with their digest (``shoe.journal.approvals``). The
inputs are gathered again after every owner item and at the decision: when their digest differs (a
meter posted, the round moved on or closed, a round opened, the deck changed), the request lapses,
journaled, and the step is asked for again. An approval grants that one request's step once, at that
digest, while it runs; nothing of it outlives the decision. The decision itself is the pure
:func:`shoe.service.people.approval_judge.judge`.

Entries of a request go in its round while that round is open; a request lapses in its round before
the round's closing; a refusal that comes after the closing is journaled outside any round, naming
the round in ``round`` (``shoectl journal verify`` holds nothing after a round's closing).

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
import structlog

from shoe.journal import JournalDataError
from shoe.journal.approvals import approval_digest
from shoe.rules.mississippi.records import SeatSettlement
from shoe.service.api import requests as rq
from shoe.service.api.registry import BY_NAME
from shoe.service.errors import ErrorKind, ServiceError
from shoe.service.people.approval_inputs import faults, inputs_now, payout_bets
from shoe.service.people.approval_judge import Attempt, Request, Verdict, judge, lapse
from shoe.service.rounds.mississippi import MississippiRun

if TYPE_CHECKING:
    from shoe.service.owner import Command, Owner

__all__ = ["GATES", "Approvals", "Gate"]

log = structlog.get_logger("shoe.service")
KEPT = 20  # decided requests kept in the view


@dataclass(frozen=True)
class Gate:
    kind: str
    needs: tuple[str, ...]
    rule: str


GATES: Mapping[str, Gate] = {
    "void": Gate("void", ("floorperson",), "casino procedure: a supervisor approves a void"),
    "payout": Gate("payout", ("floorperson",), "PA 655a.11(i)(4)(i)(C), (i)(4)(iii)(B)"),
    "tamper": Gate("tamper", ("floorperson", "surveillance"), "a tamper fault is cleared under supervision"),
    "maintenance-dispense": Gate(
        "maintenance-dispense", ("floorperson",), "a maintenance dispense from the shift's checked deck"
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
    params: dict[str, Any]  # the step's request, as plain JSON (what the digest covers)
    role: Any  # the service role the step was asked as
    requester: Mapping[str, str]
    round_id: str | None  # None: a maintenance step between rounds
    key: tuple[Any, ...]
    seat: int | None
    detail: dict[str, Any]
    inputs: dict[str, Any]
    digest: str
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
            "params": self.params,
            "inputs": self.inputs,
            "digest": self.digest,
            "needs": list(self.gate.needs),
            "rule": self.gate.rule,
            "requested_by": dict(self.requester),
            "state": self.state,
            "decided_by": dict(self.decided_by) if self.decided_by else None,
        }

    def judged(self) -> Request:
        role = str(getattr(self.role, "value", self.role))
        return Request(self.id, self.state, self.digest, frozenset(self.gate.needs), self.requester["id"], role)


@dataclass(frozen=True)
class Grant:
    """The one step an approval lets run, while it runs: its request's key, at its digest (``None``: the
    misdeal a rejected hand-entered card makes, which no one asked for)."""

    key: tuple[Any, ...]
    digest: str | None


def _refuse(code: str, message: str, kind: ErrorKind, hint: str | None = None) -> ServiceError:
    return ServiceError(code, message, kind=kind, hint=hint)


class Approvals:
    """Owned by the owner thread; ``shown`` is what other threads read (replaced whole, never changed)."""

    def __init__(self) -> None:
        self.requests: dict[str, Pending] = {}
        self.waiting: set[str] = set()  # the ids of pending requests (reviewed after every owner item)
        self.grant: Grant | None = None
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
            return self._gate(owner, cmd, GATES["void"], (run.round_id, "void"), None, request)
        if cmd.action == "reveal":
            assert isinstance(request, rq.Reveal)
            if request.card is None or (run.round_id, request.index) not in self.unreadable:
                return None
            self._check_unaccounted(owner, run.round_id, request.card)
            card: tuple[Any, ...] = (run.round_id, "card", request.index, request.card)
            return self._gate(owner, cmd, GATES["hand-entered-card"], card, None, request)
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
            if named not in ("tamper", "7") and not (named is None and "tamper" in faults(owner)):
                return None
            return self._gate(owner, cmd, GATES["tamper"], (None, "tamper"), None, request)
        if str(owner.deck.state) != "checked":
            return None
        stacks, size = getattr(request, "stacks", None), getattr(request, "size", None)
        key = (None, "dispense", stacks, size)
        return self._gate(owner, cmd, GATES["maintenance-dispense"], key, None, request)

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
        run = owner.desk.run
        if not payout_bets(record) or run is None:
            return None
        key = (run.round_id, "payout", record.seat)
        return self._gate(owner, cmd, GATES["payout"], key, record.seat, rq.Empty())

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

    # -- what a request covers ---------------------------------------------------------------------

    def _digest_now(self, owner: Owner, pending: Pending) -> str | None:
        """The digest of ``pending``'s step as it would run now; ``None``: it can no longer run as asked."""
        try:
            now = inputs_now(owner, self.unreadable, pending.gate.kind, pending.round_id, pending.seat, pending.params)
        except Exception:  # a step that cannot be looked at cannot be approved: it lapses
            return None
        return None if now is None else approval_digest(pending.gate.kind, pending.step, pending.params, now[0])

    def review(self, owner: Owner) -> None:
        """After every owner item (and before a round's closing): a request whose inputs changed lapses, journaled."""
        for request_id in sorted(self.waiting):
            pending = self.requests[request_id]
            verdict = lapse(pending.judged(), self._digest_now(owner, pending))
            if verdict is None:
                continue
            try:
                self._apply(owner, pending, verdict)
            except JournalDataError as exc:  # refused whole, nothing written: still pending; a decision refuses it
                log.warning("an approval's lapse could not be journaled", request_id=pending.id, error=str(exc))

    # -- asking ------------------------------------------------------------------------------------

    def _gate(  # noqa: PLR0917 - the step's gate, its key, the seat and the step's request
        self, owner: Owner, cmd: Command, gate: Gate, key: tuple[Any, ...], seat: int | None, request: msgspec.Struct
    ) -> dict[str, Any] | None:
        params: dict[str, Any] = msgspec.to_builtins(request)
        round_id = key[0]  # None: a maintenance step between rounds
        now = inputs_now(owner, self.unreadable, gate.kind, round_id, seat, params)
        if now is None:  # pragma: no cover - intercept and hold ask only for steps that can be taken
            raise _refuse("not-now", f"the {gate.kind} cannot be taken now", ErrorKind.CONFLICT)
        inputs, detail = now
        digest = approval_digest(gate.kind, cmd.action, params, inputs)
        grant = self.grant
        if grant is not None and grant.key == key and grant.digest in (None, digest):
            self.grant = None  # used: the same step asked again needs a new approval
            return None
        for request_id in sorted(self.waiting):
            pending = self.requests[request_id]
            if pending.key != key:
                continue
            if pending.digest == digest:
                return {"awaiting_approval": pending.public()}  # the same request, not two
            verdict = lapse(pending.judged(), digest)
            if verdict is not None:
                self._apply(owner, pending, verdict)
        assert cmd.by is not None
        pending = Pending("a-" + secrets.token_hex(4), gate, cmd.action, params, cmd.role, dict(cmd.by), round_id, key,
                          seat, detail, inputs, digest)  # fmt: skip
        self._journal(owner, pending, {
            "action": "requested", "step": cmd.action, "needs": list(gate.needs), "seat": seat, "detail": detail,
            "rule": gate.rule, "params": params, "inputs": inputs, "digest": digest,
        })  # fmt: skip
        self.requests[pending.id] = pending
        self.waiting.add(pending.id)
        self._publish()
        return {"awaiting_approval": pending.public()}

    # -- deciding ----------------------------------------------------------------------------------

    def decide(self, owner: Owner, cmd: Command) -> None:
        """The owner thread's item for an approval or a rejection (``TableService.decide_approval``)."""
        if not cmd.future.set_running_or_notify_cancel():
            return
        from shoe.service.api.actions import translate  # actions calls this module: imported when first needed

        params = cmd.params if isinstance(cmd.params, Mapping) else {}
        try:
            answer = self._decide(
                owner,
                cmd,
                str(params.get("request_id")),
                Attempt(
                    bool(params.get("approve")),
                    None if cmd.by is None else str(cmd.by.get("id")),
                    frozenset(params.get("staff_roles") or ()),
                    params.get("digest"),
                ),
            )
        except (ServiceError, JournalDataError) as exc:  # refused, or an entry refused whole: nothing changed
            cmd.future.set_exception(translate(exc))
            return
        except Exception as exc:  # a journal that refused an entry: the approver is answered, the owner recovers
            cmd.future.set_exception(translate(exc))
            raise
        finally:
            owner.sink.by = None
            self.grant = None  # an approval's grant never outlives its decision
            self._publish()
        cmd.future.set_result(answer)

    def _decide(self, owner: Owner, cmd: Command, request_id: str, attempt: Attempt) -> dict[str, Any]:
        pending = self.requests.get(request_id)
        if pending is None:
            raise _refuse(
                "unknown-request",
                f"no approval request {request_id!r}",
                ErrorKind.NOT_FOUND,
                "GET /v1/approvals lists them",
            )
        owner.sink.by = cmd.by
        current = self._digest_now(owner, pending) if pending.state == "pending" else None
        verdict = judge(pending.judged(), current, attempt)
        self._apply(owner, pending, verdict, cmd.by)
        if verdict.error is not None:
            code, kind, message = verdict.error
            raise _refuse(code, message, ErrorKind.CONFLICT if kind == "conflict" else ErrorKind.FORBIDDEN,
                          verdict.hint)  # fmt: skip
        answer: dict[str, Any] = {"decided": pending.public()}
        if verdict.grant:
            self.grant = Grant(pending.key, pending.digest)
            answer["result"] = self._run(owner, pending.step, pending.params, pending.role, pending.requester)
        elif verdict.state == "rejected" and pending.gate.kind == "hand-entered-card":  # the misdeal (rules digest)
            assert cmd.by is not None
            self.grant = Grant((pending.round_id, "void"), None)
            answer["result"] = self._run(owner, "void", {"cause": "unreadable-card"}, pending.role, cmd.by)
        return answer

    def _apply(self, owner: Owner, pending: Pending, verdict: Verdict, by: Mapping[str, str] | None = None) -> None:
        """Journal a verdict's entries, then (journal before state) the request's new state."""
        for entry in verdict.entries:
            self._journal(owner, pending, dict(entry))
        if verdict.state != pending.state:
            pending.state = verdict.state
            self.waiting.discard(pending.id)
            if verdict.state in ("approved", "rejected") and by is not None:
                pending.decided_by = dict(by)
            self._publish()

    def _journal(self, owner: Owner, pending: Pending, data: dict[str, Any]) -> None:
        """An entry of ``pending``: in its round while that round is open, else outside any round (naming it)."""
        run = owner.desk.run
        inside = run is not None and pending.round_id is not None and run.round_id == pending.round_id
        column = pending.round_id if inside and run is not None and not run.closed else None
        base = {"request_id": pending.id, "kind": pending.gate.kind, "round": pending.round_id}
        owner.desk.append("approval", {**base, **data}, column)

    def _run(self, owner: Owner, action: str, params: Any, role: Any, by: Mapping[str, str]) -> dict[str, Any]:
        from shoe.service.api.actions import execute  # actions calls this module: imported when first needed
        from shoe.service.owner import Command

        future: Future[dict[str, Any]] = Future()
        try:
            execute(owner, Command(action, dict(params), role, future, by))
        finally:
            self.grant = None  # used or not, the grant ends with its step
        return future.result(timeout=0)

    def _publish(self) -> None:
        live = [p.public() for p in self.requests.values() if p.state == "pending"]
        done = [p.public() for p in self.requests.values() if p.state != "pending"][-KEPT:]
        self.shown = live + done
        if len(self.requests) > 4 * KEPT:  # decided requests are in the journal: memory keeps the recent ones
            keep = {p["id"] for p in self.shown}
            self.requests = {k: v for k, v in self.requests.items() if k in keep}

