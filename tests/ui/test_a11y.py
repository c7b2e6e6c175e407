"""Keyboard and screen-reader basics: every button has an accessible name, Tab reaches every action
the dealer may take now, and Enter and Space activate them."""

from __future__ import annotations

import re
from typing import Any

from tests.ui.conftest import RANK_NAME, SUIT_NAME, Table, enabled_actions, open_page, sync
from tests.ui.test_dealer_ny import COMMUNITY, DECK

NY_ROUND = {
    "game": "mississippi-stud",
    "jurisdiction": "NY",
    "seats": [{"seat": 1, "ante": 1000}, {"seat": 2, "ante": 500}],
}
NAMED = re.compile(r"\w")


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as playwright_expect  # imported late: without it the tests skip

    return playwright_expect(locator)


def named_buttons(page: Any) -> int:
    buttons = page.locator("button:visible")
    for i in range(buttons.count()):
        expect(buttons.nth(i)).to_have_accessible_name(NAMED)
    return int(buttons.count())


def tab_to(page: Any, action: str, limit: int = 40) -> list[str]:
    """Press Tab until the action's button has the focus; the actions passed on the way."""
    seen: list[str] = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        focused = page.evaluate("() => document.activeElement?.dataset?.action ?? null")
        if focused:
            seen.append(focused)
        if focused == action:
            return seen
    raise AssertionError(f"Tab never reached {action}; it reached {seen}")


def test_buttons_are_named_and_every_action_is_reachable_and_usable_by_keyboard(make_table: Any, page: Any) -> None:
    table: Table = make_table(DECK)
    for step in ("/v1/rounds", "/v1/round/no-more-bets", "/v1/round/deal", "/v1/round/release-stub"):
        table.client.ok("POST", step, NY_ROUND if step == "/v1/rounds" else {})
    open_page(page, table)
    sync(page, {"decide:1:0", "decide:1:1", "decide:1:2", "decide:1:3", "void"})
    assert named_buttons(page) >= 5
    labels = {b: page.locator(f'button[data-action="{b}"]').get_attribute("aria-label") for b in enabled_actions(page)}
    assert labels["decide:1:0"] == "Seat 1: fold"
    assert labels["decide:1:2"] == "Seat 1: bet 2 times the ante, $20"

    page.locator("body").focus()
    seen = tab_to(page, "void")
    assert set(enabled_actions(page)) <= set(seen)  # Tab reaches every action allowed now

    page.locator('button[data-action="decide:1:1"]').focus()
    page.keyboard.press("Enter")  # seat 1 bets 1x
    sync(page, {"decide:2:0", "decide:2:1", "decide:2:2", "decide:2:3", "void"})
    assert table.view()["seats"]["1"]["bets"] == [1000]
    assert page.evaluate("() => document.activeElement.tagName") == "H2"  # focus waits on the prompt, not an action

    tab_to(page, "decide:2:0")
    page.keyboard.press("Space")  # seat 2 folds
    sync(page, {"reveal:1", "enter-card:1", "void"})
    assert table.view()["seats"]["2"]["status"] == "folded"

    # The dialogs: the void confirmation opens from the keyboard, is named, and Escape keeps playing.
    tab_to(page, "void")
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="Void this round?")
    expect(dialog).to_be_visible()
    named_buttons(page)
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    assert table.view()["closed"] is False

    # A card the reader cannot read is entered by hand: rank and suit are named radio groups.
    tab_to(page, "enter-card:1")
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="Enter community card 1")
    expect(dialog).to_be_visible()
    code = COMMUNITY[0]
    rank = "10" if code[0] == "T" else RANK_NAME[code[0]] if code[0] in "JQKA" else code[0]
    dialog.get_by_role("radio", name=rank, exact=True).check()
    dialog.get_by_role("radio", name=SUIT_NAME[code[1]], exact=True).check()
    dialog.get_by_role("button", name="Reveal").press("Enter")
    sync(page, {"decide:1:0", "decide:1:1", "decide:1:2", "decide:1:3", "void"})  # 4th street
    assert table.view()["community"][0] == code
    assert page.locator("#community [data-card]").evaluate_all("els => els.map(e => e.dataset.card)") == [code]
