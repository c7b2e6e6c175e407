"""Group commit: the records one action writes together are committed in ONE transaction, and
never later than anything they describe: before the shoe is asked for the next stack, before the answer,
before the event feed publishes them. A batch that fails to commit (the disk, a power cut between
building and committing it) changes nothing: no answer, no event, and the restart recovers from the
journal, with every card the shoe moved journaled once.

Real parts: a real SQLite journal, the emulated shoe in process, the service's own threads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest

from shoe.journal import Entry, Journal, JournalError, Pending
from shoe.service import ServiceError, TableService
from shoe.service.errors import ErrorKind
from shoe.service.link.supervisor import LinkSupervisor
from tests.service.conftest import OBS, D, Table
from tests.service.recovery_support import OPEN, state_of, wait_until

SEATED = len(OPEN["seats"])


@contextmanager
def commits(service: TableService) -> Iterator[list[str]]:
    """The SQL COMMITs the service's journal connection runs inside (one per transaction, so one per fsync)."""
    journal = service._owner.sink.journal
    assert journal is not None and journal._conn is not None
    statements: list[str] = []
    journal._conn.set_trace_callback(statements.append)
    try:
        yield statements
    finally:
        journal._conn.set_trace_callback(None)
        statements[:] = [s for s in statements if s.strip().upper() == "COMMIT"]


def _to_settlement(service: TableService) -> None:
    """Open, deal, release the stub, every decision and reveal: the round waits for ``settle``."""
    service.submit("open-round", OPEN, D)
    for action in ("no-more-bets", "deal", "release-stub"):
        service.submit(action, {}, D)
    for index in (1, 2, 3, None):
        while (view := service.round_view(OBS)) is not None and view["next_to_decide"] is not None:
            service.submit("decide", {"seat": view["next_to_decide"], "multiple": 1}, D)
        if index is not None:
            service.submit("reveal", {"index": index}, D)
    assert state_of(service) == "settlement"


def _fail_write(
    monkeypatch: pytest.MonkeyPatch, hit: Callable[[Sequence[Pending]], bool], fail: Callable[[], None]
) -> None:
    """The first ``Journal.write`` whose batch ``hit`` matches calls ``fail`` instead of committing."""
    original, armed = Journal.write, [True]

    def write(journal: Journal, batch: Sequence[Pending]) -> list[Entry]:
        if armed[0] and hit(batch):
            armed[0] = False
            fail()
        return original(journal, batch)

    monkeypatch.setattr(Journal, "write", write)


def test_a_settle_commits_every_seat_and_the_close_in_one_transaction(table_factory: Callable[..., Table]) -> None:
    table = table_factory()
    service = table.start()
    _to_settlement(service)
    before = len(table.entries())
    with commits(service) as done:
        reply = service.submit("settle", {}, D)
    assert reply["state"] == "complete" and len(reply["lines"]) == SEATED
    written = table.entries()[before:]
    assert [e.kind for e in written] == ["settlement"] * SEATED + ["round-closed"]
    assert len(done) == 1, f"{len(written)} entries in {len(done)} transactions"
    assert len({e.hash for e in written}) == len(written)  # each its own row, with its own hash
    assert reply["cursor"] == written[-1].seq  # answered after the commit, with the events it made
    with Journal.open(table.journal) as journal:
        assert journal.verify().ok


def test_a_deal_commits_each_stack_before_the_shoe_is_asked_for_the_next(
    table_factory: Callable[..., Table], monkeypatch: pytest.MonkeyPatch
) -> None:
    """At every dispense the journal on disk (read by another connection) ends with that stack's order."""
    table = table_factory()
    service = table.start()
    service.submit("open-round", OPEN, D)
    service.submit("no-more-bets", {}, D)
    seen: list[tuple[str, Any, Any]] = []
    original = LinkSupervisor.dispense

    def dispense(supervisor: LinkSupervisor, size: int) -> Any:
        last = table.entries()[-1]
        seen.append((last.kind, last.data.get("action"), last.data.get("number")))
        return original(supervisor, size)

    monkeypatch.setattr(LinkSupervisor, "dispense", dispense)
    with commits(service) as done:
        reply = service.submit("deal", {}, D)
    assert len(reply["stacks"]) == SEATED
    assert seen == [("decision", "stack-for-seat", n) for n in range(1, SEATED + 1)]
    # the first order; then each stack's cards and record with the next order; the last stack's: one each
    assert len(done) == SEATED + 1, done


def test_a_batch_that_fails_to_commit_changes_nothing(
    table_factory: Callable[..., Table], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk fails at the settle's one commit: no answer, no event, nothing on disk; the restart settles."""
    table = table_factory()
    service = table.start()
    _to_settlement(service)
    cursor, journaled = service._feed.latest, len(table.entries())

    def disk() -> None:
        raise JournalError("injected: disk I/O error; check the disk")

    _fail_write(monkeypatch, lambda batch: any(p.kind == "settlement" for p in batch), disk)
    with pytest.raises(ServiceError) as failed:
        service.submit("settle", {}, D)
    assert (failed.value.code, failed.value.kind) == ("journal-error", ErrorKind.UNAVAILABLE)
    wait_until(lambda: not service.health()["service"]["running"])
    assert service._feed.since(cursor, 0.0)[1] == [], "the feed published entries that were never committed"
    assert len(table.entries()) == journaled
    view = service.round_view(OBS)
    assert view is not None and view["state"] == "settlement" and view["settled"] == []  # never shown settled
    monkeypatch.undo()
    second = table.start()
    assert state_of(second) == "settlement"
    reply = second.submit("settle", {}, D)
    assert reply["state"] == "complete" and len(reply["lines"]) == SEATED
    with Journal.open(table.journal) as journal:
        assert journal.verify().ok


def test_a_power_cut_between_building_and_committing_a_stacks_batch_recovers_the_stack_once(
    table_factory: Callable[..., Table], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The power goes with stack 2's cards, its record and the order of stack 3 built but not committed (the
    shoe has dispensed stack 2): none of them is on disk or in the feed; the restart reads stack 2 back from
    the shoe and journals its two cards once; the deal goes on."""
    table = table_factory("As", "Ad", "Kh", "Kd", "Qc", "Qd")
    service = table.start()
    service.submit("open-round", OPEN, D)
    service.submit("no-more-bets", {}, D)
    cursor, sink = service._feed.latest, service._owner.sink

    def power_cut() -> None:
        sink.killed = True
        assert sink.journal is not None
        sink.journal.close()
        raise JournalError("power cut")

    stack_2 = lambda batch: any(p.kind == "card" and p.data.get("dispense_id") == 2 for p in batch)  # noqa: E731
    _fail_write(monkeypatch, stack_2, power_cut)
    with pytest.raises(ServiceError):
        service.submit("deal", {}, D)
    service.kill()
    shown = [e for e in service._feed.since(cursor, 0.0)[1] if e.get("dispense_id") == 2 or e.get("number") == 3]
    assert shown == [], "the feed showed entries of a batch that was never committed"
    assert [e.data["dispense_id"] for e in table.entries(kinds=("card",))] == [1, 1]
    assert table.shoe.stats.cards_moved == 4
    monkeypatch.undo()
    second = table.start()
    assert state_of(second) == "dealing-stacks"
    cards = [(e.data["dispense_id"], e.data["card"]) for e in table.entries(kinds=("card",))]
    assert cards == [(1, "As"), (1, "Ad"), (2, "Kh"), (2, "Kd")]
    second.submit("deal", {}, D)
    second.submit("release-stub", {}, D)
    assert state_of(second) == "third-street" and table.shoe.stats.cards_moved == 6
    dealt = [e.data["dispense_id"] for e in table.entries(kinds=("card",))]
    assert dealt == [1, 1, 2, 2, 3, 3]
    with Journal.open(table.journal) as journal:
        assert journal.verify().ok
