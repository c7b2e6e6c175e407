"""An 8-seat seven-card stud hand runs out of cards before 7th street (N.J.A.C. 13:47-20.35(h)): the
burn cards are reshuffled, a card burned and the common card dealt, on the README's default shoe (the
embedded emulator) through a real shoed. Before, ``reshuffle-burns`` was accepted and ``deal`` then
answered ``shoe-refused "DISPENSE refused: BAD_STATE (0 card(s) remain, 1 requested)"`` for ever (nobody
loaded the burns into an emulator), and each retry journaled another ``stack-for-seat`` for card 53."""

from __future__ import annotations

from typing import Any

from shoe.service import Role, ServiceError, TableService
from tests.api.conftest import RealShoed, SseReader
from tests.e2e.support import TOKENS

TABLE = {"ante": 25, "bring_in": 100, "small_bet": 200, "big_bet": 400}


def _to_seventh(call: Any, view: Any) -> None:
    """Deal and play (everyone checks or calls) until 7th street is due."""
    while (round_ := view()) is not None and round_["state"] != "deal-7th":
        legal = round_.get("legal_actions") or []
        if round_["state"].startswith("deal") or not legal:
            call("/v1/round/deal")
            continue
        pick = next((a for a in legal if a["action"] in ("check", "call", "bring-in")), legal[0])
        body = {"seat": pick["seat"], "action": pick["action"]}
        if pick.get("amount") is not None:
            body["amount"] = pick["amount"]
        call("/v1/round/stud-actions", body)


def _finish(call: Any, view: Any) -> None:
    while (round_ := view()) is not None and round_.get("legal_actions"):
        pick = next(a for a in round_["legal_actions"] if a["action"] in ("check", "call"))
        call("/v1/round/stud-actions", {"seat": pick["seat"], "action": pick["action"]})


def test_an_eight_seat_hand_reshuffles_the_burns_and_ends_on_the_default_shoe(real_shoed: RealShoed) -> None:
    api = real_shoed.api
    if api.get("/v1/deck")["state"] != "checked":
        if api.get("/v1/deck")["state"] != "awaiting-deck":
            api.post("/v1/round/release-stub")
        api.post("/v1/deck/load")
    start = api.get("/v1/status")["service"]["journal_seq"]
    api.post("/v1/rounds", {"game": "seven-card-stud", "table": TABLE, "seats": list(range(1, 9))})
    _to_seventh(api.post, api.round)
    refused = api.call("POST", "/v1/round/deal")
    assert refused.status == 409 and "reshuffle the burn cards" in refused.body["error"]["message"]
    reshuffled = api.post("/v1/round/reshuffle-burns")
    seventh = api.post("/v1/round/deal")
    assert [c["target"] for c in seventh["cards"]] == ["burn", "common"], seventh
    assert reshuffled.get("burns_loaded") is True and reshuffled["record"]["burns"] == 3
    assert seventh["cards"][1]["card"] is not None  # the common card, face up
    _finish(api.post, api.round)
    view = api.round()
    assert view is not None and view["state"] == "showdown" and sum(view["pot_shares"].values()) == 8 * 25 + 8 * 100
    assert api.post("/v1/round/settle")["awards"] == {str(k): v for k, v in view["pot_shares"].items()}

    host, port = real_shoed.url.removeprefix("http://").split(":")
    auth = {"Authorization": f"Bearer {TOKENS['observer']}", "Last-Event-ID": str(start)}
    with SseReader((host, int(port)), "/v1/events", auth) as stream:
        events = stream.events(quiet=0.4)
    announced = [e for e in events if e["type"] == "stack-for-seat"]
    dealt = [e for e in events if e["type"] == "stack-dealt"]
    assert len(announced) == len(dealt) == 8 * 6 + 3 + 2  # six cards a seat, three burns, a burn and the common
    assert real_shoed.alive()


def test_a_refused_dispense_retried_journals_its_announcement_once(service: TableService) -> None:
    """A real shoe whose dealer has not loaded the burns yet refuses the dispense (BAD_STATE); each retry
    must not journal another ``stack-for-seat`` for the same card."""
    service._owner.desk.loader = None  # as a real shoe: the service cannot load the burns itself

    def call(path: str, body: dict[str, Any] | None = None) -> Any:
        from shoe.service.api.registry import ACTIONS

        action = next(a for a in ACTIONS if a.path == path)
        return service.submit(action.name, body or {}, Role.DEALER)

    call("/v1/rounds", {"game": "seven-card-stud", "table": TABLE, "seats": list(range(1, 9))})
    _to_seventh(call, lambda: service.round_view(Role.OBSERVER))
    assert call("/v1/round/reshuffle-burns").get("burns_loaded") in (False, None)
    seqs = []
    for _ in range(4):  # the card left goes out as the burn; the common card is refused, then retried
        try:
            call("/v1/round/deal")
        except ServiceError as exc:
            assert exc.code == "shoe-refused" and "BAD_STATE" in exc.message
        else:
            raise AssertionError("an empty shoe dispensed a card")
        seqs.append(service.health()["service"]["journal_seq"])
    assert seqs[1:] == seqs[:1] * 3, f"journal_seq after each refusal: {seqs}"
