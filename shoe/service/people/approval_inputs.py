"""What an approval request covers, gathered on the owner thread: the inputs of a step as it would run now.

:func:`inputs_now` answers ``(inputs, detail)`` for a gated step (``shoe.service.people.approvals``): the
inputs are everything the step depends on, which the request's digest covers
(``shoe.journal.approvals.approval_digest``); the detail is what the approver is shown of the step.
``None``: the step can no longer be taken as asked (its round closed or moved to another seat, a round
opened while a maintenance step waited). Reads only; nothing here changes the service.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from typing import TYPE_CHECKING, Any

from shoe.rules.mississippi.records import SeatSettlement, TableSystemRecord
from shoe.service.rounds.mississippi import MississippiRun

if TYPE_CHECKING:
    from shoe.service.owner import Owner
    from shoe.service.rounds.run import RoundRun

__all__ = ["faults", "inputs_now", "meters", "payout_bets", "round_inputs"]


def round_inputs(run: RoundRun) -> dict[str, Any]:
    """The round as an approval depends on it: its id, state and how many records it holds (every change
    of a rules round is a record: a meter posted, a card dealt, a decision, a pause)."""
    rules = getattr(run, "r", None)
    records = rules.record_count if rules is not None else len(getattr(run, "hand").records)  # noqa: B009
    return {"id": run.round_id, "state": run.state, "records": records}


def payout_bets(record: SeatSettlement) -> list[dict[str, Any]]:
    """A seat's side results a floorperson validates before they are paid (PA 655a.11(i)(4)(i)(C), (iii)(B)),
    as the approver is shown them: the bet, the hand's name, the amount and where it is paid from."""
    return [
        {"bet": s.bet, "hand": s.hand, "paid": s.paid, "paid_from": s.paid_from, "note": s.note}
        for s in record.side
        if s.requires_floorperson
    ]


def meters(run: MississippiRun) -> dict[str, int]:
    """The meter readings the table system last posted (cents): a meter payout is a share of them."""
    posted = [r for r in run.r.records if isinstance(r, TableSystemRecord)]
    return dict(posted[-1].meters) if posted else {}


def faults(owner: Owner) -> set[str]:
    """The shoe's active fault codes, as its last STATUS said."""
    return {str(f.get("code")) for f in (owner.shown.status or {}).get("faults") or ()}


def inputs_now(  # noqa: PLR0917 - the step: its kind, round, seat and request
    owner: Owner,
    unreadable: Set[tuple[str, int]],
    kind: str,
    round_id: str | None,
    seat: int | None,
    params: Mapping[str, Any],
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """``(inputs, detail)`` of a step now: everything it depends on, and what the approver is shown of
    it; ``None`` when the step can no longer be taken as asked (its round closed, another seat is due)."""
    if kind in ("tamper", "maintenance-dispense"):
        if owner.desk.live_id() is not None:
            return None  # a round opened: maintenance waits for it to end, and is asked again then
        if kind == "tamper":
            return {"faults": sorted(faults(owner))}, {"fault": "tamper"}
        deck = owner.deck
        inputs = {"deck": {"state": str(deck.state), "deck_no": deck.deck_no, "count": deck.count}}
        return inputs, {"stacks": params.get("stacks"), "size": params.get("size")}
    run = owner.desk.run
    if run is None or run.round_id != round_id or run.closed or run.terminal:
        return None
    current = round_inputs(run)
    if kind == "void":
        return {"round": current}, {"cause": params.get("cause") or "other"}
    if kind == "hand-entered-card":
        if (run.round_id, params.get("index")) not in unreadable:
            return None
        return {"round": current}, {"index": params.get("index"), "card": params.get("card")}
    if not isinstance(run, MississippiRun) or run.r.next_to_settle != seat or run.state != "settlement":
        return None
    bets = payout_bets(run.r.preview_next())
    if not bets:
        return None
    # Once settlement has begun the hands, the Magic Card and the Lucky seat are fixed: the amounts and
    # the meters are what can move. A table system posting the same readings again lapses nothing.
    held = {"id": current["id"], "state": current["state"]}
    return {"round": held, "seat": seat, "bets": bets, "meters": meters(run)}, {"seat": seat, "bets": bets}
