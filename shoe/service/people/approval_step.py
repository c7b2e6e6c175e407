"""Approvals as a pure step: the approvals state and one input -> the new state and the intents to carry out.

:func:`step` takes the :class:`State` (every request asked, the grant an approval gave, the community
cards the reader failed on) and one input: a gated command arriving (:class:`Ask`, its inputs already
gathered), one waiting request's digest after an owner item (:class:`Review`), a person's decision
(:class:`Decide`, with the request's digest now), a failed step (:class:`Failed`) or the end of a
decision (:class:`End`). It answers the new state and the intents, in order: journal this entry
(:class:`~shoe.service.rounds.intents.Append`), run this step with these params as this person
(:class:`Run`), answer this (:class:`Reply`, :class:`Proceed`), refuse with this error (:class:`Refuse`),
publish the list (:class:`Publish`). Nothing here waits, reads a clock or randomness (a new request's
id comes in with :class:`Ask`), or touches the journal, the round or the shoe; the adapter on the owner
thread (:mod:`shoe.service.people.approvals`) gathers the inputs, carries out the intents and commits the
state.

Why an explicit ``step(state, input) -> (state, intents)`` and not a round's generator step
(:mod:`shoe.service.rounds.intents`): an approval's step needs no result from the world in the middle of
it. A round step reads what its dispense or scan gave and deals on; an approval's inputs (the digest of
what a step depends on now) are gathered before the step, and the one intent with a result, :class:`Run`,
comes last and its result goes into the reply untouched. A step that is a plain function of two values
is checked by comparing values, and the state it returns is the state the adapter commits.

Journal first (docs/people.md, "Approvals and the journal"): the adapter makes the :class:`Append`
intents first and commits the returned state only once they are in; a :class:`Checkpoint` among them
names the state the entries before it describe (an ask that lapses an older request of the same step).
An entry refused whole leaves the state as the last committed one. The state is committed before a
:class:`Run`, so the step run under an approval finds the grant (and consumes it through its own
:class:`Ask`); after it, :class:`End` ends the grant (an approval's grant never outlives its decision).

The rules (who may decide, lapse on a changed digest, decided once) are the pure
:func:`~shoe.service.people.approval_judge.judge`; the digest is
:func:`~shoe.journal.approvals.approval_digest` of the step's kind, action, params and inputs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from shoe.journal.approvals import approval_digest
from shoe.service.errors import ErrorKind
from shoe.service.people.approval_judge import Attempt, Request, Verdict, judge, lapse
from shoe.service.rounds.intents import Append

__all__ = [
    "GATES",
    "KEPT",
    "Ask",
    "Checkpoint",
    "Decide",
    "End",
    "Failed",
    "Gate",
    "Grant",
    "Input",
    "Intent",
    "Pending",
    "Proceed",
    "Publish",
    "Refuse",
    "Reply",
    "Review",
    "Run",
    "State",
    "step",
]

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


@dataclass(frozen=True)
class Pending:
    """One request as asked, and its fate (replaced whole when it changes, never changed)."""

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


@dataclass(frozen=True)
class State:
    """The approvals, between two inputs. ``requests`` in the order they were asked."""

    requests: tuple[Pending, ...] = ()
    grant: Grant | None = None
    unreadable: frozenset[tuple[str, int]] = frozenset()  # (round, community index) the reader failed on

    def get(self, request_id: str) -> Pending | None:
        return next((p for p in self.requests if p.id == request_id), None)

    def waiting(self) -> list[Pending]:
        """The pending requests, by id (the order a review lapses them in)."""
        return sorted((p for p in self.requests if p.state == "pending"), key=lambda p: p.id)

    def view(self) -> list[dict[str, Any]]:
        """What ``GET /v1/approvals`` shows: the pending requests, then the last :data:`KEPT` decided."""
        live = [p.public() for p in self.requests if p.state == "pending"]
        done = [p.public() for p in self.requests if p.state != "pending"][-KEPT:]
        return live + done


# -- inputs ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ask:
    """A command the procedure puts under a second person, with what the adapter gathered of it now:
    ``now`` is :func:`~shoe.service.people.approval_inputs.inputs_now` (``None``: the step cannot be taken)."""

    gate: Gate
    action: str
    key: tuple[Any, ...]  # what the step is (a round's void, a seat's payout, ...): one request per key
    seat: int | None
    params: dict[str, Any]
    role: Any
    by: Mapping[str, str]
    now: tuple[dict[str, Any], dict[str, Any]] | None  # (inputs, detail)
    new_id: str  # the id a new request gets (drawn by the adapter: a step draws no randomness)
    open_round: str | None  # the round id while a round is open and not closed


@dataclass(frozen=True)
class Review:
    """After an owner item: one waiting request's digest as its step would run now (``None``: it cannot)."""

    request_id: str
    current: str | None
    open_round: str | None


@dataclass(frozen=True)
class Decide:
    """A person's approve or reject; ``current`` is the request's digest now (``None``: gone, or not pending)."""

    request_id: str
    attempt: Attempt
    current: str | None
    by: Mapping[str, str] | None
    open_round: str | None


@dataclass(frozen=True)
class Failed:
    """A step that failed: a reveal the reader could not identify makes an entered card need a confirmation."""

    action: str
    code: str
    round_id: str | None  # the round in hand
    index: Any  # the reveal's community index


@dataclass(frozen=True)
class End:
    """A decision is over (answered or refused): its grant ends, used or not."""


Input = Ask | Review | Decide | Failed | End


# -- intents ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Checkpoint:
    """The state the :class:`Append` intents before it describe: committed once they are in."""

    state: State


@dataclass(frozen=True)
class Publish:
    """Show this list to other threads (``GET /v1/approvals``)."""

    view: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class Run:
    """Run ``action`` with ``params`` as ``role``, by ``by`` (the service's own dispatch); its reply is the
    ``result`` of the :class:`Reply` after it."""

    action: str
    params: dict[str, Any]
    role: Any
    by: Mapping[str, str]


@dataclass(frozen=True)
class Reply:
    """Answer the command with ``body`` (after a :class:`Run`: with the run's reply as ``result``)."""

    body: dict[str, Any]


@dataclass(frozen=True)
class Proceed:
    """The asked step runs now (an approval granted it): nothing waits."""


@dataclass(frozen=True)
class Refuse:
    """Refuse the command with this error (after the entries before it are in)."""

    code: str
    message: str
    kind: ErrorKind
    hint: str | None = None


Intent = Append | Checkpoint | Publish | Run | Reply | Proceed | Refuse


def step(state: State, event: Input) -> tuple[State, list[Intent]]:
    """The approvals after ``event``, and what to do about it, in order."""
    if isinstance(event, Ask):
        return _ask(state, event)
    if isinstance(event, Review):
        pending = state.get(event.request_id)
        verdict = None if pending is None else lapse(pending.judged(), event.current)
        if pending is None or verdict is None:
            return state, []
        state, intents, _ = _apply(state, pending, verdict, event.open_round)
        return state, intents
    if isinstance(event, Decide):
        return _decide(state, event)
    if isinstance(event, Failed):
        unread = event.action == "reveal" and event.code == "unreadable-card"
        if unread and event.round_id is not None and isinstance(event.index, int):
            return dataclasses.replace(state, unreadable=state.unreadable | {(event.round_id, event.index)}), []
        return state, []
    state = _pruned(dataclasses.replace(state, grant=None))  # End
    return state, [Publish(tuple(state.view()))]


def _ask(state: State, ask: Ask) -> tuple[State, list[Intent]]:
    if ask.now is None:  # pragma: no cover - intercept and hold ask only for steps that can be taken
        return state, [Refuse("not-now", f"the {ask.gate.kind} cannot be taken now", ErrorKind.CONFLICT)]
    inputs, detail = ask.now
    digest = approval_digest(ask.gate.kind, ask.action, ask.params, inputs)
    grant = state.grant
    if grant is not None and grant.key == ask.key and grant.digest in (None, digest):
        return dataclasses.replace(state, grant=None), [Proceed()]  # used: the same step asked again needs a new one
    intents: list[Intent] = []
    for pending in state.waiting():
        if pending.key != ask.key:
            continue
        if pending.digest == digest:  # the same request, not two
            return state, [*intents, Reply({"awaiting_approval": pending.public()})]
        verdict = lapse(pending.judged(), digest)
        if verdict is not None:
            state, lapsed, _ = _apply(state, pending, verdict, ask.open_round)
            intents += [*lapsed, Checkpoint(state)]
    pending = Pending(ask.new_id, ask.gate, ask.action, ask.params, ask.role, dict(ask.by), ask.key[0], ask.key,
                      ask.seat, detail, inputs, digest)  # fmt: skip
    intents.append(_entry(pending, {
        "action": "requested", "step": ask.action, "needs": list(ask.gate.needs), "seat": ask.seat,
        "detail": detail, "rule": ask.gate.rule, "params": ask.params, "inputs": inputs, "digest": digest,
    }, ask.open_round))  # fmt: skip
    state = _pruned(dataclasses.replace(state, requests=(*state.requests, pending)))
    return state, [*intents, Publish(tuple(state.view())), Reply({"awaiting_approval": pending.public()})]


def _decide(state: State, decide: Decide) -> tuple[State, list[Intent]]:
    pending = state.get(decide.request_id)
    if pending is None:
        message = f"no approval request {decide.request_id!r}"
        return state, [Refuse("unknown-request", message, ErrorKind.NOT_FOUND, "GET /v1/approvals lists them")]
    verdict = judge(pending.judged(), decide.current, decide.attempt)
    state, intents, decided = _apply(state, pending, verdict, decide.open_round, decide.by)
    if verdict.error is not None:
        code, kind, message = verdict.error
        error_kind = ErrorKind.CONFLICT if kind == "conflict" else ErrorKind.FORBIDDEN
        return state, [*intents, Refuse(code, message, error_kind, verdict.hint)]
    reply = Reply({"decided": decided.public()})
    if verdict.grant:
        state = dataclasses.replace(state, grant=Grant(pending.key, pending.digest))
        return state, [*intents, Run(pending.step, pending.params, pending.role, pending.requester), reply]
    if verdict.state == "rejected" and pending.gate.kind == "hand-entered-card":  # the misdeal (rules digest)
        assert decide.by is not None
        state = dataclasses.replace(state, grant=Grant((pending.round_id, "void"), None))
        return state, [*intents, Run("void", {"cause": "unreadable-card"}, pending.role, decide.by), reply]
    return state, [*intents, reply]


def _apply(
    state: State, pending: Pending, verdict: Verdict, open_round: str | None, by: Mapping[str, str] | None = None
) -> tuple[State, list[Intent], Pending]:
    """A verdict's entries, then (journal before state) the request's new state, shown; and the request as
    it is now (the reply shows it even when the view no longer keeps it)."""
    intents: list[Intent] = [_entry(pending, dict(entry), open_round) for entry in verdict.entries]
    if verdict.state == pending.state:
        return state, intents, pending
    decided_by = dict(by) if verdict.state in ("approved", "rejected") and by is not None else pending.decided_by
    changed = dataclasses.replace(pending, state=verdict.state, decided_by=decided_by)
    state = _pruned(dataclasses.replace(state, requests=_replaced(state.requests, changed)))
    return state, [*intents, Publish(tuple(state.view()))], changed


def _entry(pending: Pending, data: dict[str, Any], open_round: str | None) -> Append:
    """An entry of ``pending``: in its round while that round is open, else outside any round (naming it)."""
    column = pending.round_id if pending.round_id is not None and pending.round_id == open_round else None
    base = {"request_id": pending.id, "kind": pending.gate.kind, "round": pending.round_id}
    return Append("approval", {**base, **data}, column)


def _replaced(requests: Sequence[Pending], changed: Pending) -> tuple[Pending, ...]:
    return tuple(changed if p.id == changed.id else p for p in requests)


def _pruned(state: State) -> State:
    """Decided requests are in the journal: memory keeps the ones the view shows once it holds many."""
    if len(state.requests) <= 4 * KEPT:
        return state
    keep = {p["id"] for p in state.view()}
    return dataclasses.replace(state, requests=tuple(p for p in state.requests if p.id in keep))
