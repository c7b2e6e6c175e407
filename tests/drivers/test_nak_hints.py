"""Each BAD_STATE refusal gets its own hint: the shoe says only "not now", so the
client reads STATUS and names what is in the way and what to do, instead of always asking whether a
stack waits in the tray. Through the real client and the in-process emulator."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from drivers.client import ShoeClient
from drivers.emu_transport import EmulatorTransport
from drivers.emulator import EmulatedShoe, EmulatorConfig
from drivers.errors import ShoeProtocolError
from protocols.codes import FaultCode, NakCode


@pytest.fixture
def rig() -> Iterator[tuple[EmulatedShoe, ShoeClient]]:
    shoe = EmulatedShoe(EmulatorConfig(seed=3, auto_take=False))
    client = ShoeClient(EmulatorTransport(shoe, owns_shoe=True))
    client.connect()
    try:
        yield shoe, client
    finally:
        client.close()


def _refused(call: object) -> ShoeProtocolError:
    with pytest.raises(ShoeProtocolError) as refused:
        call()  # type: ignore[operator]
    assert refused.value.nak is NakCode.BAD_STATE
    return refused.value


def test_stack_waiting_in_the_tray(rig: tuple[EmulatedShoe, ShoeClient]) -> None:
    _shoe, client = rig
    client.dispense(2)
    hint = _refused(lambda: client.dispense(2)).hint
    assert "tray" in hint and "take" in hint


def test_stub_not_released_before_a_scan(rig: tuple[EmulatedShoe, ShoeClient]) -> None:
    _shoe, client = rig
    hint = _refused(lambda: client.scan(timeout=0.2)).hint
    assert "release the stub" in hint and "tray" not in hint


def test_stub_released_before_a_dispense(rig: tuple[EmulatedShoe, ShoeClient]) -> None:
    _shoe, client = rig
    client.release_stub()
    hint = _refused(lambda: client.dispense(2)).hint
    assert "stub" in hint and "load a shuffled deck" in hint and "tray" not in hint


def test_stub_already_released(rig: tuple[EmulatedShoe, ShoeClient]) -> None:
    _shoe, client = rig
    client.release_stub()
    hint = _refused(client.release_stub).hint
    assert "already released" in hint and "tray" not in hint


def test_empty_shoe() -> None:
    shoe = EmulatedShoe(EmulatorConfig(deck=("As", "Kd", "7c")))
    with ShoeClient(EmulatorTransport(shoe, owns_shoe=True)) as client:
        client.connect()
        client.dispense(2)
        hint = _refused(lambda: client.dispense(2)).hint
        assert "1 card" in hint and "load a shuffled deck" in hint and "tray" not in hint


def test_door_open(rig: tuple[EmulatedShoe, ShoeClient]) -> None:
    shoe, client = rig
    shoe.open_door()
    hint = _refused(lambda: client.clear_fault(FaultCode.DOOR_OPEN)).hint
    assert "close the door" in hint and "tray" not in hint


def test_each_refusal_has_its_own_hint(rig: tuple[EmulatedShoe, ShoeClient]) -> None:
    _shoe, client = rig
    hints = {_refused(lambda: client.scan(timeout=0.2)).hint}
    client.dispense(2)
    hints.add(_refused(lambda: client.dispense(2)).hint)
    assert len(hints) == 2
