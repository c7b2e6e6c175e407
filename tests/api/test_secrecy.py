"""Card secrecy over HTTP: with a known deck, scan every body, every SSE byte and every log line of a
round, step by step, for any card not yet shown: a hole card before its seat is settled (a folded
hand never), a community card before its reveal, a stub card ever.  The journal holds them all.
"""

from __future__ import annotations

import io
import random
import re
from collections.abc import Callable

from shoe import logsetup
from shoe.api import ApiServer
from shoe.cards import Card
from shoe.journal import Journal
from shoe.service import Role, TableService
from tests.api.conftest import NY_SEATS, TOKEN_OF, TOKENS, Client, SseReader

RANKS, SUITS = "23456789TJQKA", "cdhs"
DECK = [r + s for r in RANKS for s in SUITS]
random.Random(20240607).shuffle(DECK)
HOLES = {1: DECK[0:2], 3: DECK[2:4], 5: DECK[4:6]}  # one two-card stack per seat, in seat order
COMMUNITY = DECK[6:9]  # read from the top of the released stub at each reveal
ROUND_ID = re.compile(r"-[0-9]{8}T[0-9]{6}Z-[0-9a-f]{6}")
PAYTABLE_LINE = re.compile(r'"line":\s*"[^"]*"')  # "pair-6s-to-10s" names a paytable line, not a card


CODES = re.compile(r"(?<![A-Za-z0-9])(?:[2-9TJQKA][cdhs])+(?![A-Za-z0-9])")
"""A card code, or several written together (``AsKd7c``: the ``emu://?deck=`` option is one)."""


def _shown_cards(text: str, cards: set[str]) -> set[str]:
    text = ROUND_ID.sub("", PAYTABLE_LINE.sub("", text))  # a round id's hex tail may look like cards (7c2d9c)
    runs = [m.group() for m in CODES.finditer(text)]
    return {run[i : i + 2] for run in runs for i in range(0, len(run), 2)} & cards


class Watch:
    """Everything that left the service, checked against the cards that may be shown so far."""

    def __init__(self, api: ApiServer, log: io.StringIO) -> None:
        self.clients = {role: Client(api.address, TOKEN_OF[role]) for role in Role}
        self.stream = SseReader(api.address, headers={"Authorization": f"Bearer {TOKEN_OF[Role.OBSERVER]}"})
        self.log = log
        self.shown: set[str] = set()
        self.checks = 0

    def act(self, role: Role, path: str, body: object = None) -> dict[str, object]:
        answer = self.clients[role].call("POST", path, {} if body is None else body)
        assert answer.status in (200, 201), answer.body
        self.check()
        result: dict[str, object] = answer.json
        return result

    def check(self) -> None:
        for client in self.clients.values():  # every role reads everything it may
            for path in ("/v1/round", "/v1/status", "/metrics"):
                assert client.call("GET", path).status == 200
        self.stream.events(quiet=0.1)
        texts = [b.decode() for c in self.clients.values() for b in c.transcript]
        texts += [self.stream.raw.decode(), self.log.getvalue()]
        text = "\n".join(texts)
        leaked = _shown_cards(text, set(DECK) - self.shown)
        where = [text[max(0, m.start() - 300) : m.end() + 100] for c in leaked for m in re.finditer(c, text)]
        assert not leaked, f"shown before their time: {sorted(leaked)}: {where[:3]}"
        assert "deck=" not in text, "the shoe port's options (the deck) were shown"
        self.checks += 1


def test_no_card_shows_before_its_time_to_any_role(start_service: Callable[..., TableService]) -> None:
    log = io.StringIO()
    logsetup.configure("debug", json_lines=True, stream=log)
    service = start_service(f"emu://?deck={''.join(DECK)}", TOKENS)
    with ApiServer(service, "127.0.0.1", 0, tokens=TOKENS) as api:
        watch = Watch(api, log)
        dealer = Role.DEALER
        watch.act(dealer, "/v1/rounds", {"game": "mississippi-stud", "jurisdiction": "NY", "seats": NY_SEATS})
        watch.act(dealer, "/v1/round/no-more-bets")
        watch.act(dealer, "/v1/round/deal")
        watch.act(dealer, "/v1/round/release-stub")
        for street in range(3):
            for seat in (1, 3, 5):
                if street == 0 or seat != 3:  # seat 3 folds on third street
                    watch.act(dealer, "/v1/round/decisions", {"seat": seat, "multiple": 0 if seat == 3 else 2})
            watch.shown.add(COMMUNITY[street])  # from the reveal on, the card may show
            assert watch.act(dealer, "/v1/round/reveal", {"index": street + 1})["card"] == COMMUNITY[street]
        watch.shown |= set(HOLES[1]) | set(HOLES[5])  # settling shows the hands still in play
        lines = watch.act(dealer, "/v1/round/settle")["lines"]
        assert isinstance(lines, list)
        assert {line["seat"]: sorted(line["cards"]) for line in lines} == {5: sorted(HOLES[5]), 1: sorted(HOLES[1])}
        watch.check()  # seat 3's folded hand and the 43 stub cards: never
        assert watch.checks >= 14
        watch.stream.close()
    service.stop()
    with Journal.open(service.config.journal) as journal:
        dealt = [e.data["card"] for e in journal.entries() if e.kind == "card"]
    assert dealt == [Card.parse(c).code for c in DECK[:9]]  # the journal holds every card, in dealing order
