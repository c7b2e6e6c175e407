"""The round view is computed again only when the round changed: after every action of a round,
and of a round paused, resumed and voided, the view the owner shows equals one computed afresh."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shoe.rules.profiles import Irregularity
from shoe.service import TableService
from shoe.service.journal.secrecy import mississippi_view
from shoe.service.rounds.intents import drive
from shoe.service.rounds.mississippi import MississippiRun
from tests.service.conftest import OBS, D, Table, finish_streets
from tests.service.recovery_support import OPEN


def _fresh(service: TableService) -> dict[str, Any]:
    run = service._owner.desk.run
    assert isinstance(run, MississippiRun)
    return {**mississippi_view(run.r, run.meta()), "closed": run.closed}


def _shown(service: TableService) -> dict[str, Any]:
    view = service.round_view(OBS)
    assert view is not None
    return {k: v for k, v in view.items() if k != "actions"}


def test_the_view_shown_after_every_action_is_the_view_computed_afresh(table_factory: Callable[..., Table]) -> None:
    table = table_factory()
    service = table.start()
    steps = [("open-round", OPEN), ("no-more-bets", {}), ("deal", {}), ("release-stub", {})]
    for action, params in steps:
        service.submit(action, params, D)
        assert _shown(service) == _fresh(service), action
    for reply in finish_streets(service, {}):
        assert _shown(service) == _fresh(service), reply
    assert _shown(service)["state"] == "complete" and _shown(service)["closed"] is True


def test_a_pause_and_a_void_change_the_view(table_factory: Callable[..., Table]) -> None:
    table = table_factory()
    service = table.start()
    service.submit("open-round", OPEN, D)
    service.submit("no-more-bets", {}, D)
    run = service._owner.desk.run
    assert isinstance(run, MississippiRun)
    before = run.view()
    drive(run.pause(Irregularity.LINK_LOST, "a test pause"), service._owner.desk)  # the owner thread is idle meanwhile
    assert run.view() != before and run.view()["paused"] is True
    assert run.view() == {**mississippi_view(run.r, run.meta()), "closed": run.closed}
    drive(run.resume(), service._owner.desk)
    service._owner.after()
    service.submit("void", {"cause": "other"}, D)
    assert _shown(service) == _fresh(service) and _shown(service)["misdeal"] is not None
