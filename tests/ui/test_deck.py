"""The deck in the shoe on the dealer display and the technician page.

What the shoe holds now (state, count, back), "load a shuffled deck" when it is empty, the deck check's
result and, for a deck the check refused, its named problems; the load button only where the shoe is
an emulator (the deck view's ``emulator``), every button from the deck view's ``actions``. Between
rounds no card is on the page at all, not even of a refused deck beyond the cards the check names.
Real parts: a real ``TableService`` on the in-process emulator, or on an emulator process behind a
pty (a shoe the service cannot load: loaded by the dealer's hands, the emulator's control socket).
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.emulator.control import load_deck_at
from drivers.emulator.deck import DeckLoad
from tests.ui.conftest import RANKS, SUITS, Table, hidden_cards_absent, open_page, screenshot, sync, tap

EVERY_CARD = {r + s for r in RANKS for s in SUITS}


def deck_view(table: Table) -> Any:
    return table.client.ok("GET", "/v1/deck")


def wait_deck(table: Table, *states: str, timeout: float = 10.0) -> Any:
    """The deck view once its state is one of ``states`` (the service checks a load by itself)."""
    deadline = time.monotonic() + timeout
    while True:
        view = deck_view(table)
        if view["state"] in states:
            return view
        assert time.monotonic() < deadline, f"deck state {view['state']!r}, not {states}: {view}"
        time.sleep(0.05)


def deck_actions(view: Any) -> set[str]:
    """The deck buttons the page may offer: the view's actions, the load only on an emulator."""
    return {a for a in view["actions"] if a != "load-deck" or view["emulator"]}


def named(check: Any) -> set[str]:
    return set(check["missing"]) | set(check["duplicates"]) | set(check["foreign"])


def empty_the_shoe(table: Table) -> Any:
    """Between rounds: release what the shoe holds (the dealer takes it to the discard rack)."""
    table.client.post("/v1/round/release-stub")
    return wait_deck(table, "awaiting-deck")


def strip(page: Any) -> str:
    return str(page.locator("#deck").inner_text())


def test_the_dealer_sees_the_deck_and_loads_a_shuffled_one_into_an_emulator(make_table: Any, page: Any) -> None:
    table: Table = make_table()
    first = wait_deck(table, "checked")
    assert first["emulator"] is True and first["check"]["ok"] is True
    open_page(page, table)
    sync(page, {"new-round"})
    page.wait_for_function("() => document.querySelector('#deck .deck-check')?.textContent.includes('check passed')")
    text = strip(page)
    assert "Checked" in text and f"{first['count']} cards" in text and f"{first['back']} back" in text
    hidden_cards_absent(page, EVERY_CARD)

    empty = empty_the_shoe(table)
    want = deck_actions(empty)
    assert "load-deck" in want
    sync(page, want)
    assert page.locator("#prompt h2").inner_text() == "Load a shuffled deck"
    assert "Empty" in strip(page) and "0 cards" in strip(page)
    hidden_cards_absent(page, EVERY_CARD)

    tap(page, "load-deck")
    sync(page, {"new-round"})
    loaded = wait_deck(table, "checked")
    assert loaded["deck_no"] == first["deck_no"] + 1
    page.wait_for_function(
        "n => document.querySelector('#deck .deck-state').textContent.startsWith(`Deck #${n}: Checked`)",
        arg=loaded["deck_no"],
    )
    assert "Deck check passed" in strip(page) and "52 cards" in strip(page)
    hidden_cards_absent(page, EVERY_CARD)  # a load and its check name no card, never the order

    technician = page.context.new_page()
    open_page(technician, table, "technician.html")
    technician.wait_for_function("() => document.getElementById('deck-box').dataset.deckState === 'checked'")
    rows = technician.locator("#deck").inner_text()
    assert "Checked" in rows and "52 cards" in rows and "passed" in rows
    hidden_cards_absent(technician, EVERY_CARD)


@pytest.mark.parametrize("fault", ["short", "extra", "duplicate", "foreign"])
def test_a_refused_deck_shows_its_named_problems_and_no_new_round(make_table: Any, page: Any, fault: str) -> None:
    table: Table = make_table()
    wait_deck(table, "checked")
    empty_the_shoe(table)
    open_page(page, table)
    refused = table.client.post("/v1/deck/load", {fault: 1})
    if refused["state"] != "refused":
        refused = wait_deck(table, "refused")
    check = refused["check"]
    assert check["ok"] is False and check["problems"], check
    sync(page, deck_actions(refused))  # no New round: a refused deck is never dealt from
    # The shoe emptied before the load offers the same actions ("Check the deck"): wait for the refusal's
    # own prompt, which its event brings (seen once in CI: the actions matched a moment before it came).
    page.wait_for_function("() => document.querySelector('#prompt h2')?.textContent === 'Deck refused'", timeout=8000)
    assert page.locator("#prompt h2").inner_text() == "Deck refused"
    shown = page.locator("#prompt .deck-problems li").all_inner_texts()
    assert shown == [str(p) for p in check["problems"]]
    text = page.evaluate("document.body.innerText")
    for code in named(check):
        assert code in text, f"{code} is named by the check but not on the page"
    assert "Deck check FAILED" in strip(page)
    hidden_cards_absent(page, EVERY_CARD - named(check))  # only the cards the check names, no other
    if fault == "duplicate":
        screenshot(page, "dealer-deck.png")

    technician = page.context.new_page()
    open_page(technician, table, "technician.html")
    technician.wait_for_function("() => document.getElementById('deck-box').dataset.deckState === 'refused'")
    assert technician.locator("#deck-problems li").all_inner_texts() == shown
    hidden_cards_absent(technician, EVERY_CARD - named(check))


@pytest.fixture
def pty_shoe(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """An emulator in its own process behind a pty (its port is a device path, not ``emu://``), with the
    dealer's hands on a control socket."""
    link, control = tmp_path / "cardshoe", tmp_path / "control.sock"
    argv = [sys.executable, "-m", "shoe.cli.main", "--json", "emulate", "--pty", "--link", str(link),
            "--control", str(control), "--seed", "11"]  # fmt: skip
    log = (tmp_path / "emulator.log").open("wb")
    proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 15
        while not (link.exists() and control.exists()):
            assert proc.poll() is None and time.monotonic() < deadline, (tmp_path / "emulator.log").read_text()
            time.sleep(0.05)
        yield str(link), control
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


def test_the_load_button_is_only_where_the_shoe_is_an_emulator(
    make_table: Any, page: Any, pty_shoe: tuple[str, Path]
) -> None:
    port, control = pty_shoe
    table: Table = make_table(port=port)
    wait_deck(table, "checked")
    empty = empty_the_shoe(table)
    assert empty["emulator"] is False
    open_page(page, table)
    sync(page, deck_actions(empty))
    assert page.locator('button[data-action="load-deck"]').count() == 0
    assert page.locator("#prompt h2").inner_text() == "Load a shuffled deck"
    assert "Load a shuffled deck into the shoe" in page.locator("#prompt").inner_text()

    load_deck_at(control, DeckLoad(seed=12))  # the dealer's hands: the shoe reports the load, shoed checks it
    sync(page, {"new-round"}, timeout=12)
    assert "Deck check passed" in strip(page)
    hidden_cards_absent(page, EVERY_CARD)
