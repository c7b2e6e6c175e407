"""The operational log's levels: library chatter stays out of an INFO log (shoe/logsetup.py)."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from transitions import Machine

from shoe import logsetup
from tests.service.conftest import D


def _run_a_machine() -> None:
    class Door:
        pass

    door = Door()
    Machine(model=door, states=["shut", "open"], transitions=[["open_door", "shut", "open"]], initial="shut")
    door.open_door()  # type: ignore[attr-defined]


@pytest.mark.parametrize(("level", "expect_callbacks"), [("info", False), ("warning", False), ("debug", True)])
def test_transitions_state_callbacks_are_logged_only_at_debug(level: str, expect_callbacks: bool) -> None:
    log = io.StringIO()
    try:
        logsetup.configure(level, json_lines=True, stream=log)
        _run_a_machine()
    finally:
        logsetup.configure("warning")
    events = [json.loads(line)["event"] for line in log.getvalue().splitlines()]
    callbacks = [e for e in events if "callbacks" in e]
    assert bool(callbacks) is expect_callbacks, events


def test_an_info_log_has_no_line_per_accepted_action_but_one_per_round(table_factory: Any) -> None:
    """``action accepted`` (one per action, ~20 a round, which the journal records) only at debug."""
    from tests.service.conftest import play_ny

    log = io.StringIO()
    try:
        logsetup.configure("info", json_lines=True, stream=log)
        table = table_factory()
        service = table.start()
        play_ny(service, {1: 100})
    finally:
        logsetup.configure("warning")
    events = [json.loads(line)["event"] for line in log.getvalue().splitlines()]
    assert "action accepted" not in events, events
    assert events.count("round closed") == 1, events


def test_a_debug_log_has_a_line_per_accepted_action(table_factory: Any) -> None:
    """The line is only at debug, and there it still is: below debug it is skipped unbuilt."""
    log = io.StringIO()
    try:
        logsetup.configure("debug", json_lines=True, stream=log)
        service = table_factory().start()
        service.submit("open-round", {"game": "mississippi-stud", "jurisdiction": "NY",
                                      "seats": [{"seat": 1, "ante": 500}]}, D)  # fmt: skip
    finally:
        logsetup.configure("warning")
    accepted = [e for e in map(json.loads, log.getvalue().splitlines()) if e["event"] == "action accepted"]
    assert [(e["action"], e["level"]) for e in accepted] == [("open-round", "debug")], accepted


def test_the_service_is_ready_before_the_hand_tables_are_built(table_factory: Any, monkeypatch: Any) -> None:
    """Building the evaluator's tables (~0.8 s) does not delay READY; a round's first use waits."""
    import threading

    from shoe.hands import tables
    from shoe.service import core

    release = threading.Event()
    real = tables._build
    monkeypatch.setattr(core, "TABLES_AFTER_S", 0.0)  # at once after READY
    monkeypatch.setattr(tables, "CLASSES", [])  # not built in this process, whatever ran before
    monkeypatch.setattr(tables, "_build", lambda: (release.wait(10), real()))
    table = table_factory()
    service = table.start()  # returns at READY
    try:
        assert service is not None and not tables.is_built()
    finally:
        release.set()
    service.stop()  # joins the build
    assert tables.is_built()


def test_the_hand_tables_wait_a_moment_after_ready_and_a_quick_stop_builds_none(
    table_factory: Any, monkeypatch: Any
) -> None:
    """The build took the GIL from the boot's last steps (the link's resync) and the first requests."""
    from shoe.hands import tables

    built: list[int] = []
    monkeypatch.setattr(tables, "CLASSES", [])
    monkeypatch.setattr(tables, "_build", lambda: built.append(1))
    service = table_factory().start()
    assert not built  # READY, and the build has not begun
    service.stop()  # within TABLES_AFTER_S of READY
    assert not built


def test_a_line_below_the_level_runs_no_processor(monkeypatch: pytest.MonkeyPatch) -> None:
    """A debug line on a hot path at the info level costs a level check, not structlog's chain."""
    import structlog

    ran: list[str] = []

    def counting(logger: object, method: str, event: Any) -> Any:
        ran.append(event["event"])
        return event

    monkeypatch.setattr(logsetup, "boot_ids_in_hex", counting)
    log = io.StringIO()
    try:
        logsetup.configure("info", json_lines=True, stream=log)
        logger = structlog.get_logger("shoe.test")
        logger.debug("below the level", big=list(range(10)))
        logger.info("at the level")
    finally:
        logsetup.configure("warning")
    assert ran == ["at the level"]
    assert [json.loads(line)["event"] for line in log.getvalue().splitlines()] == ["at the level"]
