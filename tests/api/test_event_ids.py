"""One id per event: a client that resumes the stream after any id of a round gets every later event
once (docs/api.md, Events). A journal entry that also changed the deck view carries the view as its
event's ``deck_view``; before, the view went out as a second event with the same id, and a client
resuming with that id lost the second (seen: 23 ids carried by two events each)."""

from __future__ import annotations

from tests.api.conftest import NY_SEATS, RealShoed, SseReader
from tests.e2e.support import TOKENS


def _fresh_deck(shoed: RealShoed) -> None:
    if shoed.api.get("/v1/deck")["state"] != "checked":
        if shoed.api.get("/v1/deck")["state"] != "awaiting-deck":
            shoed.api.post("/v1/round/release-stub")
        shoed.api.post("/v1/deck/load")
    assert shoed.api.get("/v1/deck")["state"] == "checked"


def _stream(shoed: RealShoed, after: int) -> list[dict[str, object]]:
    host, port = shoed.url.removeprefix("http://").split(":")
    auth = {"Authorization": f"Bearer {TOKENS['observer']}", "Last-Event-ID": str(after)}
    with SseReader((host, int(port)), "/v1/events", auth) as stream:
        assert stream.status == 200
        return stream.events(quiet=0.4)


def test_resuming_after_every_id_of_a_round_loses_and_repeats_nothing(real_shoed: RealShoed) -> None:
    api = real_shoed.api
    _fresh_deck(real_shoed)
    start = api.get("/v1/status")["service"]["journal_seq"]
    api.post("/v1/rounds", {"game": "mississippi-stud", "jurisdiction": "NY", "seats": NY_SEATS})
    for path in ("/v1/round/no-more-bets", "/v1/round/deal", "/v1/round/release-stub"):
        api.post(path)
    while (view := api.round()) is not None and view["state"] not in ("complete", "void"):
        if view["next_to_decide"] is not None:
            api.post("/v1/round/decisions", {"seat": view["next_to_decide"], "multiple": 1})
        elif view["next_reveal"] is not None:
            api.post("/v1/round/reveal", {"index": view["next_reveal"]})
        else:
            api.post("/v1/round/settle")
    api.post("/v1/deck/load")  # the next deck: a deck event of its own after the round

    whole = _stream(real_shoed, start)
    ids = [int(str(event["cursor"])) for event in whole]
    assert len(ids) > 20 and ids == sorted(ids)
    assert len(set(ids)) == len(ids), "an id is carried by more than one event"
    assert any("deck_view" in event for event in whole), "the deck view no longer reaches the stream"
    for i, cursor in enumerate(ids):
        assert _stream(real_shoed, cursor) == whole[i + 1 :], f"resuming after {cursor}"
