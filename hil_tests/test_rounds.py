"""Many rounds through the table service (``TableService`` in this process, its shoe the target), then the
books are balanced: the shoe's lifetime counters moved by exactly the cards and stacks the journal holds,
every stack the journal records has all its cards, and the journal's hash chain verifies.

- double dispenses = cards the shoe counted into the tray - card entries the journal holds for dispenses;
- lost card events = cards of the stacks the journal records - their card entries in the journal.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from hil_tests.bench import Target
from hil_tests.report import Report
from protocols import messages as m
from shoe.cards import FULL_DECK
from shoe.journal import Journal
from shoe.service import Role, ServiceConfig, ServiceError, TableService

D = Role.DEALER
RETRY = frozenset({"paused", "shoe-unavailable", "busy"})
"""Refusals that mean "not now": the link is down or the round is paused until it is reconciled."""
ACTIONS = {
    "open-round": "one per round",
    "no-more-bets": "one per round",
    "deal": "one per round: every seat's stack in one request",
    "release-stub": "one per round, after its last stack",
    "decide": "one per decision of a seat still in, on each street",
    "reveal": "one per community card turned; a round whose seats have all folded turns no more",
    "settle": "one per round that reached settlement; a round whose seats all folded closes without one",
}
"""What one sample of ``shoed ACTION`` latency is: the explanation of its count in the report."""


@dataclass
class Table:
    """The table service on the target's port, driven as a dealer would, one action at a time."""

    target: Target
    journal: Path
    report: Report
    rng: random.Random = field(default_factory=lambda: random.Random(7))
    service: TableService | None = None
    deal_s: float = 0.0
    measure: bool = True
    """Record each action's latency in the report (not while faults are injected)."""
    endings: dict[str, int] = field(default_factory=dict)
    """How the rounds ``finish_round`` took to their end ended: settled, every seat folded, ..."""

    def start(self) -> None:
        timing = self.target.bench.timing
        config = ServiceConfig(shoe_port=self.target.port, journal=self.journal, timeouts=timing.timeouts,
                               key_file=self.target.key_file,
                               take_timeout=timing.take_s, submit_timeout=60.0, table="hil")  # fmt: skip
        self.service = TableService(config)
        self.service.start()

    def stop(self) -> None:
        if self.service is not None:
            self.service.stop()

    def submit(self, action: str, params: Mapping[str, Any] | None = None, *, patience: float = 60.0) -> Any:
        assert self.service is not None
        deadline = time.monotonic() + patience
        while True:
            started = time.monotonic()
            try:
                reply = self.service.submit(action, params or {}, D)
            except ServiceError as exc:
                if exc.code not in RETRY or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
                continue
            if self.measure:
                self.report.latency(f"shoed {action}", time.monotonic() - started)
                self.report.explain(f"shoed {action}", ACTIONS.get(action, "one per request") + " (submit to reply)")
            if action == "deal":
                self.deal_s += time.monotonic() - started
            return reply

    def view(self) -> dict[str, Any] | None:
        assert self.service is not None
        return self.service.round_view(D)

    def open_round(self, seats: int = 3) -> str:
        chosen = sorted(self.rng.sample(range(1, 7), seats))
        antes = [{"seat": s, "ante": self.rng.choice((100, 500, 1000, 2500))} for s in chosen]
        reply = self.submit("open-round", {"game": "mississippi-stud", "jurisdiction": "NY",
                                           "table": {"min_ante": 100, "max_ante": 10_000}, "seats": antes})  # fmt: skip
        return str(reply["round_id"])

    def finish_round(self, patience: float = 60.0) -> dict[str, Any]:
        """Take the open round to its end from wherever it is (a pause waits for the link); the last view."""
        deadline = time.monotonic() + patience
        settled = False
        while (view := self.view()) is not None and not view["closed"]:
            if time.monotonic() > deadline:
                raise AssertionError(f"the round is stuck in {view['state']} (paused: {view['paused']})")
            step = self.next_step(view)
            if step is None:
                time.sleep(0.05)  # paused: the service resumes the round once the link is reconciled
                continue
            self.submit(*step)
            settled = settled or step[0] == "settle"
        assert view is not None
        if settled:
            ending = "settled"
        elif view["seats"] and all(s["status"] == "folded" for s in view["seats"].values()):
            ending = "every seat folded"
        else:
            ending = f"closed {view['state']} without a settle"
        self.endings[ending] = self.endings.get(ending, 0) + 1
        return view

    def next_step(self, view: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
        if view["paused"]:
            return None
        if view["state"] == "open-for-wagers":
            return "no-more-bets", {}
        if view["next_stack_seat"] is not None:
            return "deal", {}
        if view["state"] in ("no-more-bets", "dealing-stacks"):
            return "release-stub", {}
        if view["next_to_decide"] is not None:
            legal = list(view["legal_decisions"])
            multiple = (
                0 if 0 in legal and self.rng.random() < 0.15 else self.rng.choice([x for x in legal if x] or legal)
            )
            return "decide", {"seat": view["next_to_decide"], "multiple": multiple}
        if view["next_reveal"] is not None:
            return "reveal", self.reveal_params(view)
        return "settle", {}

    def reveal_params(self, view: Mapping[str, Any]) -> dict[str, Any]:
        params: dict[str, Any] = {"index": view["next_reveal"]}
        if not self.target.bench.has("scan"):  # the dealer enters a card nobody holds
            with Journal.open(self.journal) as journal:
                seen = {e.data.get("card") for e in journal.entries(round_id=view["round_id"], kinds=("card",))}
            params["card"] = next(c.code for c in FULL_DECK if c.code not in seen)
        return params


@dataclass(frozen=True)
class Books:
    double_dispenses: int
    lost_card_events: int
    cards: int
    stacks: int
    shoe_stacks: int
    unreadable: int
    reads: int
    rounds: dict[str, str]
    verified: bool
    problem: str | None


def balance(journal_path: Path, before: m.Counters, after: m.Counters) -> Books:
    """The shoe's counters against the journal (see the module's docstring)."""
    with Journal.open(journal_path) as journal:
        entries = list(journal.entries())
        check = journal.verify()
        rounds = {r["round_id"]: r["closed"] for r in journal.rounds()}
    cards = [e.data for e in entries if e.kind == "card"]
    dispensed = [c for c in cards if c.get("dispense_id") is not None]
    steps = [(e.round_id, e.data) for e in entries if e.kind == "decision"]
    sizes = {(r, d["number"]): d["size"] for r, d in steps if d.get("action") == "stack-for-seat"}
    recorded = {d["dispense_id"]: sizes[(r, d["number"])] for r, d in steps if d.get("action") == "stack-dealt"}
    per_stack: dict[int, int] = {}
    for card in dispensed:
        per_stack[card["dispense_id"]] = per_stack.get(card["dispense_id"], 0) + 1
    return Books(
        double_dispenses=(after.cards - before.cards) - len(dispensed),
        lost_card_events=sum(max(0, size - per_stack.get(i, 0)) for i, size in recorded.items()),
        cards=len(dispensed),
        stacks=len(per_stack),
        shoe_stacks=after.stacks - before.stacks,
        unreadable=sum(1 for c in cards if c.get("status") != "ok"),
        reads=len(cards),
        rounds=rounds,
        verified=check.ok,
        problem=check.problem,
    )


def counters(target: Target) -> m.Counters:
    with target.connect() as conn:
        return conn.client.counters()


def test_rounds_reconcile_with_the_journal(target: Target, hil_report: Report, tmp_path: Path) -> None:
    rounds = target.bench.rounds
    before = counters(target)
    table = Table(target, tmp_path / "journal.sqlite", hil_report)
    table.start()
    started = time.monotonic()
    reload_s = 0.0
    try:
        for number in range(rounds):
            if number:
                reload_started = time.monotonic()
                target.load_deck()
                reload_s += time.monotonic() - reload_started
            table.open_round(seats=3)
            assert table.finish_round()["state"] == "complete"
        assert table.service is not None
        histogram = table.service.metrics_snapshot()["histograms"]["event_latency_seconds"]
        hil_report.histogram("shoed card read to journal", histogram)
        hil_report.explain("shoed card read to journal", "one per card read event shoed journaled in these rounds "
                           "(its event_latency_seconds histogram)")  # fmt: skip
    finally:
        table.stop()
    playing_s = time.monotonic() - started - reload_s
    books = balance(tmp_path / "journal.sqlite", before, counters(target))
    hil_report.dealt(books.cards, table.deal_s)
    hil_report.played(rounds, playing_s, table.endings)
    hil_report.reads(books.reads, books.unreadable)
    assert books.verified, books.problem
    assert (books.double_dispenses, books.lost_card_events) == (0, 0)
    assert books.shoe_stacks == books.stacks == books.cards // 2 and books.cards >= 6 * rounds
    assert list(books.rounds.values()) == ["complete"] * rounds


@pytest.mark.destructive
@pytest.mark.needs("unplug")
def test_a_round_survives_an_unplug_in_the_middle_of_the_deal(
    target: Target, hil_report: Report, tmp_path: Path
) -> None:
    by = target.arrange({"timing": "realistic"}, "")  # 0.25 s a card: six stacks take three seconds
    before = counters(target)
    table = Table(target, tmp_path / "journal.sqlite", hil_report, measure=False)
    table.start()
    try:
        table.open_round(seats=6)
        table.submit("no-more-bets")
        failures: list[BaseException] = []

        def deal() -> None:
            try:
                table.submit("deal")
            except BaseException as exc:  # reported by the main thread
                failures.append(exc)

        dealer = threading.Thread(target=deal, name="hil-deal")
        dealer.start()
        time.sleep(0.8)  # the second or third stack is on its way
        with hil_report.fault("unplug mid-deal (shoed)", by) as record:
            target.unplug_replug()
            dealer.join(timeout=120)
            assert not failures or isinstance(failures[0], ServiceError), failures
            final = table.finish_round(patience=120)
            table.stop()
            books = balance(tmp_path / "journal.sqlite", before, counters(target))
            record.double_dispenses, record.lost_card_events = books.double_dispenses, books.lost_card_events
            record.detail = f"round {final['state']}"
            assert books.verified, books.problem
            assert (books.double_dispenses, books.lost_card_events) == (0, 0)
            assert books.shoe_stacks == books.stacks
            assert final["state"] == "complete", "one stack in doubt is reconciled, so the round goes on"
        with Journal.open(tmp_path / "journal.sqlite") as journal:
            links = [e.data["event"] for e in journal.entries(kinds=("link",))]
        assert "lost" in links and "resynced" in links[links.index("lost") :]
    finally:
        table.stop()
