"""SPEC §9: card identities are secret. The emulator logs counts and ids, never a card."""

from __future__ import annotations

import re

import pytest
from structlog.testing import capture_logs

from drivers.emulator import serve_pty
from protocols import messages as m
from protocols.cards import ALL_CODES
from protocols.codes import FaultCode
from tests.emulator import Factory, shoe_factory

new = pytest.fixture(shoe_factory)
CARD = re.compile(r"(?<![A-Za-z0-9])[2-9TJQKA][cdhs](?![A-Za-z0-9])")


def test_no_card_identity_reaches_the_log(new: Factory) -> None:
    with capture_logs() as logs:
        shoe, host = new(seed=4, unreadable_at=(3,), jam_at=9, door_open=True)
        shoe.close_door()
        for dispense_id in range(1, 4):
            host.call(m.Dispense(dispense_id, 4))
            host.call(m.Dispense(dispense_id, 4))
        host.call(m.ClearFault(0))
        host.call(m.DeckCheck(), m.DeckReport)
        host.call(m.ReleaseStub(), m.StubReleased)
        host.call(m.Scan(0), m.ScanResult)
        shoe.load(ALL_CODES)
        shoe.inject_fault(FaultCode.TAMPER)
        host.nak(m.Dispense(9, 1))
        shoe.unplug()
        shoe.replug()
        shoe.power_cycle()
        serve_pty(shoe).close()
    assert len(logs) > 10
    for entry in logs:
        for key, value in entry.items():
            assert not CARD.search(f"{key}={value}"), entry
