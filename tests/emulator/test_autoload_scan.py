"""A released stub stays scannable after the next deck is loaded: with ``autoload`` the emulator
loads the next deck right after RELEASE_STUB, while the dealer still holds the stub whose cards a
Mississippi round turns over at its reveals (the shoe's reader scans them)."""

from __future__ import annotations

from drivers.client import ShoeClient
from drivers.emu_transport import EmulatorTransport
from drivers.emulator import EmulatedShoe, EmulatorConfig
from shoe.cards import FULL_DECK


def test_the_stub_is_scanned_after_the_next_deck_is_loaded() -> None:
    order = tuple(c.code for c in FULL_DECK)
    shoe = EmulatedShoe(EmulatorConfig(deck=order, autoload=True, seed=3))
    try:
        with ShoeClient(EmulatorTransport(shoe)) as client:
            client.connect()
            stack = client.dispense(2)
            assert client.release_stub() == 50
            assert [client.scan(2.0).card for _ in range(3)] == list(order[2:5])  # after the autoload
            assert client.status().cards_remaining == 52 and list(stack.codes) == list(order[:2])
    finally:
        shoe.close()
