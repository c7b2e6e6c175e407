"""Shared helpers of the whole-round end-to-end tests: expected event flows, the event stream of one round,
the journal checked through ``shoectl``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tests.e2e.conftest import Table
from tests.e2e.support import Api, EventStream, duplicates

GameFlow = list[str]


def deal_events(stacks: int) -> GameFlow:
    """Each stack (a stud card is a stack of one) is announced, then recorded."""
    return ["stack-for-seat", "stack-dealt"] * stacks


def round_events(stream: EventStream, round_id: str) -> list[dict[str, Any]]:
    stream.wait_for(lambda e: e.get("type") == "round-closed" and e.get("round_id") == round_id)
    assert not stream.problems, stream.problems
    return [e for e in stream.events if e.get("round_id") == round_id]


def verify_journal(table: Table, round_id: str) -> None:
    """``shoectl journal verify`` exits 0 and no card of the round is journaled twice."""
    verify = table.shoectl("journal", "verify", "--journal", str(table.journal))
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "chain intact" in verify.stdout
    assert not duplicates(table.entries(round_id=round_id))


def show_round(table: Table, round_id: str, order: Sequence[tuple[str, int | None, str]]) -> dict[str, Any]:
    """``shoectl journal show --round`` lists the round's cards in dealing order."""
    show = table.shoectl("--json", "journal", "show", "--journal", str(table.journal), "--round", round_id)
    assert show.returncode == 0, show.stdout + show.stderr
    shown: dict[str, Any] = json.loads(show.stdout)
    assert shown["integrity"]["ok"] is True
    assert [(c["target"], c["seat"], c["card"]) for c in shown["dealing_order"]] == list(order)
    assert [c["index"] for c in shown["dealing_order"]] == list(range(1, len(order) + 1))
    return shown


def current(api: Api) -> dict[str, Any]:
    view = api.round()
    assert view is not None, "no round"
    return view
