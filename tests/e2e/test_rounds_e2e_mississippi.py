"""Whole Mississippi stud rounds through the real ``shoed`` process, HTTP only,
with the emulated shoe on a pseudo-terminal.

Each test loads a known deck into ``shoectl emulate`` (a process of its own), plays one round over
``/v1`` with the four roles' tokens, and checks the settlement against amounts worked out by hand
below from that deck, the event stream read during the round (every expected event type, in order,
and no card before it may be shown), and the journal through ``shoectl journal verify / show``.
Community cards are never typed in: each reveal leaves ``card`` out, so the service has the shoe's
reader scan the next stub card.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tests.e2e.conftest import Table
from tests.e2e.rounds_support import GameFlow, current, deal_events, round_events, show_round, verify_journal
from tests.e2e.support import Api, EventStream, cards_in, deck


def check_mississippi_secrecy(
    events: Sequence[Mapping[str, Any]], raw: bytes, holes: Mapping[int, Sequence[str]], never: Sequence[str]
) -> None:
    """No event shows a community card before its reveal, nor a hole card before its seat's settlement."""
    shown: set[str] = set()
    for event in events:
        if event["type"] == "reveal":
            shown.add(event["card"])
        if event["type"] == "settlement":
            shown |= set(holes[event["seat"]])
        leaked = cards_in(event) - shown
        assert not leaked, f"{sorted(leaked)} shown too early in {event}"
    for code in never:
        assert f'"{code}"'.encode() not in raw, f"{code} should never be shown"


# -- Mississippi stud ------------------------------------------------------------------------------------


def play_mississippi(
    api: Api, decisions: Mapping[int, Sequence[int]], community: Sequence[str]
) -> tuple[list[dict[str, Any]], GameFlow]:
    """The streets through the round view: each seat's scripted decision, each reveal scanned by the shoe.

    Returns the settlement lines and the event types the streets produced, in order.
    """
    flow: GameFlow = []
    for street in range(3):
        while (seat := current(api)["next_to_decide"]) is not None:
            api.post("/v1/round/decisions", {"seat": seat, "multiple": decisions[seat][street]})
            flow.append("decision")
        view = current(api)
        assert view["next_reveal"] == street + 1, view
        reveal = api.post("/v1/round/reveal", {"index": street + 1})  # no "card": the shoe's reader scans it
        assert (reveal["index"], reveal["card"], reveal["source"]) == (street + 1, community[street], "shoe")
        flow += ["scan-for-community", "reveal"]  # the SCAN is journaled as about to happen, then the card
    view = current(api)
    assert view["state"] == "settlement" and view["community"] == list(community), view
    lines: list[dict[str, Any]] = api.post("/v1/round/settle")["lines"]
    return lines, flow


def base_line(ante: int, multiples: Sequence[int], odds: int | None) -> dict[str, Any]:
    """A base-game settlement by hand: stakes are the ante and each street's multiple of it; a win pays
    ``odds`` to 1 on every stake, 0 is a push, ``None`` loses them all."""
    stakes = [ante, *(m * ante for m in multiples)]
    if odds is None:
        return {"outcome": "lose", "paid": 0, "net": -sum(stakes), "wagers": [(s, "lose", 0) for s in stakes]}
    if odds == 0:
        return {"outcome": "push", "paid": 0, "net": 0, "wagers": [(s, "push", 0) for s in stakes]}
    wagers = [(s, "win", s * odds) for s in stakes]
    return {"outcome": "win", "paid": sum(stakes) * odds, "net": sum(stakes) * odds, "wagers": wagers}


def check_line(
    line: Mapping[str, Any], seat: int, cards: Sequence[str], hand: str, expected: Mapping[str, Any]
) -> None:
    assert (line["seat"], line["cards"], line["hand"]) == (seat, list(cards), hand), line
    assert (line["outcome"], line["paid"], line["net"]) == (expected["outcome"], expected["paid"], expected["net"])
    assert [(w["stake"], w["result"], w["paid"]) for w in line["wagers"]] == expected["wagers"], line["wagers"]
    assert line["capped"] is False


# NY: the stacks go to seats 1, 2, 3, 5, 6; the stub starts with the community cards Kh 9s Qc.
NY_DECK = deck("As", "Ad", "2c", "7d", "4s", "3d", "8c", "8d", "Jh", "Tc", "Kh", "9s", "Qc")
NY_SEATS = {1: 1000, 2: 500, 3: 500, 5: 2000, 6: 500}
NY_DECISIONS = {1: [3, 2, 1], 2: [1, 1, 1], 3: [0], 5: [1, 1, 1], 6: [3, 3, 3]}


def test_ny_round_end_to_end(e2e: Callable[..., Table]) -> None:
    table = e2e(deck=NY_DECK)
    api = table.api
    holes = {1: ["As", "Ad"], 2: ["2c", "7d"], 3: ["4s", "3d"], 5: ["8c", "8d"], 6: ["Jh", "Tc"]}
    community = ["Kh", "9s", "Qc"]
    with EventStream(api.port) as stream:
        seats = [{"seat": s, "ante": a} for s, a in NY_SEATS.items()]
        body = {"game": "mississippi-stud", "jurisdiction": "NY", "table": {"min_ante": 500, "max_ante": 50000}}
        opened = api.call("POST", "/v1/rounds", {**body, "seats": seats})
        assert opened.status == 201, opened.body
        round_id = opened.body["round_id"]
        refused = api.call("POST", "/v1/round/deal")
        assert (refused.status, refused.code) == (409, "out-of-order")  # no stack before "no more bets"
        api.post("/v1/round/no-more-bets")
        dealt = api.post("/v1/round/deal")
        assert [(s["seat"], s["cards"]) for s in dealt["stacks"]] == [(s, 2) for s in NY_SEATS]
        assert api.post("/v1/round/release-stub")["count"] == 52 - 10
        lines, streets = play_mississippi(api, NY_DECISIONS, community)
        events = round_events(stream, round_id)
        raw = bytes(stream.raw)

    # By hand, with Kh 9s Qc on the board (NY 5324.38(f)(1): 4 to 1 a straight, 1 to 1 jacks or better,
    # a pair of 6s-10s pushes): seat 6 Jh Tc makes the straight 9-K; seat 5 8c 8d a pair of eights;
    # seat 2 2c 7d king high; seat 1 As Ad a pair of aces. Seat 3 folded on 3rd street (ante lost).
    # Settlement goes from the dealer's right: descending seats.
    expected = [
        (6, "straight", base_line(500, [3, 3, 3], 4)),  # 500 + 3 x 1500 staked, 4 to 1: 20,000
        (5, "pair", base_line(2000, [1, 1, 1], 0)),  # push: 0
        (2, "high-card", base_line(500, [1, 1, 1], None)),  # -2,000
        (1, "pair", base_line(1000, [3, 2, 1], 1)),  # 1000 + 3000 + 2000 + 1000 at 1 to 1: 7,000
    ]
    assert [line["seat"] for line in lines] == [seat for seat, _, _ in expected]
    for line, (seat, hand, amounts) in zip(lines, expected, strict=True):
        check_line(line, seat, holes[seat], hand, amounts)
        assert line["community"] == community and line["rule"] == "NY 5324.38(e)(7)"
    assert [lines[0]["net"], lines[3]["net"]] == [20000, 7000]
    view = api.round()
    assert view is not None and view["closed"] is True and view["state"] == "complete"
    assert view["seats"]["3"]["status"] == "folded" and view["seats"]["3"]["cards"] is None

    assert [e["type"] for e in events] == [
        "round-opened", "no-more-bets", *deal_events(5), "release-stub", "community-dealt", *streets,
        "settlement", "settlement", "settlement", "settlement", "round-closed",
    ]  # fmt: skip
    scanned = ["scan-for-community", "reveal"]
    assert streets == ["decision"] * 5 + scanned + ["decision"] * 4 + scanned + ["decision"] * 4 + scanned
    closed = events[-1]
    assert closed["outcome"] == "complete"
    assert {s: (v["outcome"], v["net"]) for s, v in closed["seats"].items()} == {
        "1": ("win", 7000), "2": ("lose", -2000), "3": ("fold", -500), "5": ("push", 0), "6": ("win", 20000),
    }  # fmt: skip
    check_mississippi_secrecy(events, raw, holes, never=holes[3])

    order = [("seat", s, c) for s in NY_SEATS for c in holes[s]] + [("community", None, c) for c in community]
    verify_journal(table, round_id)
    shown = show_round(table, round_id, order)
    assert [(s["seat"], [c["card"] for c in s["cards"]]) for s in shown["seats"]] == [(s, holes[s]) for s in NY_SEATS]


# PA: stacks to seats 1, 3, 5; the community Qh Jh Th. Seat 1 Ah Kh makes a royal flush, seat 3 9h 8h a
# straight flush (8 to Q), seat 5 Qd Qs three queens but folds on 3rd street, keeping its side wagers.
PA_DECK = deck("Ah", "Kh", "9h", "8h", "Qd", "Qs", "Qh", "Jh", "Th")
PA_TABLE = {
    "min_ante": 500,
    "max_ante": 50000,
    "side": {
        "offered": ["progressive", "envy", "three-card-bonus"],
        "progressive_table": "A",
        "envy": {"royal_flush": 100_000, "straight_flush": 10_000},
    },
}
PA_SEATS = [
    {"seat": 1, "ante": 500, "side": {"progressive": 100, "three-card-bonus": 500}},
    {"seat": 3, "ante": 1000, "side": {"progressive": 100}},
    {"seat": 5, "ante": 500, "side": {"progressive": 100, "three-card-bonus": 1000}},
]
PA_DECISIONS = {1: [1, 1, 1], 3: [2, 1, 1], 5: [0]}
METER = 2_500_000


def side_lines(line: Mapping[str, Any]) -> dict[str, tuple[str, int | None, int | None]]:
    return {s["bet"]: (s["result"], s["paid"], s["net"]) for s in line["side"]}


def test_pa_round_with_side_wagers_end_to_end(e2e: Callable[..., Table]) -> None:
    table = e2e(deck=PA_DECK)
    api = table.api
    holes = {1: ["Ah", "Kh"], 3: ["9h", "8h"], 5: ["Qd", "Qs"]}
    community = ["Qh", "Jh", "Th"]
    with EventStream(api.port) as stream:
        opened = api.post("/v1/rounds", {"game": "mississippi-stud", "jurisdiction": "PA", "table": PA_TABLE,
                                         "seats": PA_SEATS})  # fmt: skip
        round_id = opened["round_id"]
        api.post("/v1/round/no-more-bets")
        early = api.call("POST", "/v1/round/deal")
        assert (early.status, early.code) == (409, "out-of-order")  # the progressive lock-out comes first
        api.post("/v1/round/progressive/lock")
        miscount = api.call("POST", "/v1/round/progressive/chip-count", {"count": 2})
        assert (miscount.status, miscount.code) == (409, "chip-count-mismatch")
        api.post("/v1/round/progressive/chip-count", {"count": 3})  # one Progressive chip per seat
        assert [s["seat"] for s in api.post("/v1/round/deal")["stacks"]] == [1, 3, 5]
        assert api.post("/v1/round/release-stub")["count"] == 52 - 6
        inputs = {"meters": {"meter": METER}}
        dealer = api.call("POST", "/v1/table-system/progressive-inputs", inputs)
        assert (dealer.status, dealer.code) == (403, "forbidden")  # the table system's call, not the dealer's
        api.post("/v1/table-system/progressive-inputs", inputs, role="table-system")
        lines, streets = play_mississippi(api, PA_DECISIONS, community)
        events = round_events(stream, round_id)
        raw = bytes(stream.raw)

    # By hand (PA 655a.12: royal 500 to 1, straight flush 100 to 1; Progressive table A "for 1": royal
    # 100% and straight flush 10% of the meter; Envy a fixed sum per OTHER royal / straight flush on the
    # table; Three Card Bonus on Qh Jh Th, a three-card straight flush: 40 to 1, stake back on top).
    assert [line["seat"] for line in lines] == [5, 3, 1]
    five, three, one = lines
    check_line(
        five, 5, holes[5], "three-of-a-kind", {"outcome": "fold", "paid": 0, "net": -500, "wagers": [(500, "fold", 0)]}
    )
    assert side_lines(five) == {
        "progressive": ("fold", 0, -100),  # lost on the fold (655a.11(h))
        "envy": ("win", 110_000, 110_000),  # seat 1's royal + seat 3's straight flush
        "three-card-bonus": ("win", 41_000, 40_000),  # 1000 x 40 + the 1000 staked
    }
    check_line(three, 3, holes[3], "straight-flush", base_line(1000, [2, 1, 1], 100))  # 5000 staked: 500,000
    assert side_lines(three) == {
        "progressive": ("win", METER // 10, METER // 10 - 100),  # 10% of the meter
        "envy": ("win", 100_000, 100_000),  # seat 1's royal
    }
    check_line(one, 1, holes[1], "royal-flush", base_line(500, [1, 1, 1], 500))  # 2000 staked: 1,000,000
    assert side_lines(one) == {
        "progressive": ("win", METER, METER - 100),  # the whole meter
        "envy": ("win", 10_000, 10_000),  # seat 3's straight flush
        "three-card-bonus": ("win", 20_500, 20_000),
    }
    progressive = next(s for s in one["side"] if s["bet"] == "progressive")
    assert progressive["paid_from"] == "documentation" and progressive["requires_floorperson"] is True

    assert [e["type"] for e in events] == [
        "round-opened", "no-more-bets", "lock-progressive", "chip-count", *deal_events(3), "release-stub",
        "community-dealt", "progressive-inputs", *streets, "settlement", "settlement", "settlement", "round-closed",
    ]  # fmt: skip
    scanned = ["scan-for-community", "reveal"]
    assert streets == ["decision"] * 3 + scanned + ["decision"] * 2 + scanned + ["decision"] * 2 + scanned
    assert events[-1]["seats"]["5"]["outcome"] == "fold"
    check_mississippi_secrecy(events, raw, holes, never=[])
    order = [("seat", s, c) for s in (1, 3, 5) for c in holes[s]] + [("community", None, c) for c in community]
    verify_journal(table, round_id)
    show_round(table, round_id, order)


# -- seven-card stud ---------------------------------------------------------------------------------------
