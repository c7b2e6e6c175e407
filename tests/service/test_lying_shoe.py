"""The table service and a lying or broken shoe.

A man in the middle (``drivers.emulator.mitm``) sits between ``shoed``'s owner and the emulated shoe:
valid frames, correct CRCs. A contradiction is an alarm (a ``fault`` entry) and a misdeal (the round is
voided, ``shoe-discrepancy``), never a guess; every card the shoe moved is journaled or counted by an
alarm. At start, a shoe ahead of its journal is an alarm that refuses rounds until a technician
acknowledges it; a shoe behind (a fresh emulator) is journaled and fine.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest

from drivers.client import ShoeClient
from drivers.emu_transport import EmulatorTransport
from drivers.emulator import EmulatedShoe, EmulatorConfig
from drivers.emulator.mitm import ManInTheMiddle, MitmState, Rule, boot_id_says, card_reads_say, started_as, started_nak
from protocols.codes import DispensePhase, NakCode
from shoe.journal import Journal, JournalDataError
from shoe.service import ServiceError, TableService
from shoe.service.errors import ErrorKind
from tests.service.conftest import FAST, OBS, D, T, Table, deck
from tests.service.recovery_support import wait_until

OPEN = {"game": "mississippi-stud", "jurisdiction": "NY", "table": {"min_ante": 100, "max_ante": 10_000},
        "seats": [{"seat": 1, "ante": 500}]}  # fmt: skip
STUD = {"game": "seven-card-stud", "jurisdiction": "NJ", "table": {"ante": 25, "bring_in": 50, "small_bet": 100,
        "big_bet": 200}, "seats": [{"seat": 1}, {"seat": 3}]}  # fmt: skip


class LyingTable(Table):
    def __init__(self, tmp_path: Path, shoe: EmulatedShoe, rules: list[Rule]) -> None:
        self.rules, self.state = rules, MitmState()
        # What a plain (v1.0) link catches, on a bench that allows it: a port that is not the embedded emulator,
        # so the service makes no pairing key. tests/service/test_link_auth.py holds the authenticated link.
        super().__init__(tmp_path, shoe, self._transport, "socket://127.0.0.1:9")
        self.config = dataclasses.replace(self.config, allow_unauthenticated=True)

    def _transport(self) -> ManInTheMiddle:
        return ManInTheMiddle(EmulatorTransport(self.shoe), self.rules, state=self.state)

    def alarms(self) -> list[dict[str, Any]]:
        return [dict(e.data) for e in self.entries(kinds=("fault",)) if e.data.get("event") == "alarm"]

    def voids(self) -> list[dict[str, Any]]:
        return [dict(e.data) for e in self.entries(kinds=("irregularity",)) if e.data.get("action") == "void"]

    def card_entries(self) -> list[dict[str, Any]]:
        return [dict(e.data) for e in self.entries(kinds=("card",)) if e.data.get("dispense_id") is not None]

    def accounted(self) -> bool:
        """Every card the shoe moved is journaled, or counted by an alarm."""
        unjournaled = sum(a.get("unjournaled") or 0 for a in self.alarms())
        return self.shoe.stats.cards_moved == len(self.card_entries()) + unjournaled


@pytest.fixture
def lying(tmp_path: Path) -> Iterator[Any]:
    tables: list[LyingTable] = []

    def build(*rules: Rule, first: tuple[str, ...] = (), **config: Any) -> LyingTable:
        shoe = EmulatedShoe(EmulatorConfig(deck=deck(*first), **config))
        tables.append(LyingTable(tmp_path, shoe, list(rules)))
        return tables[-1]

    yield build
    for table in tables:
        for service in table.services:
            service.stop()
        table.shoe.close()


def _closed(table: LyingTable) -> dict[str, Any]:
    return dict(table.entries(kinds=("round-closed",))[-1].data)


def test_card_reads_against_the_stack_void_the_round_with_an_alarm(lying: Any) -> None:
    """CARD_READ said 2s 6s, STACK_READY 2c Kh: the service journaled and settled 2c Kh with no warning."""
    table = lying(card_reads_say(["2s", "6s"]), first=("2c", "Kh"))
    service = table.start()
    service.submit("open-round", OPEN, D)
    service.submit("no-more-bets", {}, D)
    reply = service.submit("deal", {}, D)
    assert reply["stacks"][0]["alarm"] == "card-read-mismatch"
    assert [a["cause"] for a in table.alarms()] == ["card-read-mismatch"]
    assert [v["cause"] for v in table.voids()] == ["shoe-discrepancy"]
    assert _closed(table)["outcome"] == "void"
    assert table.card_entries() == []  # neither version journaled as dealt
    assert table.accounted()
    view = service.round_view(OBS)
    assert view is not None and view["state"] == "misdeal"


def test_a_new_dispense_answered_complete_voids_the_round(lying: Any) -> None:
    table = lying(started_as(DispensePhase.COMPLETE, ["As", "Ad"]))
    service = table.start()
    service.submit("open-round", OPEN, D)
    service.submit("no-more-bets", {}, D)
    service.submit("deal", {}, D)
    assert [a["cause"] for a in table.alarms()] == ["phase-not-started"]
    assert _closed(table)["outcome"] == "void" and table.accounted()


def test_stud_refusal_although_the_card_moved_voids_the_hand(lying: Any) -> None:
    """Stud, NAK BUSY although the card moved: 19 cards moved, 18 journaled, and the hand went to showdown."""
    table = lying()
    service = table.start()
    service.submit("open-round", STUD, D)
    table.rules.append(started_nak(NakCode.BUSY))
    service.submit("deal", {}, D)
    assert [a["cause"] for a in table.alarms()] == ["refused-but-moved"]
    assert [v["cause"] for v in table.voids()] == ["shoe-discrepancy"]
    assert table.entries(kinds=("settlement",)) == []  # no showdown
    assert table.accounted() and table.shoe.stats.cards_moved == 1


def test_a_boot_id_that_comes_back_voids_the_round(lying: Any) -> None:
    """STATUS and IDENTITY with a new boot id: no pause, no warning. A boot id never returns."""
    table = lying()
    service = table.start()
    service.submit("open-round", OPEN, D)
    service.submit("no-more-bets", {}, D)
    table.rules.append(boot_id_says(0xDEADBEEF, times=1, while_dispensing=False))
    service.submit("deal", {}, D)
    # The lie is in a STATUS answered between dispenses: the new boot id starts a resynchronisation on its
    # own thread, whose answers name the old boot again, and that contradiction reaches the owner as a link
    # notice, which may be after the deal's answer (CI once read the alarms first).
    flapped = {"boot-id-flapped", "boot-id-mismatch"}
    wait_until(lambda: bool({a["cause"] for a in table.alarms()} & flapped and table.entries(kinds=("round-closed",))))
    assert _closed(table)["outcome"] == "void" and table.accounted()


# -- at start: the shoe's position against the journal's (break 5) --------------------------------------


def _round(service: TableService) -> None:
    service.submit("open-round", OPEN, D)
    service.submit("no-more-bets", {}, D)
    service.submit("deal", {}, D)
    service.submit("void", {"cause": "other"}, D)
    service.submit("release-stub", {}, D)


def test_a_shoe_ahead_of_its_journal_is_an_alarm_until_a_technician_acknowledges(lying: Any) -> None:
    table = lying()
    first = table.start()
    _round(first)
    first.stop()
    table.shoe.load(deck())
    with ShoeClient(EmulatorTransport(table.shoe), timeouts=FAST) as other:  # cards the journal never sees
        other.connect()
        other.dispense(2)
        other.release_stub()
    table.shoe.load(deck())
    second = table.start()
    alarms = table.alarms()
    assert [(a["cause"], a["blocking"]) for a in alarms] == [("shoe-ahead-of-journal", True)]
    with pytest.raises(ServiceError) as refused:
        second.submit("open-round", OPEN, D)
    assert refused.value.code == "shoe-alarm" and refused.value.kind == ErrorKind.CONFLICT
    real_write = Journal.write

    def refused(journal: Journal, batch: Any) -> Any:
        if any(p.kind == "technician" for p in batch):
            raise JournalDataError("injected: the acknowledgement cannot be journaled")
        return real_write(journal, batch)

    with patch.object(Journal, "write", refused), pytest.raises(ServiceError):
        second.submit("clear-fault", {}, T)
    with pytest.raises(ServiceError) as still:  # an acknowledgement the journal never saw changes nothing
        second.submit("open-round", OPEN, D)
    assert still.value.code == "shoe-alarm"
    assert second.submit("clear-fault", {}, T)["acknowledged"] == "shoe-ahead-of-journal"
    second.submit("open-round", OPEN, D)


def test_a_restart_on_the_same_shoe_is_not_an_alarm(lying: Any) -> None:
    table = lying()
    first = table.start()
    _round(first)
    first.kill()
    table.shoe.load(deck())
    table.start().submit("open-round", OPEN, D)
    assert table.alarms() == []


def test_a_fresh_shoe_behind_its_journal_is_journaled_and_fine(lying: Any, tmp_path: Path) -> None:
    table = lying()
    first = table.start()
    _round(first)
    first.stop()
    table.shoe.close()
    table.shoe = EmulatedShoe(EmulatorConfig(deck=deck()))  # the embedded emulator starts fresh every time
    second = table.start()
    positions = [e.data for e in table.entries(kinds=("link",)) if e.data.get("event") == "shoe-position"]
    assert [p["verdict"] for p in positions] == ["adopted", "behind"]
    assert all(p["authenticated"] is False and p["key_id"] is None for p in positions)  # a plain bench link
    second.submit("open-round", OPEN, D)
    assert table.alarms() == []
