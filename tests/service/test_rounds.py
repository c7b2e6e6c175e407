"""Whole rounds through ``TableService.submit``: real journal, real emulated shoe."""

from __future__ import annotations

from typing import Any

import pytest

from shoe.journal import Journal
from shoe.service import ServiceError, TableService
from shoe.service.core import GAMES
from shoe.service.errors import ErrorKind
from shoe.service.rounds.run import rebuild
from tests.service.conftest import OBS, D, S, T, Table, deck, finish_streets, play_ny, smudge

NY_DECK = ("As", "Ks", "7h", "7d", "2c", "9d", "Qs", "Js", "Ts")  # seats 1, 3, 5; then the community


def _cards(table: Table) -> list[dict[str, Any]]:
    return [e.data for e in table.entries(kinds=("card",))]


def test_full_ny_round_journals_every_card_and_settles(table_factory: Any) -> None:
    table = table_factory(*NY_DECK)
    service = table.start()
    replies = play_ny(service, {1: 500, 3: 1000, 5: 200}, {5: [1, 0, 0]})
    assert replies[0]["round_id"].startswith("table-1-")
    assert [s["seat"] for s in replies[2]["stacks"]] == [1, 3, 5]
    assert replies[3]["count"] == 46

    cards = _cards(table)
    seat_cards = [(c["seat"], c["dispense_id"], c["position"], c["card"]) for c in cards if c["target"] == "seat"]
    assert seat_cards == [(1, 1, 1, "As"), (1, 1, 2, "Ks"), (3, 2, 1, "7h"), (3, 2, 2, "7d"),
                          (5, 3, 1, "2c"), (5, 3, 2, "9d")]  # fmt: skip
    assert [c["card"] for c in cards if c["target"] == "community"] == ["Qs", "Js", "Ts"]
    assert [c["index"] for c in cards] == list(range(1, 10))
    closed = table.entries(kinds=("round-closed",))[-1].data
    assert closed["outcome"] == "complete"
    assert closed["seats"]["1"]["outcome"] == "win" and closed["seats"]["1"]["net"] == 500 * 4 * 500
    assert closed["seats"]["3"] == {"outcome": "push", "net": 0}
    assert closed["seats"]["5"] == {"outcome": "fold", "net": -400}
    assert [e.data["seat"] for e in table.entries(kinds=("settlement",))] == [3, 1]  # descending, fold collected
    assert table.shoe.stats.cards_moved == 6
    view = service.round_view(OBS)
    assert view is not None and view["closed"] and view["seats"]["1"]["cards"] == ["As", "Ks"]
    assert view["seats"]["5"]["cards"] is None  # a folded hand is never shown
    service.stop()
    with Journal.open(table.journal) as journal:
        assert journal.verify().ok
        assert journal.last() is not None and journal.last().data["event"] == "stop"  # type: ignore[union-attr]


def test_out_of_order_is_refused_with_the_rule_and_nothing_journaled(table_factory: Any) -> None:
    table = table_factory(*NY_DECK)
    service = table.start()
    service.submit("open-round", {"game": "mississippi-stud", "jurisdiction": "NY",
                                  "seats": [{"seat": 1, "ante": 500}, {"seat": 2, "ante": 500}]}, D)  # fmt: skip
    before = len(table.entries())
    with pytest.raises(ServiceError) as refused:
        service.submit("deal", {}, D)
    assert (refused.value.code, refused.value.rule, refused.value.kind) == (
        "out-of-order",
        "NY 5324.38(d)(2)",
        ErrorKind.CONFLICT,
    )
    service.submit("no-more-bets", {}, D)
    service.submit("deal", {}, D)
    service.submit("release-stub", {}, D)
    before = len(table.entries())
    with pytest.raises(ServiceError) as refused:
        service.submit("decide", {"seat": 2, "multiple": 1}, D)
    assert (refused.value.code, refused.value.rule) == ("out-of-order", "NY 5324.38(e)(1)")
    with pytest.raises(ServiceError) as refused:
        service.submit("reveal", {"index": 1}, D)
    assert refused.value.code == "out-of-order" and refused.value.rule == "NY 5324.38(e)(2)"
    with pytest.raises(ServiceError) as refused:
        service.submit("decide", {"seat": 1, "multiple": 4}, D)  # refused at the edge: 0..3 (NY 5324.38(e))
    assert (refused.value.code, refused.value.kind) == ("bad-request", ErrorKind.BAD_INPUT)
    assert "$.multiple" in refused.value.message
    assert len(table.entries()) == before
    assert table.shoe.stats.cards_moved == 4


def test_roles_technician_and_missing_round(table_factory: Any) -> None:
    table = table_factory()
    service = table.start()
    with pytest.raises(ServiceError) as err:
        service.submit("decide", {"seat": 1, "multiple": 1}, D)
    assert (err.value.code, err.value.kind) == ("no-round", ErrorKind.NOT_FOUND)
    with pytest.raises(ServiceError) as err:
        service.submit("shuffle", {}, D)
    assert err.value.kind == ErrorKind.BAD_INPUT
    stacks = service.submit("maintenance-dispense", {"stacks": 2, "size": 2}, T)["stacks"]
    assert [s["cards"] for s in stacks] == [2, 2]
    assert service.submit("verify-journal", {}, T)["ok"] is True
    assert service.submit("clear-fault", {"fault": "jam"}, T)["fault"] == "jam"
    assert service.submit("release-stub", {}, D)["count"] == 48
    table.shoe.load(deck())
    service.submit("open-round", {"game": "mississippi-stud", "jurisdiction": "NJ",
                                  "seats": [{"seat": 2, "ante": 300}]}, D)  # fmt: skip
    # Each action gets parameters of its own type: the typed edge refuses another action's (400) before
    # the state is looked at, over HTTP and in process alike.
    opening = {"game": "mississippi-stud", "jurisdiction": "NJ", "seats": [{"seat": 2, "ante": 300}]}
    for action, params, role, code, kind in (
        ("deal", {}, OBS, "forbidden", ErrorKind.FORBIDDEN),
        ("no-more-bets", {}, T, "forbidden", ErrorKind.FORBIDDEN),
        ("progressive-inputs", {}, D, "forbidden", ErrorKind.FORBIDDEN),
        ("maintenance-dispense", {"stacks": 1, "size": 1}, T, "round-live", ErrorKind.CONFLICT),
        ("verify-journal", {}, T, "round-live", ErrorKind.CONFLICT),
        ("open-round", opening, D, "round-live", ErrorKind.CONFLICT),
        ("stud-action", {"seat": 2, "action": "check"}, D, "wrong-game", ErrorKind.CONFLICT),
        ("deal", {"stacks": 1, "size": 1}, D, "bad-request", ErrorKind.BAD_INPUT),
    ):
        with pytest.raises(ServiceError) as err:
            service.submit(action, params, role)
        assert (err.value.code, err.value.kind) == (code, kind), action
    technician = [e.data for e in table.entries(kinds=("technician",))]
    assert [t["action"] for t in technician] == [*["maintenance-dispense"] * 2, "verify-journal", "clear-fault"]
    assert [t["dispense_id"] for t in technician[:2]] == [1, 2]


def test_void_returns_every_wager_and_the_shoe_must_be_reloaded(table_factory: Any) -> None:
    table = table_factory()
    service = table.start()
    service.submit("open-round", {"game": "mississippi-stud", "jurisdiction": "NY",
                                  "seats": [{"seat": 1, "ante": 500}, {"seat": 4, "ante": 700}]}, D)  # fmt: skip
    service.submit("no-more-bets", {}, D)
    service.submit("deal", {}, D)
    reply = service.submit("void", {"cause": "community-card-exposed"}, D)
    assert reply["state"] == "misdeal"
    closed = table.entries(kinds=("round-closed",))[-1].data
    assert closed["outcome"] == "void" and closed["returned"] == 1200 and closed["cause"] == "community-card-exposed"
    with pytest.raises(ServiceError) as err:
        service.submit(
            "open-round", {"game": "mississippi-stud", "jurisdiction": "NY", "seats": [{"seat": 1, "ante": 500}]}, D
        )
    assert err.value.code == "deck-not-ready"
    assert service.submit("release-stub", {}, D)["count"] == 48
    table.shoe.load(deck())
    one = [{"seat": 1, "ante": 500}]
    service.submit("open-round", {"game": "mississippi-stud", "jurisdiction": "NY", "seats": one}, D)


@pytest.mark.parametrize(("config", "cause"), [({}, "unreadable-card"), ({"jam_at": 3}, "bad-stack")])
def test_an_irregular_stack_is_a_misdeal(table_factory: Any, config: dict[str, Any], cause: str) -> None:
    table = table_factory(**config)
    service = table.start()
    if cause == "unreadable-card":
        smudge(table.shoe, 3)  # read at the deck check, not at the dispense
    service.submit("open-round", {"game": "mississippi-stud", "jurisdiction": "NY",
                                  "seats": [{"seat": 1, "ante": 500}, {"seat": 2, "ante": 500}]}, D)  # fmt: skip
    service.submit("no-more-bets", {}, D)
    reply = service.submit("deal", {}, D)
    assert reply["state"] == "misdeal" and len(reply["stacks"]) == 2
    irregularity = table.entries(kinds=("irregularity",))[-1].data
    assert irregularity["cause"] == cause and irregularity["record"]["returned"] == [[1, 500], [2, 500]]
    assert table.entries(kinds=("round-closed",))[-1].data["outcome"] == "void"
    if cause == "bad-stack":
        assert [e.data["event"] for e in table.entries(kinds=("fault",))] == ["raised"]
        assert service.metrics_snapshot()["counters"]["faults_total"] == 1


def test_pa_round_with_side_wagers(table_factory: Any) -> None:
    # seat 1: a royal flush with the community; seat 2: a pair of jacks; the community makes a flush draw.
    table = table_factory("As", "Ks", "Jh", "Jd", "Qs", "Js", "Ts")
    service = table.start()
    side = {"offered": ["progressive", "envy", "three-card-bonus"], "progressive_table": "B",
            "envy": {"royal_flush": 50_000, "straight_flush": 10_000}}  # fmt: skip
    service.submit("open-round", {"game": "mississippi-stud", "jurisdiction": "PA",
                                  "table": {"min_ante": 100, "max_ante": 10_000, "side": side},
                                  "seats": [
                                      {"seat": 1, "ante": 500, "side": {"progressive": 100, "three-card-bonus": 500}},
                                      {"seat": 2, "ante": 500, "side": {"progressive": 100}}]}, D)  # fmt: skip
    service.submit("no-more-bets", {}, D)
    with pytest.raises(ServiceError) as err:
        service.submit("deal", {}, D)
    assert err.value.code == "out-of-order" and "670a.10(a)(2)(ii)" in str(err.value.rule)
    service.submit("lock-progressive", {}, D)
    with pytest.raises(ServiceError) as err:
        service.submit("chip-count", {"count": 1}, D)
    assert err.value.code == "chip-count-mismatch"
    service.submit("chip-count", {"count": 2}, D)
    service.submit("deal", {}, D)
    service.submit("release-stub", {}, D)
    inputs = {"meters": {"mega": 100_000_000, "major": 1_000_000, "minor": 50_000}}
    service.submit("progressive-inputs", inputs, S)
    replies = finish_streets(service, {})
    lines = {line["seat"]: line for line in replies[-1]["lines"]}
    assert lines[1]["hand"] == "royal-flush"
    side1 = {s["bet"]: s for s in lines[1]["side"]}
    side2 = {s["bet"]: s for s in lines[2]["side"]}
    assert set(side1) == {"progressive", "envy", "three-card-bonus"}
    assert side1["progressive"]["paid"] == 100_000_000 and side1["progressive"]["paid_from"] == "documentation"
    assert side1["three-card-bonus"]["result"] == "win" and side1["envy"]["paid"] == 0
    assert side2["envy"]["paid"] == 50_000 and side2["progressive"]["hand"] == "three-of-a-kind"
    assert table.entries(kinds=("round-closed",))[-1].data["outcome"] == "complete"
    assert [e.data["seat"] for e in table.entries(kinds=("settlement",))] == [2, 1]
    # every journaled record decodes and replays exactly (settlements with their side lines included)
    round_entries = table.entries(round_id=replies[-1]["round_id"])
    rebuilt = rebuild(round_entries[0], round_entries, GAMES)
    assert rebuilt.state == "complete" and rebuilt.view()["settled"] == service.round_view(OBS)["settled"]  # type: ignore[index]


def _play_stud(service: TableService) -> list[dict[str, Any]]:
    replies = []
    while (view := service.round_view(OBS)) is not None and not view["closed"]:
        if view["next_card"] is not None:
            replies.append(service.submit("deal", {}, D))
            continue
        legal = {a["action"]: a for a in view["legal_actions"]}
        choice = next(legal[k] for k in ("check", "call", "bring-in") if k in legal)
        replies.append(service.submit("stud-action", {"seat": choice["seat"], "action": choice["action"]}, D))
    return replies


def test_nj_seven_card_stud_round(table_factory: Any) -> None:
    table = table_factory()
    service = table.start()
    opened = service.submit("open-round", {"game": "seven-card-stud", "jurisdiction": "NJ",
                                           "table": {"ante": 25, "bring_in": 50, "small_bet": 100, "big_bet": 200},
                                           "seats": [{"seat": 1}, {"seat": 3}, {"seat": 6}]}, D)  # fmt: skip
    assert opened["state"] == "deal-3rd"
    replies = _play_stud(service)
    third = replies[0]
    assert len(third["cards"]) == 9 and [c["face"] for c in third["cards"]] == ["down"] * 6 + ["up"] * 3
    assert all(c["card"] is None for c in third["cards"][:6]) and all(c["card"] for c in third["cards"][6:])
    cards = _cards(table)
    assert len(cards) == 9 + 4 * (1 + 3)  # 3rd street, then a burn and a card each on 4th to 7th
    assert [c["target"] for c in cards].count("burn") == 4
    assert [c["dispense_id"] for c in cards] == list(range(1, len(cards) + 1))
    assert all(c["position"] == 1 and c["seat"] in (None, 1, 3, 6) for c in cards)
    settlement = table.entries(kinds=("settlement",))[-1].data
    assert settlement["uncontested"] is False and set(settlement["showdown"]) == {"1", "3", "6"}
    closed = table.entries(kinds=("round-closed",))[-1].data
    assert closed["outcome"] == "complete" and sum(s["net"] for s in closed["seats"].values()) == 0
    assert table.shoe.stats.cards_moved == len(cards)
    with Journal.open(table.journal) as journal:
        assert journal.verify().ok


def test_stud_settle_returns_the_awards_once_the_pot_is_awarded(table_factory: Any) -> None:
    """The pot is awarded (and the hand closed) when the last betting round closes; ``settle`` then answers
    the awards, journaling nothing, until the next round opens. Before that it is out of order."""
    table = table_factory()
    service = table.start()
    stud = {"game": "seven-card-stud", "table": {"ante": 25, "bring_in": 50, "small_bet": 100, "big_bet": 200}}
    service.submit("open-round", {**stud, "seats": [1, 3]}, D)
    with pytest.raises(ServiceError) as early:
        service.submit("settle", {}, D)
    assert (early.value.code, early.value.kind) == ("out-of-order", ErrorKind.CONFLICT)
    _play_stud(service)
    view = service.round_view(OBS)
    assert view is not None and view["closed"] is True
    before = len(table.entries())
    for _ in range(2):
        reply = service.submit("settle", {}, D)
        assert reply["awards"] == view["pot_shares"] and sum(reply["awards"].values()) == view["pot"]
        assert reply["round_id"] == view["round_id"] and reply["state"] == view["state"]
    assert len(table.entries()) == before
    service.submit("release-stub", {}, D)
    table.shoe.load(deck())
    service.submit("open-round", {**stud, "seats": [1, 3]}, D)
    service.submit("void", {"cause": "other"}, D)
    with pytest.raises(ServiceError) as void:
        service.submit("settle", {}, D)
    assert (void.value.code, void.value.kind) == ("no-round", ErrorKind.NOT_FOUND)


def test_pa_round_needs_a_full_configuration(table_factory: Any) -> None:
    service = table_factory().start()
    pa = {"game": "mississippi-stud", "jurisdiction": "PA", "seats": [{"seat": 1, "ante": 500}]}
    with pytest.raises(ServiceError) as err:
        service.submit("open-round", {**pa, "table": {"side": {"offered": ["envy", "progressive"]}}}, D)
    assert (err.value.code, err.value.kind) == ("configuration-required", ErrorKind.BAD_INPUT)
    with pytest.raises(ServiceError) as err:
        service.submit("open-round", {**pa, "jurisdiction": "XX", "seats": [{"seat": 1, "ante": 5}]}, D)
    assert (err.value.code, err.value.kind) == (
        "bad-request",
        ErrorKind.BAD_INPUT,
    )  # the profiles are the edge's values
    assert "$.jurisdiction" in err.value.message
    assert service.round_view(OBS) is None


def test_the_round_view_lists_the_actions_callable_now(table_factory: Any) -> None:
    """The view's ``actions`` come from the registry: the live round's game's round
    actions; once it is closed, what may run between rounds."""
    table = table_factory()
    service = table.start()
    service.submit("open-round", {"game": "mississippi-stud", "jurisdiction": "NY",
                                  "seats": [{"seat": 1, "ante": 500}]}, D)  # fmt: skip
    live = service.round_view(OBS)
    assert live is not None
    assert live["actions"] == [
        "no-more-bets", "lock-progressive", "chip-count", "deal", "release-stub", "decide", "reveal", "settle",
        "void", "forfeit", "progressive-inputs",
    ]  # fmt: skip
    service.submit("void", {"cause": "other"}, D)
    closed = service.round_view(OBS)
    assert closed is not None and closed["closed"] is True
    assert closed["actions"] == [  # voided before any stack: the deck is whole, still checked (check or release it)
        "open-round",
        "release-stub",
        "check-deck",
        "maintenance-dispense",
        "clear-fault",
        "verify-journal",
    ]
    service.submit("release-stub", {}, D)
    table.shoe.load(deck())
    stud = {"game": "seven-card-stud", "table": {"ante": 25, "bring_in": 50, "small_bet": 100, "big_bet": 200}}
    service.submit("open-round", {**stud, "seats": [1, 3]}, D)
    view = service.round_view(OBS)
    assert view is not None
    assert view["actions"] == ["deal", "settle", "void", "stud-action", "reshuffle-burns"]
