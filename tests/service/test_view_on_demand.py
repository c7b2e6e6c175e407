"""The round's view is built when someone reads it, from committed state only (shoe.service.snapshots).

Through the real service on the emulated shoe: a round nobody reads builds no view; a read builds it
once per owner item at most; while a reader has asked recently the owner builds it after each item
(a display never waits for a deal); a reader never builds from a round the owner is changing, and an
owner that ended shows only what it had built.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from shoe.service import TableService, snapshots
from tests.service.conftest import D, Table, play_ny


def _shown(service: object) -> snapshots.Snapshots:
    return service._owner.shown  # type: ignore[attr-defined, no-any-return]


def _open(service: TableService, *seats: int) -> None:
    service.submit("open-round", {"game": "mississippi-stud", "jurisdiction": "NY",
                                  "table": {"min_ante": 100, "max_ante": 10_000},
                                  "seats": [{"seat": s, "ante": 100} for s in seats]}, D)  # fmt: skip


def test_a_round_nobody_reads_builds_no_view(table_factory: Callable[..., Table]) -> None:
    service = table_factory().start()
    shown = _shown(service)
    _open(service, 1, 2)
    for action in ("no-more-bets", "deal", "release-stub"):
        service.submit(action, {}, D)
    assert shown.views_built == 0
    view = service.round_view(D)
    assert view is not None and view["state"] not in ("open-for-wagers", "no-more-bets")
    assert shown.views_built == 1
    service.round_view(D)  # nothing changed since: the same view, not built again
    assert shown.views_built == 1


def test_a_reader_keeps_the_owner_building_after_each_item(table_factory: Callable[..., Table]) -> None:
    service = table_factory().start()
    shown = _shown(service)
    assert service.round_view(D) is None  # no round yet: asked now
    before = shown.views_built
    _open(service, 1)
    assert shown.views_built > before  # built by the owner, after its item, without a read
    built = shown.views_built
    view = service.round_view(D)
    assert view is not None and view["state"] == "open-for-wagers" and shown.views_built == built


def test_each_read_after_an_action_shows_that_action(
    table_factory: Callable[..., Table], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Never eager (WANTED_S 0): every view comes from a reader's build, and it is the state just answered."""
    monkeypatch.setattr(snapshots, "WANTED_S", 0.0)
    service = table_factory().start()
    seen = []
    for action, params in [
        ("open-round", {"game": "mississippi-stud", "jurisdiction": "NY", "table": {"min_ante": 100,
                        "max_ante": 10_000}, "seats": [{"seat": 1, "ante": 100}]}),
        ("no-more-bets", {}),
        ("deal", {}),
        ("release-stub", {}),
    ]:  # fmt: skip
        service.submit(action, params, D)
        view = service.round_view(D)
        assert view is not None
        seen.append((view["state"], len(view["settled"])))
    assert seen[0][0] == "open-for-wagers" and len({state for state, _ in seen}) == 4
    assert _shown(service).views_built == 4


def test_a_reader_waits_for_the_owners_item_and_never_builds_from_it(
    table_factory: Callable[..., Table], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(snapshots, "WANTED_S", 0.0)
    service = table_factory().start()
    shown = _shown(service)
    _open(service, 1)
    got: list[object] = []
    shown.busy.acquire()  # as the owner does for an item: the round may be changing
    try:
        reader = threading.Thread(target=lambda: got.append(service.round_view(D)))
        reader.start()
        time.sleep(0.3)
        assert got == [] and shown.views_built == 0  # it waits; it built nothing meanwhile
    finally:
        shown.busy.release()
    reader.join(5)
    assert len(got) == 1 and isinstance(got[0], dict) and got[0]["state"] == "open-for-wagers"
    assert shown.views_built == 1


def test_a_busy_owner_past_the_wait_leaves_the_last_view_built(
    table_factory: Callable[..., Table], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(snapshots, "WANTED_S", 0.0)
    monkeypatch.setattr(snapshots, "BUSY_WAIT_S", 0.1)
    service = table_factory().start()
    shown = _shown(service)
    _open(service, 1)
    first = service.round_view(D)
    assert first is not None and first["state"] == "open-for-wagers"
    service.submit("no-more-bets", {}, D)
    with shown.busy:  # the next item is running
        stale = service.round_view(D)
    assert stale == first  # the last view built: committed state, if not the latest
    latest = service.round_view(D)
    assert latest is not None and latest["state"] != "open-for-wagers"


def test_an_owner_that_ended_shows_only_what_it_built(table_factory: Callable[..., Table]) -> None:
    service = table_factory().start()
    shown = _shown(service)
    play_ny(service, {1: 100})
    view = service.round_view(D)
    assert view is not None
    built = shown.views_built
    with shown.busy:
        shown.freeze()
        shown.publish_round(None)  # a later publish (memory that may be ahead of the journal)
    assert service.round_view(D) == view and shown.views_built == built
