"""The two recovery bugs the crash loop (``test_crash_e2e.py``) can meet, pinned deterministically, in process:
a power cut between two journal writes of one command cannot be timed from outside the process."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from shoe.journal import Journal
from tests.e2e.support import FULL_DECK, deck
from tests.service.powercut import Hit, power_cut_before


def _service(tmp_path: Path, shoe: Any) -> Any:
    from drivers.emu_transport import EmulatorTransport
    from drivers.timeouts import LinkTimeouts
    from shoe.service import ServiceConfig, TableService

    timeouts = LinkTimeouts(reply=0.3, reconnect_initial=0.02, reconnect_max=0.2, reconnect_give_up=5.0)
    config = ServiceConfig(shoe_port="emu://", journal=tmp_path / "journal.sqlite", timeouts=timeouts)
    service = TableService(config, transport_factory=lambda: EmulatorTransport(shoe))
    service.start()
    return service


def _ny_round_to(service: Any, last: str) -> None:
    from shoe.service import Role, ServiceError

    seats = [{"seat": 1, "ante": 500}, {"seat": 2, "ante": 500}]
    service.submit("open-round", {"game": "mississippi-stud", "jurisdiction": "NY", "seats": seats}, Role.DEALER)
    for action in ("no-more-bets", "deal", "release-stub"):
        try:
            service.submit(action, {}, Role.DEALER)
        except ServiceError as exc:
            assert (action, exc.code) == (last, "journal-error"), exc
            return
    raise AssertionError(f"the power cut during {last!r} never happened: the test would prove nothing")


@contextmanager
def _restarted_after_power_cut(tmp_path: Path, shoe: Any, last: str, hit: Hit) -> Iterator[Any]:
    """Play the NY round up to ``last`` with the power going before the first journal write that ``hit``
    matches, kill the service, and yield a new one on the same journal and shoe; then stop it, close the shoe."""
    with power_cut_before(hit):
        first = _service(tmp_path, shoe)
        _ny_round_to(first, last)
        first.kill()
    second = _service(tmp_path, shoe)
    try:
        yield second
    finally:
        second.stop()
        shoe.close()


def test_a_stack_recovered_after_its_cards_were_journaled_is_not_journaled_twice(tmp_path: Path) -> None:
    from drivers.emulator import EmulatedShoe, EmulatorConfig

    shoe = EmulatedShoe(EmulatorConfig(deck=deck("As", "Ad", "Kh", "Kd")))
    with _restarted_after_power_cut(
        tmp_path, shoe, "deal", lambda kind, data: data.get("action") == "stack-dealt" and data.get("dispense_id") == 2
    ):
        with Journal.open(tmp_path / "journal.sqlite") as journal:
            cards = [e.data["card"] for e in journal.entries(kinds=("card",))]
        assert shoe.stats.cards_moved == 4
        assert cards == ["As", "Ad", "Kh", "Kd"], cards


def test_a_restart_between_the_stub_count_and_the_community_cards_carries_on(tmp_path: Path) -> None:
    from drivers.emulator import EmulatedShoe, EmulatorConfig
    from shoe.service import Role

    shoe = EmulatedShoe(EmulatorConfig(deck=FULL_DECK))
    with _restarted_after_power_cut(
        tmp_path, shoe, "release-stub", lambda kind, data: data.get("action") == "community-dealt"
    ) as second:
        view = second.round_view(Role.OBSERVER)
        assert view is not None and view["state"] == "third-street" and view["next_to_decide"] == 1, view
