"""Card secrecy: no reply, view, event or log line shows a card before its time, to any role."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from structlog.testing import capture_logs

from shoe.service import Role, TableService
from shoe.service.journal.secrecy import project, public_record, scrub_text
from tests.service.conftest import OBS, D, Table

CODE = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][cdhs])(?![A-Za-z0-9])")
NY = {1: ("Ah", "Kh"), 3: ("8c", "8d"), 5: ("4s", "9h")}
COMMUNITY = ("Qh", "Jh", "Th")


class Recorder:
    """Everything that leaves the service, tagged with the step it left at."""

    def __init__(self, service: TableService) -> None:
        self.service = service
        self.outputs: list[tuple[int, str]] = []
        self.cursor = 0
        self.step = 0

    def submit(self, action: str, params: dict[str, Any]) -> dict[str, Any]:
        reply = self.service.submit(action, params, D)
        self.step += 1
        self.outputs.append((self.step, json.dumps(reply)))
        for role in Role:
            self.outputs.append((self.step, json.dumps(self.service.round_view(role))))
        self.cursor, events = self.service.events_since(self.cursor, 0.0)
        self.outputs.append((self.step, json.dumps(events)))
        self.outputs.append((self.step, json.dumps(self.service.health())))
        return reply

    def leaks(self, secret: set[str], public_from: dict[str, int]) -> list[tuple[int, str]]:
        """(step, card) for every secret card shown before the step it became public."""
        found = []
        for step, text in self.outputs:
            for code in CODE.findall(text):
                if code in secret and step < public_from.get(code, 1 << 30):
                    found.append((step, code))
        return found


def _logged_codes(logs: list[dict[str, Any]], secret: set[str]) -> set[str]:
    return {code for entry in logs for code in CODE.findall(str(entry)) if code in secret}


def test_mississippi_round_never_shows_a_card_early(table_factory: Callable[..., Table]) -> None:
    table = table_factory(*NY[1], *NY[3], *NY[5], *COMMUNITY)
    with capture_logs() as logs:
        service = table.start()
        rec = Recorder(service)
        rec.submit("open-round", {"game": "mississippi-stud", "jurisdiction": "NY",
                                  "seats": [{"seat": s, "ante": 500} for s in NY]})  # fmt: skip
        for action in ("no-more-bets", "deal", "release-stub"):
            rec.submit(action, {})
        public_from: dict[str, int] = {}
        for street in range(3):
            while (seat := service.round_view(OBS)["next_to_decide"]) is not None:  # type: ignore[index]
                rec.submit("decide", {"seat": seat, "multiple": 0 if seat == 5 and street == 1 else 2})
            rec.submit("reveal", {"index": street + 1})
            public_from[COMMUNITY[street]] = rec.step
        rec.submit("settle", {})
        for seat in (1, 3):
            public_from.update(dict.fromkeys(NY[seat], rec.step))
        service.stop()
    secret = {c for cards in NY.values() for c in cards} | set(COMMUNITY)
    assert rec.leaks(secret, public_from) == []
    assert any("Ah" in text for _, text in rec.outputs)  # the settled hands are shown at the end
    assert not any(c in text for _, text in rec.outputs for c in NY[5])  # the folded hand never is
    assert _logged_codes(logs, secret) == set()
    assert {e.data["card"] for e in table.entries(kinds=("card",))} == secret  # the journal holds them all


def test_stud_down_cards_and_burns_stay_hidden(table_factory: Callable[..., Table]) -> None:
    table = table_factory()
    with capture_logs() as logs:
        service = table.start()
        rec = Recorder(service)
        rec.submit("open-round", {"game": "seven-card-stud", "jurisdiction": "NJ", "seats": [2, 4, 7],
                                  "table": {"ante": 0, "bring_in": 50, "small_bet": 100, "big_bet": 200}})  # fmt: skip
        while not (view := service.round_view(OBS))["closed"]:  # type: ignore[index]
            if view["next_card"] is not None:  # type: ignore[index]
                rec.submit("deal", {})
                continue
            legal = {a["action"]: a for a in view["legal_actions"]}  # type: ignore[index]
            seat = next(iter(legal.values()))["seat"]
            kind = (
                "fold"
                if seat == 7 and "fold" in legal
                else next(k for k in ("check", "call", "bring-in") if k in legal)
            )
            rec.submit("stud-action", {"seat": seat, "action": kind})
        service.stop()
    cards = [e.data for e in table.entries(kinds=("card",))]
    secret = {c["card"] for c in cards if c["face"] == "down" or c["target"] == "burn"}
    shown_at_end = {c["card"] for c in cards if c["face"] == "down" and c["target"] == "seat" and c["seat"] != 7}
    assert len(secret) == 2 * 3 + 4 + 2  # holes, burns, 7th street for the two left in
    assert rec.leaks(secret, dict.fromkeys(shown_at_end, rec.step)) == []
    final = " ".join(text for step, text in rec.outputs if step == rec.step)
    assert all(code in final for code in shown_at_end)
    assert _logged_codes(logs, secret) == set()


def test_projection_rules() -> None:
    misdeal = {"type": "MisdealRecord", "detail": "card As was already dealt this round", "cause": "duplicate-card"}
    assert public_record(misdeal)["detail"] == "card ?? was already dealt this round"  # type: ignore[index]
    stack = {"type": "StackRecord", "seat": 1, "cards": ["As", "Kd"]}
    assert public_record(stack) == {"type": "StackRecord", "seat": 1, "cards": 2}
    down = {"target": "seat", "seat": 2, "card": "As", "face": "down", "record": {"type": "CardDealt", "card": "As"}}
    assert "As" not in json.dumps(project(1, "t", "card", "r", down))
    assert project(1, "t", "card", "r", {"target": "seat", "card": "As", "face": "down"}) == []
    tech = project(2, "t", "technician", None, {"action": "maintenance-dispense", "cards": ["As", "Kd"]})
    assert "As" not in json.dumps(tech)
    assert scrub_text("Ts and 9h, 4th street") == "?? and ??, 4th street"


def test_vocabulary_values_are_not_scrubbed_but_free_text_is() -> None:
    """A paytable line named pair-6s-to-10s is not a card; a message naming 6s is scrubbed."""
    from shoe.service.journal.secrecy import public_record

    side = {"type": "SideResult", "bet": "three-card", "note": "dealt 6s to seat 2"}
    shown = public_record({"type": "SeatSettlement", "seat": 2, "line": "pair-6s-to-10s", "side": [side]})
    assert shown is not None
    assert shown["line"] == "pair-6s-to-10s"
    assert shown["side"] == [{"type": "SideResult", "bet": "three-card", "note": "dealt ?? to seat 2"}]
