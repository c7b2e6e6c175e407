"""A whole New York Mississippi stud round played on the dealer display, by tapping.

The deck is known (``emu://?deck=...``), so after every step the test checks that the page holds no
card the service has not shown yet, and that the actions the page offers are exactly the ones the
round view allows now.
"""

from __future__ import annotations

import random
from typing import Any

from tests.ui.conftest import (
    Table,
    between_rounds,
    hidden_cards_absent,
    open_page,
    screenshot,
    sync,
    tap,
    wait_idle,
)

DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"]
random.Random(20240607).shuffle(DECK)
HOLES = {1: DECK[0:2], 3: DECK[2:4], 5: DECK[4:6]}  # one two-card stack per seat, in seat order
COMMUNITY = DECK[6:9]  # read from the top of the released stub at each reveal
ANTES = {1: "10", 3: "5", 5: "25"}  # dollars, as the dealer types them
DECISIONS = {1: [1, 2, 3], 3: [0], 5: [3, 1, 2]}  # multiples per street; seat 3 folds on 3rd street
REGULATED_ORDER = [
    "no-more-bets",
    "deal",
    "release-stub",
    "decide:1:1",
    "decide:3:0",
    "decide:5:3",
    "reveal:1",
    "decide:1:2",
    "decide:5:1",
    "reveal:2",
    "decide:1:3",
    "decide:5:2",
    "reveal:3",
    "settle",
]


def expected_actions(view: Any, table: Table | None = None) -> set[str]:
    """What the rules allow now, from the round view (no progressive lock-out in NY); between rounds, from
    the deck view too (a round's deck is gone with its stub: the next one is loaded first)."""
    if view is None or view["closed"]:
        assert table is not None
        return between_rounds(table)
    allowed = {"void"}
    state = view["state"]
    if state == "open-for-wagers":
        allowed.add("no-more-bets")
    elif state == "no-more-bets":
        allowed.add("deal")
    elif state == "dealing-stacks":
        allowed.add("deal" if view["next_stack_seat"] is not None else "release-stub")
    elif view["next_to_decide"] is not None:
        allowed |= {f"decide:{view['next_to_decide']}:{m}" for m in view["legal_decisions"]}
    elif view["next_reveal"] is not None:
        allowed |= {f"reveal:{view['next_reveal']}", f"enter-card:{view['next_reveal']}"}
    elif view["next_to_settle"] is not None:
        allowed.add("settle")
    return allowed


def choose(view: Any, street_of: dict[int, int]) -> str:
    """The test's dealer: the one step due, or the scripted decision of the seat due."""
    allowed = expected_actions(view) - {"void"}
    seat = view["next_to_decide"]
    if seat is not None:
        street = street_of[seat]
        street_of[seat] += 1
        return f"decide:{seat}:{DECISIONS[seat][street]}"
    (step,) = [a for a in allowed if not a.startswith("enter-card")]
    return str(step)


def open_round_by_form(page: Any) -> None:
    tap(page, "new-round")
    dialog = page.locator("#open-dialog")
    dialog.get_by_text("Mississippi stud", exact=True).tap()
    page.select_option("#jurisdiction", "NY")
    for seat, ante in ANTES.items():
        page.locator(f"#ante-{seat}").fill(ante)
    page.locator("#open-submit").tap()
    dialog.wait_for(state="hidden")


def check_table(page: Any, view: Any) -> None:
    """Whose turn it is, and which seat the next stack is for, are marked on the seats."""
    seat = view["next_to_decide"]
    if seat is not None:
        assert page.locator(f'[data-seat="{seat}"].deciding .tag.deciding').is_visible()
        assert page.locator(".seat.deciding").count() == 1
        assert f"Seat {seat} decides" in page.locator("#prompt").inner_text()
    if view["state"] == "no-more-bets":
        assert page.locator(f'[data-seat="{view["next_stack_seat"]}"] .tag.next-stack').is_visible()
        assert page.locator("#dealer-spot").inner_text() == f"Next stack: seat {view['next_stack_seat']}"


def test_a_new_york_round_by_tapping_shows_no_card_before_its_time(make_table: Any, page: Any) -> None:
    table: Table = make_table(DECK)
    open_page(page, table)
    hidden = set(DECK)
    sync(page, {"new-round"})
    hidden_cards_absent(page, hidden)
    open_round_by_form(page)

    played: list[str] = []
    street_of = dict.fromkeys(DECISIONS, 0)
    while True:
        wait_idle(page)  # the tapped action has been answered: the service's view is final for this step
        view = table.view()
        sync(page, expected_actions(view, table))
        hidden_cards_absent(page, hidden)
        if view["closed"]:
            break
        check_table(page, view)
        if view["state"] == "fifth-street" and view["next_to_decide"] == 1:
            screenshot(page, "dealer-ny.png")
        step = choose(view, street_of)
        if step.startswith("reveal:"):
            hidden.discard(COMMUNITY[int(step.split(":")[1]) - 1])  # from its reveal on, it may show
        if step == "settle":
            hidden -= set(HOLES[1]) | set(HOLES[5])  # settling shows the hands still in; seat 3's never
        tap(page, step)
        played.append(step)
    assert played == REGULATED_ORDER

    view = table.view()
    assert view["state"] == "complete"
    shown = page.eval_on_selector_all("#community [data-card]", "els => els.map(e => e.dataset.card)")
    assert shown == COMMUNITY
    lines = {line["seat"]: line for line in view["settled"]}
    assert set(lines) == {1, 5}
    for seat, line in lines.items():
        box = page.locator(f'[data-seat="{seat}"]')
        cards = box.locator("[data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
        assert sorted(cards) == sorted(HOLES[seat])
        result = box.locator(".result").inner_text()
        assert result.startswith(line["outcome"].upper())
        assert f"${abs(line['net']) // 100}" in result.replace(",", "")
        assert box.locator(".handname").inner_text()  # the hand's name, e.g. "Two pair"
    folded = page.locator('[data-seat="3"]')
    assert folded.locator(".tag.folded").is_visible()
    assert folded.locator(".card").count() == 0  # a folded hand is never shown, not even as backs
    assert "FOLD" in folded.locator(".result").inner_text()
    assert "Round complete" in page.locator("#prompt").inner_text()


def test_a_jam_during_the_deal_shows_the_misdeal_and_the_fault_with_what_to_do(make_table: Any, page: Any) -> None:
    table: Table = make_table(port=f"emu://?deck={''.join(DECK)}&jam_at=3")  # the second stack jams
    seats = [{"seat": 1, "ante": 1000}, {"seat": 3, "ante": 500}]
    table.client.ok("POST", "/v1/rounds", {"game": "mississippi-stud", "jurisdiction": "NY", "seats": seats})
    table.client.post("/v1/round/no-more-bets")
    open_page(page, table)
    sync(page, {"deal", "void"})
    tap(page, "deal")
    wait_idle(page)
    assert table.view()["state"] == "misdeal"
    assert between_rounds(table) == {"release-stub"}  # the part-dealt deck is still in the shoe
    sync(page, {"release-stub"})
    hidden_cards_absent(page, set(DECK))  # a void round never shows its hands

    misdeal = page.locator('[data-banner="misdeal"]')
    assert "A stack came out with other than two cards" in misdeal.inner_text()
    assert "Every wager is returned" in misdeal.inner_text()
    for seat in (1, 3):
        assert page.locator(f'[data-seat="{seat}"] .result').inner_text() == "Void · returned"
    fault = page.locator('[data-banner="fault-jam"]')
    assert fault.is_visible()  # at once, from the fault event
    page.wait_for_function(  # then with the shoe's own text and next step (the service re-reads it every 5 s)
        "() => document.querySelector('[data-banner=\"fault-jam\"]')?.textContent.includes('open the door')",
        timeout=9000,
    )
    assert "card jam in the feed path" in fault.inner_text()

    # The next round cannot open on a part-dealt deck: the panel says so and offers no New round, only the
    # stub release, which the shoe refuses while it is jammed, with what to do.
    page.wait_for_function(  # the count the shoe senses, once the service has re-read it (every 5 s)
        "() => document.getElementById('prompt').textContent.includes('49 cards')", timeout=12_000
    )
    prompt = page.locator("#prompt").inner_text()
    assert "Round void" in prompt and "Release the stub" in prompt
    tap(page, "release-stub")
    page.locator('[data-banner="problem"]').wait_for()
    assert "open the door" in page.locator('[data-banner="problem"]').inner_text()
