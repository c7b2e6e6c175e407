"""The dealer loads a shuffled deck (SPEC §11): DECK_LOADED, the deck check's back and foreign cards,
each load fault, mid-round loads and autoload."""

from __future__ import annotations

import pytest

from drivers.emulator.deck import DeckLoad
from protocols import messages as m
from protocols.cards import ALL_CODES
from protocols.codes import Capability, FaultCode, ReadStatus, ShoeState
from tests.emulator import DECK, Factory, shoe_factory

new = pytest.fixture(shoe_factory)


def test_identity_announces_the_deck_loaded_capability(new: Factory) -> None:
    _shoe, host = new(deck=DECK)
    identity = host.call(m.Identify(), m.Identity)
    assert identity.capabilities & Capability.DECK_LOADED


def test_loading_after_the_stub_sends_deck_loaded_with_count_and_back(new: Factory) -> None:
    shoe, host = new(deck=DECK)
    host.call(m.ReleaseStub(), m.StubReleased)
    assert shoe.load_deck(DeckLoad(seed=3, back="blue")) == 52
    host.pump(0.05)
    assert [(e.count, e.back) for e in host.of(m.DeckLoaded)] == [(52, "blue")]
    status = host.status()
    assert (status.state, status.cards_remaining) == (ShoeState.IDLE, 52)
    report = host.call(m.DeckCheck(), m.DeckReport)
    assert report == m.DeckReport(52, ALL_CODES, (), 0, "blue", ())


def test_a_seeded_load_is_repeatable_and_an_explicit_order_is_kept(new: Factory) -> None:
    assert DeckLoad(seed=9).cards() == DeckLoad(seed=9).cards()
    assert DeckLoad(seed=9).cards() != DeckLoad(seed=10).cards()
    assert [c.code for c in DeckLoad(order=DECK).cards()] == list(DECK)


def _check_after(new: Factory, deck: DeckLoad) -> m.DeckReport:
    shoe, host = new(deck=DECK)
    host.call(m.ReleaseStub(), m.StubReleased)
    shoe.load_deck(deck)
    report: m.DeckReport = host.call(m.DeckCheck(), m.DeckReport)
    return report


def test_a_short_deck_is_counted_short(new: Factory) -> None:
    report = _check_after(new, DeckLoad(seed=1, short=2))
    assert report.count == 50 and len(report.present) == 50 and report.duplicates == ()


def test_an_extra_card_is_counted_and_listed_as_a_duplicate(new: Factory) -> None:
    report = _check_after(new, DeckLoad(seed=1, extra=1))
    assert report.count == 53 and len(report.present) == 52 and len(report.duplicates) == 1


def test_a_duplicate_replaces_a_card(new: Factory) -> None:
    report = _check_after(new, DeckLoad(seed=1, duplicate=1))
    assert report.count == 52 and len(report.present) == 51 and len(report.duplicates) == 1


def test_a_foreign_card_is_named_apart_and_reads_foreign_when_dealt(new: Factory) -> None:
    cards = DeckLoad(seed=1, foreign=1, back="blue").cards()
    report = _check_after(new, DeckLoad(seed=1, foreign=1, back="blue"))
    foreign = [c.code for c in cards if c.foreign]
    assert report.count == 52 and report.back == "blue" and report.foreign == tuple(foreign)
    assert len(report.present) == 51 and foreign[0] not in report.present
    shoe, host = new(deck=DECK)
    host.call(m.ReleaseStub(), m.StubReleased)
    shoe.load_deck(DeckLoad(order=("As",), foreign=1, back="blue"))
    host.call(m.Dispense(1, 1), m.DispenseReport)
    host.pump(0.05)
    (stack,) = host.of(m.StackReady)
    assert stack.cards[0].status is ReadStatus.FOREIGN_CARD and stack.cards[0].card is None


def test_loading_on_top_of_cards_is_refused_unless_mid_round(new: Factory) -> None:
    shoe, host = new(deck=DECK)
    with pytest.raises(ValueError, match="release the stub first"):
        shoe.load_deck(DeckLoad(seed=1))
    assert shoe.load_deck(DeckLoad(seed=1, mid_round=True)) == 52 + len(DECK)
    host.pump(0.05)
    assert [e.count for e in host.of(m.DeckLoaded)] == [52 + len(DECK)]


def test_loading_an_emptied_shoe_clears_shoe_empty_after_deck_loaded(new: Factory) -> None:
    shoe, host = new(deck=DECK[:1], count_known=False)
    host.call(m.Dispense(1, 1), m.DispenseReport)
    host.call(m.Dispense(2, 1), m.DispenseReport)  # runs out: SHOE_EMPTY
    host.call(m.ReleaseStub(), m.StubReleased)
    shoe.load_deck(DeckLoad(seed=2))
    host.pump(0.05)
    kinds = [type(e).__name__ for e in host.events]
    assert kinds.index("DeckLoaded") < len(kinds) - 1
    assert host.of(m.FaultCleared)[-1].code is FaultCode.SHOE_EMPTY
    assert host.of(m.DeckLoaded)[-1].count == m.DeckLoaded.UNKNOWN_COUNT  # a shoe that cannot count


def test_autoload_loads_the_next_deck_after_the_stub_is_released(new: Factory) -> None:
    _shoe, host = new(seed=5, autoload=True, back="blue")
    host.call(m.ReleaseStub(), m.StubReleased)
    host.pump(0.05)
    assert [(e.count, e.back) for e in host.of(m.DeckLoaded)] == [(52, "blue")]
    assert host.status().state is ShoeState.IDLE
    assert host.call(m.DeckCheck(), m.DeckReport).present == ALL_CODES


def test_autoload_is_off_by_default(new: Factory) -> None:
    _shoe, host = new(seed=5)
    host.call(m.ReleaseStub(), m.StubReleased)
    host.pump(0.05)
    assert host.of(m.DeckLoaded) == [] and host.status().state is ShoeState.STUB_RELEASED


@pytest.mark.parametrize(
    ("query", "message"),
    [("short=53", "outside 0..52"), ("jam=1", "unknown deck option 'jam'"), ("seed=x", "not an integer"),
     ("foreign=1&foreign_back=red", "must differ")],
)  # fmt: skip
def test_bad_deck_options_are_named(query: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        DeckLoad.from_query(query)


def test_the_query_form_builds_the_same_deck() -> None:
    assert DeckLoad.from_query("seed=4&back=blue&short=1&mid_round=1") == DeckLoad(
        seed=4, back="blue", short=1, mid_round=True
    )
