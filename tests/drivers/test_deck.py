"""The host's deck cycle (drivers/deck.py, SPEC §11) over every access path: the emulated dealer loads a
deck, DECK_LOADED reaches subscribers, and the deck check names missing, extra, duplicate and foreign cards."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from drivers.client import ShoeClient
from drivers.deck import DeckWatch, check_deck
from drivers.emu_transport import EmulatorTransport
from drivers.emulator import EmulatedShoe, EmulatorConfig
from drivers.emulator.deck import DeckLoad
from drivers.emulator.handlers import RequestError
from protocols import messages as m
from protocols.codes import NakCode
from tests.drivers.conftest import FAST, Rig

SHORT = ("As", "Kd", "7c", "2h")


def _released(rig_factory: Callable[..., Rig], backend: str) -> Rig:
    rig = rig_factory(backend, deck=SHORT)
    rig.client.release_stub()
    return rig


def test_the_dealers_load_reaches_subscribers_and_checks_clean(rig_factory: Callable[..., Rig], backend: str) -> None:
    rig = _released(rig_factory, backend)
    watch = DeckWatch(rig.client)
    rig.shoe.load_deck(DeckLoad(seed=11, back="blue"))
    loaded = watch.wait_loaded(5.0, after=0)
    assert loaded is not None and (loaded.count, loaded.back) == (52, "blue")
    assert rig.events(m.DeckLoaded)[-1] == loaded
    verdict = check_deck(rig.client, back="blue")
    assert verdict.ok and verdict.describe() == "deck ok"


@pytest.mark.parametrize(
    ("fault", "named"),
    [
        ({"short": 1}, "missing"),
        ({"extra": 1}, "extra"),
        ({"duplicate": 1}, "duplicate"),
        ({"foreign": 1}, "foreign"),
    ],
)
def test_each_load_fault_is_named(
    rig_factory: Callable[..., Rig], backend: str, fault: dict[str, int], named: str
) -> None:
    rig = _released(rig_factory, backend)
    cards = DeckLoad(seed=3, **fault).cards()  # type: ignore[arg-type]
    rig.shoe.load_deck(DeckLoad(seed=3, **fault))  # type: ignore[arg-type]
    verdict = check_deck(rig.client, back="red")
    assert not verdict.ok and named in verdict.describe()
    if named == "missing":
        assert len(verdict.missing) == 1 and verdict.count == 51
    elif named == "extra":
        assert verdict.extra == 1 and len(verdict.duplicates) == 1 and verdict.missing == ()
    elif named == "duplicate":
        assert len(verdict.duplicates) == 1 and len(verdict.missing) == 1 and verdict.count == 52
    else:
        assert verdict.foreign == tuple(c.code for c in cards if c.foreign)
        assert verdict.missing == verdict.foreign  # the foreign face is missing from this deck's back


def test_a_deck_of_the_wrong_back_is_refused(rig_factory: Callable[..., Rig]) -> None:
    rig = _released(rig_factory, "emu")
    rig.shoe.load_deck(DeckLoad(seed=3, back="blue"))
    verdict = check_deck(rig.client, back="red")
    assert not verdict.ok and "back 'blue', expected 'red'" in verdict.describe()


def test_cards_loaded_mid_round_are_reported_with_the_new_total(rig_factory: Callable[..., Rig]) -> None:
    rig = rig_factory("emu", deck=SHORT)
    watch = DeckWatch(rig.client)
    rig.client.dispense(1)
    rig.shoe.load_deck(DeckLoad(seed=3, mid_round=True))
    loaded = watch.wait_loaded(5.0, after=0)
    assert loaded is not None and loaded.count == 52 + len(SHORT) - 1
    assert check_deck(rig.client).extra == len(SHORT) - 1


class _OlderShoe(EmulatedShoe):
    """A shoe from before SPEC §11: no DECK_CHECK answer beyond NAK UNKNOWN_MESSAGE."""

    def _dispatch(self, request: m.Message) -> m.Message | None:
        if isinstance(request, m.DeckCheck):
            raise RequestError(NakCode.UNKNOWN_MESSAGE, "message type 0x06 is not known")
        return super()._dispatch(request)


def test_an_older_shoe_falls_back_to_cards_remaining() -> None:
    shoe = _OlderShoe(EmulatorConfig(seed=1))
    client = ShoeClient(EmulatorTransport(shoe), timeouts=FAST)
    try:
        client.connect()
        verdict = check_deck(client)
        assert verdict.count == 52 and not verdict.checked_faces
        assert "faces not checked" in verdict.describe()
    finally:
        client.close()
        shoe.close()
