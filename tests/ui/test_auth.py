"""Tokens on the pages: from the address (#token=..., then removed from it) or typed in when asked;
sent as Authorization: Bearer on every call, the event stream included (no token in any URL)."""

from __future__ import annotations

from typing import Any

from shoe.service import Role
from tests.api.conftest import TOKEN_OF, TOKENS
from tests.ui.conftest import Table, open_page, sync


def test_a_token_in_the_address_is_kept_for_the_tab_and_removed_from_the_address(make_table: Any, page: Any) -> None:
    table: Table = make_table(tokens=TOKENS)
    page.goto(table.url() + f"#token={TOKEN_OF[Role.DEALER]}")
    page.wait_for_function("() => document.body.dataset.feed === 'live'")
    assert "#" not in page.url and "token" not in page.url
    assert page.evaluate("() => sessionStorage.getItem('shoe.token.dealer')") == TOKEN_OF[Role.DEALER]
    sync(page, {"new-round"})
    table.client.post(
        "/v1/rounds", {"game": "mississippi-stud", "jurisdiction": "NY", "seats": [{"seat": 6, "ante": 500}]}
    )
    sync(page, {"no-more-bets", "void"})  # the event stream is authorised too: the page follows the round
    page.reload()  # the same tab keeps its token
    open_page(page, table)
    sync(page, {"no-more-bets", "void"})


def test_without_a_token_the_page_asks_for_one_and_says_when_it_is_refused(make_table: Any, page: Any) -> None:
    table: Table = make_table(tokens=TOKENS)
    page.goto(table.url())
    dialog = page.get_by_role("dialog", name="Dealer token")
    dialog.wait_for()
    dialog.get_by_label("Token").fill("not-a-known-token-at-all")
    dialog.get_by_role("button", name="Use this token").click()
    page.get_by_text("That token was refused").wait_for()
    page.get_by_role("dialog", name="Dealer token").get_by_label("Token").fill(TOKEN_OF[Role.DEALER])
    page.get_by_role("button", name="Use this token").click()
    open_page(page, table)
    sync(page, {"new-round"})
