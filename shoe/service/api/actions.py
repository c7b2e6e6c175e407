"""Who may do what, and running one command on the owner thread.

Every action belongs to one role (``shoe.service.api.registry.ACTIONS``, declared once); a command from
another role is refused (``forbidden``, ``FORBIDDEN``). Its parameters are then converted to the
action's request type (``shoe.service.api.requests``: the same checks as the HTTP edge, ``bad-request``
``BAD_INPUT`` naming the field's path), so every handler takes a typed request. Technician actions are
refused while a round is live (``round-live``, ``CONFLICT``); a round action of another game is
``wrong-game``. Rules-engine refusals keep their rule citation; shoe and journal failures are
``UNAVAILABLE`` (the kinds of ``shoe.service.errors.ErrorKind``; the API maps them to statuses). Every
accepted action has been journaled before its reply is built."""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any

import msgspec
import structlog

from drivers.errors import ShoeError
from drivers.stacks import DispenseFailed
from protocols.codes import FaultCode
from shoe.journal import JournalError
from shoe.rules.errors import RuleViolation
from shoe.service.api import requests as rq
from shoe.service.api.registry import ACTIONS, BY_NAME, Action, Scope
from shoe.service.errors import ErrorKind, Role, ServiceError, from_rule, from_shoe
from shoe.service.owner import Command, Owner
from shoe.service.rounds.intents import drive
from shoe.service.rounds.run import new_round_id

__all__ = ["ROLES", "TECHNICIAN_ACTIONS", "execute"]

log = structlog.get_logger("shoe.service")
_DEBUG = logging.getLogger("shoe.service")  # the stdlib logger behind ``log``: its level decides

TECHNICIAN_ACTIONS = tuple(a.name for a in ACTIONS if a.scope is Scope.MAINTENANCE)
ROLES: dict[str, Role] = {a.name: a.role for a in ACTIONS}


def translate(exc: BaseException) -> ServiceError:
    if isinstance(exc, ServiceError):
        return exc
    if isinstance(exc, RuleViolation):
        return from_rule(exc)
    if isinstance(exc, ShoeError):
        return from_shoe(exc)
    if isinstance(exc, JournalError):
        return ServiceError(
            "journal-error", str(exc), kind=ErrorKind.UNAVAILABLE, hint="check the disk; see the service log"
        )
    log.exception("action failed", error_type=type(exc).__name__)
    return ServiceError("internal", "internal error; the service log has the details", kind=ErrorKind.INTERNAL)


def execute(owner: Owner, cmd: Command) -> None:
    """Run ``cmd`` and resolve its future (after the journal has everything it did)."""
    if not cmd.future.set_running_or_notify_cancel():
        return
    started = time.monotonic()
    result: dict[str, Any] | None = None
    error: ServiceError | None = None
    failure: Exception | None = None
    owner.sink.by = cmd.by  # every entry this command causes names who asked
    try:
        if owner.stopping:
            raise ServiceError("stopping", "the service is stopping", kind=ErrorKind.UNAVAILABLE)
        result = owner.approvals.intercept(owner, cmd)  # a step awaiting a second person (people.approvals)
        if result is None and batched(owner, cmd.action):
            with owner.sink.batch():  # one commit for the action's records, before the shoe moves again or it answers
                result = dispatch(owner, cmd.action, cmd.params, cmd.role)
                owner.close_finished()  # the round's close joins the batch (the settlements and it: one commit)
        elif result is None:
            result = dispatch(owner, cmd.action, cmd.params, cmd.role)
    except Exception as exc:
        error, failure = translate(exc), exc
        owner.approvals.failed(owner, cmd, error)
    finally:
        owner.approvals.release(owner)
    if failure is None:  # after a failure, after() would close a round the journal may never have seen fail
        try:
            owner.after()
        except Exception as exc:
            error, failure = translate(exc), exc
    owner.sink.by = None
    if failure is not None:  # memory may be ahead of the journal: rebuilt from it, or the service stops
        error = owner.recover(failure) or error
    run = owner.desk.run
    fields = {
        "action": cmd.action,
        "role": getattr(cmd.role, "value", cmd.role),
        "by": cmd.by["id"] if cmd.by else None,
        "round_id": run.round_id if run else None,
        "ms": round((time.monotonic() - started) * 1000, 1),
    }
    if error is not None:
        log.info("action refused", code=error.code, rule=error.rule, **fields)
        cmd.future.set_exception(error)
        return
    assert result is not None
    # Per action at debug: the journal records every accepted action, and the API logs each request.
    if _DEBUG.isEnabledFor(logging.DEBUG):  # not even built otherwise: structlog runs its processors first
        log.debug("action accepted", state=run.state if run else None, **fields)
    reply = {"action": cmd.action, "round_id": run.round_id if run else None, "state": run.state if run else None}
    cmd.future.set_result({**reply, **result, "cursor": owner.sink.feed.latest})


def batched(owner: Owner, action: str) -> bool:
    """Whether ``action``'s journal entries are committed together (group commit).

    A round action or a round's opening: the records it writes are queued and committed in one
    transaction before the shoe is asked for anything (``RoundDesk`` flushes before each shoe command),
    before a link notice is handled (``Owner.drain``) and before the answer or any snapshot
    (``Owner.after``). Not while a step waits for a second person's approval (its entries are committed
    one by one, as the approvals desk expects), nor technician and deck work (each entry there
    precedes a shoe command or a change other threads see).
    """
    entry = BY_NAME.get(action)
    if entry is None or entry.scope not in (Scope.ROUND, Scope.OPEN):
        return False
    return getattr(owner.desk.run, "hold", None) is None


def dispatch(owner: Owner, action: str, params: Mapping[str, Any] | msgspec.Struct | None, role: Any) -> dict[str, Any]:
    """Check the role, type the parameters (the same checks as the HTTP edge), run the action's handler."""
    entry = BY_NAME.get(action)
    if entry is None:
        raise ServiceError(
            "bad-request", f"unknown action {action!r}; actions: {', '.join(ROLES)}", kind=ErrorKind.BAD_INPUT
        )
    if role is not entry.role:
        who = getattr(role, "value", role)
        raise ServiceError(
            "forbidden", f"{action} is for the {entry.role.value} role, not {who}", kind=ErrorKind.FORBIDDEN
        )
    try:
        request = rq.convert(params, entry.request)
    except rq.RequestError as exc:
        raise ServiceError("bad-request", str(exc), kind=ErrorKind.BAD_INPUT) from None
    desk = owner.desk
    run = desk.run
    live = run is not None and not run.closed
    if entry.scope is Scope.MAINTENANCE:
        if live and run is not None:
            raise ServiceError(
                "round-live",
                f"{action} is refused while round {run.round_id} is live",
                hint="finish or void the round first",
            )
        return _MAINTENANCE[action](owner, request)
    if entry.scope is Scope.DECK:
        if live and run is not None:
            raise ServiceError(
                "round-live", f"{action} is refused while round {run.round_id} is live", hint="finish or void it first"
            )
        who = getattr(role, "value", str(role))
        if isinstance(request, rq.LoadDeck):
            return owner.deck.load(request, who)
        return owner.deck.run_check(who)
    if entry.scope is Scope.OPEN:
        if live and run is not None:
            raise ServiceError("round-live", f"round {run.round_id} is still live", hint="finish or void it first")
        owner.integrity.refuse_rounds()  # a program or firmware verification alarm names its cause
        owner.supervisor.refuse_if_alarmed()
        assert isinstance(request, rq.OpenMississippi | rq.OpenStud)
        return open_round(owner, request)
    if not live or run is None:
        if entry.between_rounds:  # emptying the shoe between rounds (after a void, after stud, a refused deck)
            return owner.deck.release(getattr(role, "value", str(role)))
        answer = None if run is None else run.closed_answer(action)  # the last round, closed: settle's awards
        if answer is not None:
            return answer
        raise ServiceError("no-round", "no round is live: open one first", kind=ErrorKind.NOT_FOUND)
    return _round_action(owner, entry, request)


def _round_action(owner: Owner, entry: Action, request: msgspec.Struct) -> dict[str, Any]:
    run = owner.desk.run
    assert run is not None
    if run.game not in entry.games:
        raise ServiceError("wrong-game", f"{entry.name!r} is not an action of {run.game}")
    # The command's randomness is drawn here, at the edge: the round's step reads none of its own.
    return drive(run.act(entry.name, request, secrets.token_bytes(16)), owner.desk)


def open_round(owner: Owner, request: rq.OpenRound) -> dict[str, Any]:
    game = rq.game_of(request)
    cls = owner.games.get(game)
    if cls is None:  # pragma: no cover - every game of the request type is served
        raise ServiceError(
            "bad-request", f"game {game!r} unknown; games: {', '.join(owner.games)}", kind=ErrorKind.BAD_INPUT
        )
    round_id = new_round_id(owner.config.table, time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()), secrets.token_hex(3))
    run, opened = drive(cls.open(round_id, request), owner.desk)
    owner.desk.append("round-opened", opened, round_id)
    owner.desk.run = run
    owner.metrics.inc("rounds_total")
    return {"round_id": round_id}


def _fault(raw: str | int | None) -> FaultCode | None:
    if raw is None:
        return None
    try:
        if isinstance(raw, int):
            return FaultCode(raw)
        return FaultCode[raw.upper().replace("-", "_")]
    except (KeyError, ValueError):
        names = ", ".join(f.name.lower() for f in FaultCode)
        raise ServiceError("bad-request", f"fault {raw!r} unknown; faults: {names}", kind=ErrorKind.BAD_INPUT) from None


def _verify_journal(owner: Owner, request: msgspec.Struct) -> dict[str, Any]:
    assert owner.sink.journal is not None
    result = owner.sink.journal.verify()
    data = {
        "action": "verify-journal",
        "ok": result.ok,
        "checked": result.checked,
        "first_bad_seq": result.first_bad_seq,
        "problem": result.problem,
    }
    owner.desk.append("technician", data, None)
    return data


def _clear_fault(owner: Owner, request: msgspec.Struct) -> dict[str, Any]:
    assert isinstance(request, rq.ClearFault)
    code = _fault(request.fault)
    owner.supervisor.shoe().clear_fault(code)
    alarm = owner.supervisor.alarm  # the shoe alarm that refuses rounds (docs/service.md): acknowledged too
    acknowledged = alarm and alarm["cause"]
    data = {"action": "clear-fault", "fault": code.name if code else "all", "acknowledged": acknowledged}
    owner.desk.append("technician", data, None)
    owner.supervisor.acknowledge_alarm()  # only once the acknowledgement is in the journal
    return {"fault": code.name.lower() if code else "all", "acknowledged": acknowledged}


def _maintenance_dispense(owner: Owner, request: msgspec.Struct) -> dict[str, Any]:
    assert isinstance(request, rq.MaintenanceDispense)
    action, size = "maintenance-dispense", request.size
    owner.deck.cards_out(action, "technician")  # the checked deck loses cards: unchecked, before the shoe moves
    out = []
    for _ in range(request.stacks):
        try:
            stack = owner.desk.dispense(size)
        except DispenseFailed as exc:
            data = {
                "action": action,
                "dispense_id": exc.dispense_id,
                "known_dispense_id": exc.dispense_id,
                "cards": [r.card for r in exc.cards],
                "failed": exc.code.name,
            }
            owner.desk.append("technician", data, None)
            raise
        data = {
            "action": action,
            "dispense_id": stack.dispense_id,
            "known_dispense_id": stack.dispense_id,
            "cards": list(stack.codes),
            "size": size,
        }
        owner.desk.append("technician", data, None)
        out.append({"dispense_id": stack.dispense_id, "cards": len(stack.cards), "unreadable": list(stack.unreadable)})
    return {"stacks": out}


_MAINTENANCE: Mapping[str, Callable[[Owner, msgspec.Struct], dict[str, Any]]] = {
    "verify-journal": _verify_journal,
    "clear-fault": _clear_fault,
    "maintenance-dispense": _maintenance_dispense,
}
assert set(_MAINTENANCE) == set(TECHNICIAN_ACTIONS), "a maintenance action without its handler"
