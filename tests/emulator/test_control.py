"""The emulator's control socket (``drivers/emulator/control.py``): the dealer's load from another process."""

from __future__ import annotations

from pathlib import Path

import pytest

from drivers.emulator import EmulatedShoe, EmulatorConfig
from drivers.emulator.control import ControlError, ControlServer, deck_query, load_deck_at, send_control
from drivers.emulator.deck import DeckLoad


def test_control_loads_pings_and_refuses_with_reasons(tmp_path: Path) -> None:
    shoe = EmulatedShoe(EmulatorConfig(deck=("As", "Kd")))
    server = ControlServer(shoe, tmp_path / "ctl")
    try:
        assert send_control(server.path, "ping") == {"ok": True}
        with pytest.raises(ControlError, match="unknown control 'jam'"):
            send_control(server.path, "jam 3")
        with pytest.raises(ControlError, match="release the stub first"):
            load_deck_at(server.path, DeckLoad(seed=1))
        with pytest.raises(ControlError, match="unknown deck option 'color'"):
            send_control(server.path, "load color=red")
        assert load_deck_at(server.path, DeckLoad(seed=1, mid_round=True)) == 54
        reply = send_control(server.path, "load mid_round=1&short=2&back=red")
        assert reply == {"loaded": 104, "back": "red"} and "order" not in reply
    finally:
        server.close()
        shoe.close()
    assert not (tmp_path / "ctl").exists()
    with pytest.raises(ControlError, match="did not answer"):
        send_control(tmp_path / "ctl", "ping", timeout=1.0)


def test_the_query_form_round_trips() -> None:
    deck = DeckLoad(seed=3, back="blue", short=1, duplicate=2, foreign=1, extra=1, mid_round=True)
    assert DeckLoad.from_query(deck_query(deck)) == deck
    ordered = DeckLoad(order=("As", "Kd"))
    assert DeckLoad.from_query(deck_query(ordered)) == ordered
