"""Whole rounds through the real ``shoed`` process, HTTP only, with the emulated shoe on a pseudo-terminal.

Each test loads a known deck into ``shoectl emulate`` (a process of its own), plays one round over
``/v1`` with the four roles' tokens, and checks the settlement against amounts worked out by hand
below from that deck, the event stream read during the round (every expected event type, in order,
and no card before it may be shown), and the journal through ``shoectl journal verify / show``.
Community cards are never typed in: each reveal leaves ``card`` out, so the service has the shoe's
reader scan the next stub card.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tests.e2e.conftest import Api, EventStream, Table, cards_in, deck, duplicates

GameFlow = list[str]


def deal_events(stacks: int) -> GameFlow:
    """Each stack (a stud card is a stack of one) is announced, then recorded."""
    return ["stack-for-seat", "stack-dealt"] * stacks


def round_events(stream: EventStream, round_id: str) -> list[dict[str, Any]]:
    stream.wait_for(lambda e: e.get("type") == "round-closed" and e.get("round_id") == round_id)
    assert not stream.problems, stream.problems
    return [e for e in stream.events if e.get("round_id") == round_id]


def verify_journal(table: Table, round_id: str) -> None:
    """``shoectl journal verify`` exits 0 and no card of the round is journaled twice."""
    verify = table.shoectl("journal", "verify", "--journal", str(table.journal))
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "chain intact" in verify.stdout
    assert not duplicates(table.entries(round_id=round_id))


def show_round(table: Table, round_id: str, order: Sequence[tuple[str, int | None, str]]) -> dict[str, Any]:
    """``shoectl journal show --round`` lists the round's cards in dealing order."""
    show = table.shoectl("--json", "journal", "show", "--journal", str(table.journal), "--round", round_id)
    assert show.returncode == 0, show.stdout + show.stderr
    shown: dict[str, Any] = json.loads(show.stdout)
    assert shown["integrity"]["ok"] is True
    assert [(c["target"], c["seat"], c["card"]) for c in shown["dealing_order"]] == list(order)
    assert [c["index"] for c in shown["dealing_order"]] == list(range(1, len(order) + 1))
    return shown


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


def current(api: Api) -> dict[str, Any]:
    view = api.round()
    assert view is not None, "no round"
    return view


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
        flow.append("reveal")
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
    assert streets == ["decision"] * 5 + ["reveal"] + ["decision"] * 4 + ["reveal"] + ["decision"] * 4 + ["reveal"]
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
    assert streets == ["decision"] * 3 + ["reveal"] + ["decision"] * 2 + ["reveal"] + ["decision"] * 2 + ["reveal"]
    assert events[-1]["seats"]["5"]["outcome"] == "fold"
    check_mississippi_secrecy(events, raw, holes, never=[])
    order = [("seat", s, c) for s in (1, 3, 5) for c in holes[s]] + [("community", None, c) for c in community]
    verify_journal(table, round_id)
    show_round(table, round_id, order)


# -- seven-card stud ---------------------------------------------------------------------------------------

# NJ, seats 1, 2, 4, 6. 3rd street deals two down cards round the table, then one up: seat 1 Qs Qh / Kd,
# seat 2 5d 5s / 3c, seat 4 8s 8c / Ah, seat 6 Jd 4d / 3h. Then a burn before each street: 4th Kc 7s 9d,
# 5th 4h Ad, 6th 2s 6c, 7th (down) Jc Tc.
STUD_DECK = deck(
    "Qs", "5d", "8s", "Jd", "Qh", "5s", "8c", "4d", "Kd", "3c", "Ah", "3h",
    "2h", "Kc", "7s", "9d", "9c", "4h", "Ad", "7h", "2s", "6c", "Ts", "Jc", "Tc",
)  # fmt: skip
STUD_TABLE = {"ante": 25, "bring_in": 100, "small_bet": 200, "big_bet": 400}
BURNS = ("2h", "9c", "7h", "Ts")
# (seat to act, action, amount): seat 2 brings in (3c, the lowest up card: clubs below hearts); seat 1
# opens 4th street with kings showing; seat 4 opens 5th and 6th with aces showing; 6th and 7th are checked.
STUD_ACTIONS: list[tuple[int, str, int | None]] = [
    (2, "bring-in", 100), (4, "complete", 200), (6, "fold", None), (1, "call", 200), (2, "call", 100),
    (1, "bet", 200), (2, "fold", None), (4, "raise", 400), (1, "call", 200),
    (4, "bet", 400), (1, "call", 400),
    (4, "check", None), (1, "check", None),
    (4, "check", None), (1, "check", None),
]  # fmt: skip


def play_stud(api: Api, actions: Sequence[tuple[int, str, int | None]]) -> tuple[list[dict[str, Any]], GameFlow]:
    """Deal each street, then the scripted actions in turn; the deal replies and the event types expected."""
    deals: list[dict[str, Any]] = []
    flow: GameFlow = []
    script = list(actions)
    while not (view := api.round() or {}).get("closed", True):
        if view["next_card"] is not None:
            deals.append(api.post("/v1/round/deal"))
            flow += deal_events(len(deals[-1]["cards"]))
            continue
        seat, action, amount = script.pop(0)
        assert view["to_act"] == seat, (view["to_act"], seat, action)
        api.post(
            "/v1/round/stud-actions", {"seat": seat, "action": action, **({} if amount is None else {"amount": amount})}
        )
        flow.append("decision")
    assert not script, script
    return deals, flow


def test_nj_seven_card_stud_round_end_to_end(e2e: Callable[..., Table]) -> None:
    table = e2e(deck=STUD_DECK)
    api = table.api
    with EventStream(api.port) as stream:
        opened = api.post("/v1/rounds", {"game": "seven-card-stud", "jurisdiction": "NJ", "table": STUD_TABLE,
                                         "seats": [1, 2, 4, 6]})  # fmt: skip
        round_id = opened["round_id"]
        assert opened["state"] == "deal-3rd"
        deals, flow = play_stud(api, STUD_ACTIONS)
        events = round_events(stream, round_id)
        stub = api.post("/v1/round/release-stub")  # the hand is over: the dealer empties the shoe
        raw = bytes(stream.raw)
    assert stub["count"] == 52 - 25

    # 3rd street: four down, four down, four up; every card is its own dispense, up cards shown at once.
    assert [len(d["cards"]) for d in deals] == [12, 4, 3, 3, 3]  # burn + each live player from 4th street
    third = deals[0]["cards"]
    assert [(c["seat"], c["face"], c["card"]) for c in third[8:]] == [(1, "up", "Kd"), (2, "up", "3c"),
                                                                      (4, "up", "Ah"), (6, "up", "3h")]  # fmt: skip
    assert all(c["card"] is None for c in third[:8])
    assert [c["target"] for d in deals[1:] for c in d["cards"][:1]] == ["burn"] * 4
    assert all(c["card"] is None for d in deals[1:] for c in d["cards"] if c["face"] == "down")

    # By hand: antes 4 x 25 = 100; 3rd street 100 (bring-in) + 200 + 200 + 100 = 600; 4th 200 + 400 + 200
    # = 800; 5th 400 + 400 = 800: a pot of 2,300. Showdown: seat 4 has aces and eights (Ah Ad 8s 8c, T
    # kicker), seat 1 kings and queens: seat 4 wins. Seat 1 and 4 each put in 25 + 200 + 400 + 400.
    view = api.round()
    assert view is not None and view["closed"] is True and view["state"] == "showdown"
    assert (view["pot"], view["winners"], view["pot_shares"]) == (2300, [4], {"4": 2300})
    closed = events[-1]
    assert closed["type"] == "round-closed" and closed["outcome"] == "complete" and closed["pot"] == 2300
    assert {s: (v["outcome"], v["net"]) for s, v in closed["seats"].items()} == {
        "1": ("lose", -1025), "2": ("fold", -225), "4": ("win", 2300 - 1025), "6": ("fold", -25),
    }  # fmt: skip
    settlement = events[-2]
    assert settlement["type"] == "settlement" and settlement["uncontested"] is False
    assert settlement["awards"] == [{"seat": 4, "amount": 2300, "odd_chips": 0}]
    showdown = {"1": ["Qs", "Qh", "Kd", "Kc", "4h", "2s", "Jc"], "4": ["8s", "8c", "Ah", "9d", "Ad", "6c", "Tc"]}
    assert settlement["showdown"] == showdown

    assert [e["type"] for e in events] == ["round-opened", *flow, "settlement", "round-closed"]
    assert flow == [
        *deal_events(12), *["decision"] * 5, *deal_events(4), *["decision"] * 4, *deal_events(3),
        *["decision"] * 2, *deal_events(3), *["decision"] * 2, *deal_events(3), *["decision"] * 2,
    ]  # fmt: skip
    up = {"Kd", "3c", "Ah", "3h", "Kc", "7s", "9d", "4h", "Ad", "2s", "6c"}
    shown: set[str] = set()
    for event in events:  # up cards as dealt; down cards only at the showdown, for the players in it
        if event["type"] == "stack-dealt" and event["card"] is not None:
            assert event["face"] == "up"
            shown.add(event["card"])
        if event["type"] == "settlement":
            shown |= {c for cards in showdown.values() for c in cards}
        leaked = cards_in(event) - shown
        assert not leaked, f"{sorted(leaked)} shown too early in {event}"
    assert shown - {c for cards in showdown.values() for c in cards} <= up
    for code in (*BURNS, "5d", "5s", "Jd", "4d"):  # burns, and the folded players' down cards: never
        assert f'"{code}"'.encode() not in raw, code

    order: list[tuple[str, int | None, str]] = [
        ("seat", seat, card) for seat, card in zip([1, 2, 4, 6] * 3, STUD_DECK[:12], strict=True)
    ]
    for burn, players, dealt in [("2h", [1, 2, 4], "Kc 7s 9d"), ("9c", [1, 4], "4h Ad"), ("7h", [1, 4], "2s 6c"),
                                 ("Ts", [1, 4], "Jc Tc")]:  # fmt: skip
        order += [("burn", None, burn), *(("seat", s, c) for s, c in zip(players, dealt.split(), strict=True))]
    verify_journal(table, round_id)
    # The journal in dealing order (read directly: ``shoectl journal show`` fails on a stud round, see below).
    cards = [e.data for e in table.entries(round_id=round_id, kinds=("card",))]
    assert [(c["target"], c["seat"], c["card"]) for c in cards] == order
    assert [c["index"] for c in cards] == list(range(1, len(order) + 1))


def play_short_stud_hand(api: Api) -> str:
    """Three players; up cards 8c (seat 1), 4d (seat 2), Kd (seat 4): seat 2 brings in, the others fold."""
    round_id: str = api.post(
        "/v1/rounds", {"game": "seven-card-stud", "jurisdiction": "NJ", "table": STUD_TABLE, "seats": [1, 2, 4]}
    )["round_id"]
    api.post("/v1/round/deal")
    for seat, action in ((2, "bring-in"), (4, "fold"), (1, "fold")):
        api.post("/v1/round/stud-actions", {"seat": seat, "action": action})
    view = api.round()
    assert view is not None and view["winners"] == [2] and view["pot_shares"] == {"2": 3 * 25 + 100}
    return round_id


def test_stud_settle_after_the_last_betting_round_returns_the_awards(e2e: Callable[..., Table]) -> None:
    api = e2e(deck=STUD_DECK).api
    play_short_stud_hand(api)
    settle = api.call("POST", "/v1/round/settle")
    assert settle.status == 200, (settle.status, settle.body)
    assert settle.body["awards"] == {"2": 3 * 25 + 100}


def test_journal_show_reconstructs_a_stud_round_from_shoed(e2e: Callable[..., Table]) -> None:
    table = e2e(deck=STUD_DECK)
    round_id = play_short_stud_hand(table.api)
    order = [("seat", seat, card) for seat, card in zip([1, 2, 4] * 3, STUD_DECK[:9], strict=True)]
    show_round(table, round_id, order)
