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

This module is the adapter on the owner thread: what the approvals hold and do is the pure
:func:`shoe.service.people.approval_step.step` (the state and one input -> the new state and intents).
:class:`Approvals` gathers each input (which gate a command falls under, the inputs' digest now: both need
the owner's state), carries out the intents in order (journal, run, publish, answer, refuse) and commits
the new state only after the entries that describe it are in the journal.

Entries of a request go in its round while that round is open; a request lapses in its round before
the round's closing; a refusal that comes after the closing is journaled outside any round, naming
the round in ``round`` (``shoectl journal verify`` holds nothing after a round's closing).

Commands of configuration-file tokens and the open loopback API name no person and are not gated, as
before (docs/people.md, "Approvals").
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import msgspec
import structlog

from shoe.journal import JournalDataError
from shoe.journal.approvals import approval_digest
from shoe.rules.mississippi.records import SeatSettlement
from shoe.service.answer import Answer
from shoe.service.api import requests as rq
from shoe.service.api.registry import BY_NAME
from shoe.service.errors import ErrorKind, ServiceError
from shoe.service.people.approval_inputs import faults, inputs_now, payout_bets
from shoe.service.people.approval_judge import Attempt
from shoe.service.people.approval_step import (
    GATES,
    Ask,
    Checkpoint,
    Decide,
    End,
    Failed,
    Gate,
    Grant,
    Input,
    Intent,
    Pending,
    Proceed,
    Publish,
    Refuse,
    Reply,
    Review,
    Run,
    State,
    step,
)
from shoe.service.rounds.intents import Append
from shoe.service.rounds.mississippi import MississippiRun

if TYPE_CHECKING:
    from shoe.service.owner import Command, Owner

__all__ = ["GATES", "Approvals", "Gate"]

log = structlog.get_logger("shoe.service")


class Approvals:
    """Owned by the owner thread; ``shown`` is what other threads read (replaced whole, never changed)."""

    def __init__(self) -> None:
        self.state = State()
        self.shown: list[dict[str, Any]] = []

    @property
    def grant(self) -> Grant | None:
        return self.state.grant

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
            if request.card is None or (run.round_id, request.index) not in self.state.unreadable:
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
        index = cmd.params.get("index") if isinstance(cmd.params, Mapping) else getattr(cmd.params, "index", None)
        self._step(owner, Failed(cmd.action, error.code, None if run is None else run.round_id, index))

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
            raise ServiceError(
                "card-accounted-for",
                f"{card} is already dealt in this round: it cannot be the unread card",
                kind=ErrorKind.CONFLICT,
                hint="read the card's face again and enter it",
            )

    # -- what a request covers ---------------------------------------------------------------------

    def _digest_now(self, owner: Owner, pending: Pending) -> str | None:
        """The digest of ``pending``'s step as it would run now; ``None``: it can no longer run as asked."""
        try:
            now = inputs_now(
                owner, self.state.unreadable, pending.gate.kind, pending.round_id, pending.seat, pending.params
            )
            return None if now is None else approval_digest(pending.gate.kind, pending.step, pending.params, now[0])
        except Exception:  # a step that cannot be looked at cannot be approved: it lapses
            return None

    def review(self, owner: Owner) -> None:
        """After every owner item (and before a round's closing): a request whose inputs changed lapses, journaled."""
        for pending in self.state.waiting():
            try:
                self._step(owner, Review(pending.id, self._digest_now(owner, pending), _open_round(owner)))
            except JournalDataError as exc:  # refused whole, nothing written: still pending; a decision refuses it
                log.warning("an approval's lapse could not be journaled", request_id=pending.id, error=str(exc))

    # -- asking ------------------------------------------------------------------------------------

    def _gate(  # noqa: PLR0917 - the step's gate, its key, the seat and the step's request
        self, owner: Owner, cmd: Command, gate: Gate, key: tuple[Any, ...], seat: int | None, request: msgspec.Struct
    ) -> dict[str, Any] | None:
        params: dict[str, Any] = msgspec.to_builtins(request)
        now = inputs_now(owner, self.state.unreadable, gate.kind, key[0], seat, params)
        assert cmd.by is not None
        ask = Ask(gate, cmd.action, key, seat, params, cmd.role, cmd.by, now, "a-" + secrets.token_hex(4),
                  _open_round(owner))  # fmt: skip
        return self._step(owner, ask)

    # -- deciding ----------------------------------------------------------------------------------

    def decide(self, owner: Owner, cmd: Command) -> None:
        """The owner thread's item for an approval or a rejection (``TableService.decide_approval``)."""
        if not cmd.future.set_running_or_notify_cancel():
            return
        from shoe.service.api.actions import translate  # actions calls this module: imported when first needed

        params = cmd.params if isinstance(cmd.params, Mapping) else {}
        request_id = str(params.get("request_id"))
        attempt = Attempt(
            bool(params.get("approve")),
            None if cmd.by is None else str(cmd.by.get("id")),
            frozenset(params.get("staff_roles") or ()),
            params.get("digest"),
        )
        try:
            pending = self.state.get(request_id)
            if pending is not None:
                owner.sink.by = cmd.by
            current = self._digest_now(owner, pending) if pending is not None and pending.state == "pending" else None
            answer = self._step(owner, Decide(request_id, attempt, current, cmd.by, _open_round(owner)))
        except (ServiceError, JournalDataError) as exc:  # refused, or an entry refused whole: nothing changed
            cmd.future.set_exception(translate(exc))
            return
        except Exception as exc:  # a journal that refused an entry: the approver is answered, the owner recovers
            cmd.future.set_exception(translate(exc))
            raise
        finally:
            owner.sink.by = None
            self._step(owner, End())  # an approval's grant never outlives its decision
        assert answer is not None
        cmd.future.set_result(answer)

    # -- carrying out a step's intents -------------------------------------------------------------

    def _step(self, owner: Owner, event: Input) -> dict[str, Any] | None:
        """Take one pure step and carry out its intents in order: the answer of a :class:`Reply`, ``None``
        when nothing waits. The state is committed once the entries before it are in the journal."""
        state, intents = step(self.state, event)
        return self._carry_out(owner, state, intents)

    def _carry_out(self, owner: Owner, state: State, intents: Sequence[Intent]) -> dict[str, Any] | None:
        committed = False
        result: dict[str, Any] | None = None
        for intent in intents:
            if isinstance(intent, Append):
                owner.desk.append(intent.kind, intent.data, intent.round_id)
                continue
            if isinstance(intent, Checkpoint):
                self.state = intent.state
                continue
            if isinstance(intent, Publish):
                self.shown = list(intent.view)
                continue
            if not committed:  # every entry is in: the state they describe is the approvals' now
                self.state, committed = state, True
            if isinstance(intent, Run):
                result = self._run(owner, intent)
            elif isinstance(intent, Reply):
                return intent.body if result is None else {**intent.body, "result": result}
            elif isinstance(intent, Refuse):
                raise ServiceError(intent.code, intent.message, kind=intent.kind, hint=intent.hint)
            elif isinstance(intent, Proceed):
                return None
        if not committed:
            self.state = state
        return None

    def _run(self, owner: Owner, run: Run) -> dict[str, Any]:
        from shoe.service.api.actions import execute  # actions calls this module: imported when first needed
        from shoe.service.owner import Command

        future = Answer()
        try:
            execute(owner, Command(run.action, dict(run.params), run.role, future, run.by))
        finally:
            self._step(owner, End())  # used or not, the grant ends with its step
        return future.result(timeout=0)


def _open_round(owner: Owner) -> str | None:
    """The round an approval entry may go in: the one in hand while it is open (not yet closed)."""
    run = owner.desk.run
    return run.round_id if run is not None and not run.closed else None
