"""Every wager of the example tables over HTTP, through a real shoed: the ``table`` of a play script
(examples/*.json) is what ``POST /v1/rounds`` takes, decoded and converted by the same code
(``MississippiTable``, ``shoe.service.rounds.params.table_config``). Before, the PA table was refused
``$.table.side: object contains unknown field three_card`` and the NJ paytable ``unknown field paytable``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from shoe.play.script import parse_script
from shoe.service.api.requests import MississippiTable, convert
from shoe.service.rounds.params import table_config
from tests.api.conftest import RealShoed
from tests.e2e.support import ROOT

EXAMPLES = ROOT / "examples"


def _example(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))
    return data


def _fresh_deck(shoed: RealShoed) -> None:
    state = shoed.api.get("/v1/deck")["state"]
    if state != "checked":
        if state != "awaiting-deck":
            shoed.api.post("/v1/round/release-stub")
        shoed.api.post("/v1/deck/load")
    assert shoed.api.get("/v1/deck")["state"] == "checked"


def _seats(script: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"seat": int(s), "ante": w["ante"], "side": w.get("side", {})} for s, w in script["seats"].items()]


def play(shoed: RealShoed, script: dict[str, Any]) -> dict[str, Any]:
    """The script's table and wagers dealt over HTTP on the shoe's own deck; the closed round's view."""
    api = shoed.api
    _fresh_deck(shoed)
    body = {"game": "mississippi-stud", "jurisdiction": script["jurisdiction"], "table": script["table"]}
    opened = api.post("/v1/rounds", {**body, "seats": _seats(script)})
    assert opened["state"] == "open-for-wagers", opened
    api.post("/v1/round/no-more-bets")
    side = [w.get("side", {}) for w in script["seats"].values()]
    if "progressive" in script["table"].get("side", {}).get("offered", []):
        api.post("/v1/round/progressive/lock")
        api.post("/v1/round/progressive/chip-count", {"count": sum("progressive" in s for s in side)})
    api.post("/v1/round/deal")
    api.post("/v1/round/release-stub")
    decisions = {int(s): list(w["decisions"]) for s, w in script["seats"].items()}
    while (view := api.round()) is not None and view["state"] not in ("complete", "void"):
        if (seat := view["next_to_decide"]) is not None:
            api.post("/v1/round/decisions", {"seat": seat, "multiple": decisions[seat].pop(0)})
        elif view["next_reveal"] is not None:
            api.post("/v1/round/reveal", {"index": view["next_reveal"]})
        else:
            if "table_system" in script:
                api.post("/v1/table-system/progressive-inputs", script["table_system"], role="table-system")
            api.post("/v1/round/settle")
            break
    view = api.round()
    assert view is not None
    return view


def test_a_pa_table_with_every_side_wager_is_dealt_over_http(real_shoed: RealShoed) -> None:
    script = _example("pa-mississippi-stud")
    view = play(real_shoed, script)
    assert view["state"] == "complete", view
    assert view["jurisdiction"] == "PA"
    for seat, wagers in script["seats"].items():
        assert view["seats"][seat]["side"] == wagers.get("side", {})
    assert real_shoed.alive()


def test_an_nj_table_with_its_own_paytable_is_dealt_over_http(real_shoed: RealShoed) -> None:
    view = play(real_shoed, _example("nj-mississippi-stud"))
    assert view["state"] == "complete", view


@pytest.mark.parametrize("name", ["pa-mississippi-stud", "nj-mississippi-stud", "ny-mississippi-stud"])
def test_the_api_and_a_play_script_make_the_same_table_of_an_example(name: str) -> None:
    script = _example(name)
    api_table = table_config(convert(script["table"], MississippiTable))
    assert parse_script(script).table == api_table  # type: ignore[union-attr]


def test_a_bad_payout_is_refused_in_words_and_changes_nothing(real_shoed: RealShoed) -> None:
    _fresh_deck(real_shoed)
    script = _example("pa-mississippi-stud")
    script["table"]["side"]["three_card"]["pair"] = "one to one"
    before = real_shoed.api.get("/v1/status")["service"]["journal_seq"]
    body = {"game": "mississippi-stud", "jurisdiction": "PA", "table": script["table"], "seats": _seats(script)}
    reply = real_shoed.api.call("POST", "/v1/rounds", body)
    assert reply.status == 400 and reply.body["error"]["code"] == "bad-request"
    assert '"40 to 1"' in reply.body["error"]["message"] and "$.table.side.three_card" in reply.body["error"]["message"]
    assert real_shoed.api.get("/v1/status")["service"]["journal_seq"] == before
