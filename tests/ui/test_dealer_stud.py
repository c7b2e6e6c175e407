"""A New Jersey seven-card stud hand played on the dealer display, by tapping.

The shoe deals one card at a time from a known deck, so the test knows which cards may show after
each step: up cards once dealt, the down cards of the players still in only at the showdown, burn
cards and a folded player's down cards never.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
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

EXAMPLE = json.loads((Path(__file__).resolve().parents[2] / "examples" / "nj-seven-card-stud.json").read_text())
DECK: list[str] = EXAMPLE["shoe"]
SEATS = [1, 2, 4, 6]
SCRIPT = [(2, "bring-in"), (4, "complete"), (6, "fold")]  # then everyone still in checks, or calls


class Dealt:
    """The test's own model of the deal: which cards the page may show so far."""

    def __init__(self) -> None:
        self.next = 0
        self.live = list(SEATS)
        self.shown: set[str] = set()
        self.down: dict[int, list[str]] = {s: [] for s in SEATS}
        self.up: dict[int, list[str]] = {s: [] for s in SEATS}

    def street(self, n: int) -> None:
        faces = ["down", "down", "up"] if n == 3 else ["up" if n < 7 else "down"]
        if n > 3:
            self.next += 1  # the burn card: never shown
        for face in faces:
            for seat in self.live:
                card = DECK[self.next]
                self.next += 1
                if face == "up":
                    self.up[seat].append(card)
                    self.shown.add(card)
                else:
                    self.down[seat].append(card)

    def showdown(self) -> None:
        for seat in self.live:
            self.shown |= set(self.down[seat])

    @property
    def hidden(self) -> set[str]:
        return set(DECK) - self.shown


def expected_actions(view: Any, table: Table) -> set[str]:
    if view is None or view["closed"]:
        return between_rounds(table)  # after a hand its deck is used: release the stub first
    allowed = {"void"}
    if view["legal_actions"]:
        allowed |= {f"stud:{a['seat']}:{a['action']}" for a in view["legal_actions"]}
    elif view["next_card"] is not None and view["next_card"]["target"] != "reshuffle":
        allowed.add("deal")
    return allowed


def open_stud_by_form(page: Any) -> None:
    tap(page, "new-round")
    dialog = page.locator("#open-dialog")
    dialog.get_by_text("Seven-card stud", exact=True).tap()
    for seat in SEATS:
        dialog.locator(f"label:has(#player-{seat}) span").tap()
    for field, dollars in (("stud-ante", "0.25"), ("stud-bring-in", "1"), ("stud-small", "2"), ("stud-big", "4")):
        page.locator(f"#{field}").fill(dollars)
    page.locator("#open-submit").tap()
    dialog.wait_for(state="hidden")


def test_a_stud_hand_by_tapping_shows_up_cards_only_until_the_showdown(make_table: Any, page: Any) -> None:
    table: Table = make_table(DECK)
    open_page(page, table)
    sync(page, {"new-round"})
    open_stud_by_form(page)
    dealt = Dealt()
    script = list(SCRIPT)
    first_of_street: dict[str, int] = {}
    shot = False
    while True:
        wait_idle(page)
        view = table.view()
        if view["phase"] == "showdown":
            dealt.showdown()  # the last betting round closed: the hands still in are shown
        sync(page, expected_actions(view, table))
        hidden_cards_absent(page, dealt.hidden)
        if view["closed"]:
            break
        if view["phase"] == "bring-in":
            assert page.locator('[data-seat="2"] .tag.bring-in').is_visible()  # 3c: the lowest up card
            assert view["bring_in_seat"] == 2
        if view["to_act"] is not None:
            street = view["street"]
            first_of_street.setdefault(street, view["to_act"])
            assert page.locator(f'[data-seat="{view["to_act"]}"].deciding').is_visible()
            if street != "3" and view["to_act"] == first_of_street[street]:
                assert page.locator(f'[data-seat="{view["to_act"]}"] .tag').first.inner_text() == "FIRST TO ACT"
            if view["phase"] == "bet-5th" and not shot:
                screenshot(page, "dealer-stud.png")
                shot = True
        if view["legal_actions"]:
            legal = {(a["seat"], a["action"]) for a in view["legal_actions"]}
            if script:
                seat, action = script.pop(0)
                assert (seat, action) in legal
            else:
                seat, action = next((s, a) for s, a in sorted(legal, key=lambda x: x[1]) if a in ("check", "call"))
            if action == "fold":
                dealt.live.remove(seat)
            tap(page, f"stud:{seat}:{action}")
        else:
            street = int(re.match(r"deal-(\d)", view["phase"]).group(1))  # type: ignore[union-attr]
            dealt.street(street)
            tap(page, "deal")
    assert shot

    view = table.view()
    assert view["phase"] == "showdown" and view["closed"]
    winners = [int(s) for s in view["pot_shares"]]
    assert winners
    for seat in winners:
        assert page.locator(f'[data-seat="{seat}"] .result').inner_text().startswith("WINS")
    for seat in set(SEATS) - {6}:
        cards = page.locator(f'[data-seat="{seat}"] [data-card]').evaluate_all("els => els.map(e => e.dataset.card)")
        assert sorted(cards) == sorted(dealt.down[seat] + dealt.up[seat])
        assert page.locator(f'[data-seat="{seat}"] .handname').inner_text()
    folded = page.locator('[data-seat="6"]')
    assert folded.locator(".tag.folded").is_visible()
    assert set(folded.locator("[data-card]").evaluate_all("els => els.map(e => e.dataset.card)")) <= set(dealt.up[6])
