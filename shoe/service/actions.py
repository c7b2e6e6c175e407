"""Who may do what, and running one command on the owner thread.

Every action belongs to one role (the table below); a command from another role is refused (403).
Technician actions are refused while a round is live (409 ``round-live``). Rules-engine refusals
keep their rule citation; shoe and journal failures become 503s. Every accepted action has been
journaled before its reply is built.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import structlog

from drivers.errors import ShoeError
from drivers.stacks import DispenseFailed
from protocols.codes import FaultCode
from shoe.journal import JournalError
from shoe.rules.errors import RuleViolation
from shoe.service.errors import Role, ServiceError, from_rule, from_shoe
from shoe.service.owner import Command, Owner
from shoe.service.params import int_param
from shoe.service.rounds import new_round_id

__all__ = ["ROLES", "TECHNICIAN_ACTIONS", "execute"]

log = structlog.get_logger("shoe.service")

DEALER_ACTIONS = (
    "open-round",
    "no-more-bets",
    "lock-progressive",
    "chip-count",
    "deal",
    "release-stub",
    "decide",
    "reveal",
    "settle",
    "forfeit",
    "stud-action",
    "reshuffle-burns",
    "void",
)
TECHNICIAN_ACTIONS = ("maintenance-dispense", "clear-fault", "verify-journal")
ROLES: dict[str, Role] = {
    **dict.fromkeys(DEALER_ACTIONS, Role.DEALER),
    **dict.fromkeys(TECHNICIAN_ACTIONS, Role.TECHNICIAN),
    "progressive-inputs": Role.TABLE_SYSTEM,
}


def translate(exc: BaseException) -> ServiceError:
    if isinstance(exc, ServiceError):
        return exc
    if isinstance(exc, RuleViolation):
        return from_rule(exc)
    if isinstance(exc, ShoeError):
        return from_shoe(exc)
    if isinstance(exc, JournalError):
        return ServiceError("journal-error", str(exc), http_status=503, hint="check the disk; see the service log")
    log.exception("action failed", error_type=type(exc).__name__)
    return ServiceError("internal", "internal error; the service log has the details", http_status=500)


def execute(owner: Owner, cmd: Command) -> None:
    """Run ``cmd`` and resolve its future (after the journal has everything it did)."""
    if not cmd.future.set_running_or_notify_cancel():
        return
    started = time.monotonic()
    result: dict[str, Any] | None = None
    error: ServiceError | None = None
    try:
        if owner.stopping:
            raise ServiceError("stopping", "the service is stopping", http_status=503)
        result = dispatch(owner, cmd.action, cmd.params, cmd.role)
    except Exception as exc:
        error = translate(exc)
        failed = isinstance(exc, JournalError)
    else:
        failed = False
    try:
        owner.after()
    except Exception as exc:
        error, failed = error or translate(exc), failed or isinstance(exc, JournalError)
    if failed:  # memory may now be ahead of the journal: stop, and let the restart rebuild from the journal
        log.critical("journal write failed: the service stops (a restart recovers from the journal)")
        owner.killed = True
    run = owner.run
    fields = {
        "action": cmd.action,
        "role": getattr(cmd.role, "value", cmd.role),
        "round_id": run.round_id if run else None,
        "ms": round((time.monotonic() - started) * 1000, 1),
    }
    if error is not None:
        log.info("action refused", code=error.code, rule=error.rule, **fields)
        cmd.future.set_exception(error)
        return
    assert result is not None
    log.info("action accepted", state=run.state if run else None, **fields)
    reply = {"action": cmd.action, "round_id": run.round_id if run else None, "state": run.state if run else None}
    cmd.future.set_result({**reply, **result, "cursor": owner.feed.latest})


def dispatch(owner: Owner, action: str, params: Mapping[str, Any], role: Any) -> dict[str, Any]:
    wanted = ROLES.get(action)
    if wanted is None:
        raise ServiceError("bad-request", f"unknown action {action!r}; actions: {', '.join(ROLES)}", http_status=400)
    if role is not wanted:
        who = getattr(role, "value", role)
        raise ServiceError("forbidden", f"{action} is for the {wanted.value} role, not {who}", http_status=403)
    if not isinstance(params, Mapping):
        raise ServiceError("bad-request", "the parameters must be an object", http_status=400)
    run = owner.run
    live = run is not None and not run.closed
    if action in TECHNICIAN_ACTIONS:
        if live and run is not None:
            raise ServiceError(
                "round-live",
                f"{action} is refused while round {run.round_id} is live",
                hint="finish or void the round first",
            )
        return technician(owner, action, params)
    if action == "open-round":
        if live and run is not None:
            raise ServiceError("round-live", f"round {run.round_id} is still live", hint="finish or void it first")
        owner.refuse_if_alarmed()
        return open_round(owner, params)
    if not live or run is None:
        if action == "release-stub":  # emptying the shoe between rounds (after a void, or after stud)
            count = owner.release_stub()
            owner.append("decision", {"action": "release-stub", "count": count}, None)
            return {"count": count}
        answer = None if run is None else run.closed_answer(action)  # the last round, closed: settle's awards
        if answer is not None:
            return answer
        raise ServiceError("no-round", "no round is live: open one first", http_status=404)
    return run.act(owner, action, params)


def open_round(owner: Owner, params: Mapping[str, Any]) -> dict[str, Any]:
    game = params.get("game")
    cls = owner.games.get(str(game))
    if cls is None:
        raise ServiceError("bad-request", f"game {game!r} unknown; games: {', '.join(owner.games)}", http_status=400)
    round_id = new_round_id(owner.config.table)
    run, opened = cls.open(round_id, params, owner)
    owner.append("round-opened", opened, round_id)
    owner.run = run
    owner.metrics.inc("rounds_total")
    return {"round_id": round_id}


def _fault(raw: object) -> FaultCode | None:
    if raw is None or raw == "":
        return None
    try:
        if isinstance(raw, int) or (isinstance(raw, str) and raw.isdigit()):
            return FaultCode(int(raw))
        return FaultCode[str(raw).upper().replace("-", "_")]
    except (KeyError, ValueError):
        names = ", ".join(f.name.lower() for f in FaultCode)
        raise ServiceError("bad-request", f"fault {raw!r} unknown; faults: {names}", http_status=400) from None


def technician(owner: Owner, action: str, params: Mapping[str, Any]) -> dict[str, Any]:
    if action == "verify-journal":
        assert owner.journal is not None
        result = owner.journal.verify()
        data = {
            "action": action,
            "ok": result.ok,
            "checked": result.checked,
            "first_bad_seq": result.first_bad_seq,
            "problem": result.problem,
        }
        owner.append("technician", data, None)
        return data
    if action == "clear-fault":
        code = _fault(params.get("fault"))
        owner.shoe().clear_fault(code)
        alarm = owner.acknowledge_alarm()  # and the shoe alarm that refuses rounds (docs/service.md)
        data = {"action": action, "fault": code.name if code else "all", "acknowledged": alarm and alarm["cause"]}
        owner.append("technician", data, None)
        return {"fault": code.name.lower() if code else "all", "acknowledged": alarm and alarm["cause"]}
    stacks, size = int_param(params, "stacks", low=1, high=52), int_param(params, "size", low=1, high=52)
    out = []
    for _ in range(stacks):
        try:
            stack = owner.dispense(size)
        except DispenseFailed as exc:
            data = {
                "action": action,
                "dispense_id": exc.dispense_id,
                "known_dispense_id": exc.dispense_id,
                "cards": [r.card for r in exc.cards],
                "failed": exc.code.name,
            }
            owner.append("technician", data, None)
            raise
        data = {
            "action": action,
            "dispense_id": stack.dispense_id,
            "known_dispense_id": stack.dispense_id,
            "cards": list(stack.codes),
            "size": size,
        }
        owner.append("technician", data, None)
        out.append({"dispense_id": stack.dispense_id, "cards": len(stack.cards), "unreadable": list(stack.unreadable)})
    return {"stacks": out}
