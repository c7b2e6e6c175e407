"""The deck cycle through the real ``shoed`` process, HTTP only.

- A deck with a missing (short), extra, duplicate or foreign card is refused before any stack: the check
  names the cards, ``open-round`` answers 409 ``deck-not-ready``, no card is journaled and the shoe's
  card counter never moved (read from the shoe itself once ``shoed`` has stopped).
- With ``[deck] backs`` the decks alternate: a deck with the wrong back is refused.
- The README's run command (``shoed`` on its embedded default ``emu://``): a Mississippi round, then a
  second one on the deck the emulator loaded by itself after the stub; a seven-card stud hand, the
  dealer's ``release-stub``, the next hand.
- A lost link refuses ``open-round`` (503 ``shoe-unavailable``): never a round on an unreachable shoe.

The emulator runs as ``shoectl emulate --pty --control PATH`` (its own process) and the dealer's
``POST /v1/deck/load`` reaches it through ``[shoe] emulator_control``; the embedded default is the
emulator inside ``shoed``.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import write_config
from tests.e2e.support import READY_TIMEOUT_S, ROOT, Api, Proc, Shoed, child_env, free_port

OPEN_NY = {"game": "mississippi-stud", "jurisdiction": "NY", "seats": [{"seat": 1, "ante": 500}]}
OPEN_STUD = {"game": "seven-card-stud", "seats": [1, 2], "table": {"bring_in": 50, "small_bet": 100, "big_bet": 200}}


class DeckTable:
    def __init__(self, root: Path, shoed: Shoed, link: Path | None, emulator: Proc | None) -> None:
        self.root, self.shoed, self.link, self.emulator = root, shoed, link, emulator

    @property
    def api(self) -> Api:
        return self.shoed.api

    def entries(self, kinds: tuple[str, ...] | None = None) -> list[Any]:
        from shoe.journal import Journal

        with Journal.open(self.shoed.journal) as journal:
            return list(journal.entries(kinds=kinds))

    def deck(self) -> dict[str, Any]:
        view: dict[str, Any] = self.api.get("/v1/deck")
        return view

    def wait_deck(self, state: str, timeout: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            view = self.deck()
            if view["state"] == state:
                return view
            time.sleep(0.05)
        raise AssertionError(f"the deck never reached {state!r}: {self.deck()}")

    def shoe_cards_counter(self) -> int:
        """The shoe's lifetime card counter (COUNTERS), read from the shoe once ``shoed`` has let it go."""
        assert self.shoed.stop() == 0 and self.link is not None
        argv = [sys.executable, "-m", "shoe.cli.main", "--json", "--port", str(self.link), "counters"]
        out = subprocess.run(argv, cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=60, check=True)
        counters: dict[str, Any] = json.loads(out.stdout)
        return int(counters["cards"])


@pytest.fixture
def deck_table(tmp_path: Path) -> Iterator[Callable[..., DeckTable]]:
    """``deck_table(extra_config="", embedded=False)``: shoed on a pty emulator with a control socket, or (embedded)
    on its embedded default port, with no ``--port`` and no ``shoe.port``: the README's run command."""
    procs: list[Proc] = []

    def start(*, extra_config: str = "", embedded: bool = False, replug_after: float = 0.5) -> DeckTable:
        link, control, journal = tmp_path / "shoe0", tmp_path / "control.sock", tmp_path / "journal.sqlite"
        config, http_port = tmp_path / "shoed.toml", free_port()
        write_config(config, http_port)
        text = config.read_text()  # it names no shoe.port: without --port, shoed runs its embedded default
        if not embedded:
            text = text.replace("[shoe]\n", f'[shoe]\nemulator_control = "{control}"\n')
        config.write_text(text + extra_config)
        emulator: Proc | None = None
        if not embedded:
            argv = [sys.executable, "-m", "shoe.cli.main", "--json", "emulate", "--pty", "--link", str(link),
                    "--control", str(control), "--seed", "7", "--replug-after", str(replug_after)]  # fmt: skip
            emulator = Proc("emulator", argv, tmp_path / "emulator.log", pipes=True)
            procs.append(emulator)
            emulator.read_line(READY_TIMEOUT_S)
        shoed = Shoed(tmp_path, str(link), journal, config, http_port=http_port, procs=procs)
        if embedded:  # no --port: the embedded default
            argv = [sys.executable, "-m", "shoe.shoed", "--config", str(config), "--journal", str(journal),
                    "--http", f"127.0.0.1:{http_port}"]  # fmt: skip
            shoed.runs.append(Proc("shoed", argv, tmp_path / "shoed-0.log"))
            procs.append(shoed.proc)
            shoed.wait_ready()
        else:
            shoed.start()
        return DeckTable(tmp_path, shoed, None if embedded else link, emulator)

    yield start
    for proc in reversed(procs):
        proc.stop()


def play_ny(api: Api) -> dict[str, Any]:
    """One NY round, every decision 1x, each community card scanned by the shoe: the closed round's view."""
    api.post("/v1/rounds", OPEN_NY)
    for path in ("/v1/round/no-more-bets", "/v1/round/deal", "/v1/round/release-stub"):
        api.post(path)
    for street in range(1, 4):
        while (seat := (api.round() or {})["next_to_decide"]) is not None:
            api.post("/v1/round/decisions", {"seat": seat, "multiple": 1})
        if (api.round() or {})["state"] in ("complete", "misdeal"):
            break
        api.post("/v1/round/reveal", {"index": street})
    if (api.round() or {})["state"] == "settlement":
        api.post("/v1/round/settle")
    view = api.round()
    assert view is not None and view["closed"], view
    return view


def play_stud(api: Api) -> dict[str, Any]:
    """A seven-card stud hand: third street, the bring-in, the other seat folds (uncontested)."""
    api.post("/v1/rounds", OPEN_STUD)
    api.post("/v1/round/deal")
    first = (api.round() or {})["to_act"]
    api.post("/v1/round/stud-actions", {"seat": first, "action": "bring-in", "amount": 50})
    second = (api.round() or {})["to_act"]
    api.post("/v1/round/stud-actions", {"seat": second, "action": "fold"})
    view = api.round()
    assert view is not None and view["closed"], view
    return view


FAULTS = {
    "short": ({"short": 1}, {"count": 51, "missing": 1, "extra": 0, "duplicates": 0, "foreign": 0}),
    "extra": ({"extra": 1}, {"count": 53, "missing": 0, "extra": 1, "duplicates": 1, "foreign": 0}),
    "duplicate": ({"duplicate": 1}, {"count": 52, "missing": 1, "extra": 0, "duplicates": 1, "foreign": 0}),
    "foreign": ({"foreign": 1}, {"count": 52, "missing": 1, "extra": 0, "duplicates": 0, "foreign": 1}),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_faulty_deck_is_refused_before_any_stack(deck_table: Callable[..., DeckTable], fault: str) -> None:
    table = deck_table()
    api = table.api
    start = table.wait_deck("checked")  # the deck the emulator started with, checked at connect
    assert start["check"]["ok"] and start["emulator"] and start["actions"] == ["check-deck", "release-stub"]
    assert api.post("/v1/round/release-stub")["count"] == 52  # the dealer empties the shoe
    assert table.deck()["state"] == "awaiting-deck" and table.deck()["actions"] == ["load-deck"]
    body, expected = FAULTS[fault]
    view = api.post("/v1/deck/load", body)
    check = view["check"]
    assert view["state"] == "refused" and not check["ok"] and check["checked_faces"], view
    shown = {k: len(check[k]) if isinstance(check[k], list) else check[k] for k in expected}
    assert shown == expected, check
    assert check["who"] == "shoed" and check["problems"], check
    refused = api.call("POST", "/v1/rounds", OPEN_NY)
    assert (refused.status, refused.code) == (409, "deck-not-ready"), refused.body
    assert "release" in refused.body["error"]["hint"]
    assert table.entries(kinds=("card", "round-opened")) == []
    deck = [(e.data["event"], e.data.get("who"), e.data.get("ok")) for e in table.entries(kinds=("deck",))]
    assert deck == [("loaded", "status", None), ("checked", "shoed", True), ("released", "dealer", None),
                    ("loaded", "dealer", None), ("checked", "shoed", False)]  # fmt: skip
    assert table.shoe_cards_counter() == 0  # not one card left the shoe


def test_alternating_backs_refuse_the_wrong_back(deck_table: Callable[..., DeckTable]) -> None:
    table = deck_table(extra_config='[deck]\nbacks = ["red", "blue"]\n')
    api = table.api
    assert table.wait_deck("checked")["expected_back"] is None  # the first deck: any of the table's backs
    api.post("/v1/rounds", OPEN_NY)
    assert table.deck()["state"] == "in-play"
    api.post("/v1/round/no-more-bets")
    api.post("/v1/round/deal")
    api.post("/v1/round/void", {"cause": "other"})
    assert table.deck()["state"] == "used" and table.deck()["expected_back"] == "blue"
    api.post("/v1/round/release-stub")
    wrong = api.post("/v1/deck/load", {"back": "red"})
    assert wrong["state"] == "refused" and wrong["check"]["back"] == "red", wrong
    assert "back 'red', expected 'blue'" in wrong["check"]["problems"]
    assert api.call("POST", "/v1/rounds", OPEN_NY).code == "deck-not-ready"
    api.post("/v1/round/release-stub")
    right = api.post("/v1/deck/load")  # the back the table expects next
    assert (right["state"], right["back"], right["check"]["ok"]) == ("checked", "blue", True), right
    api.post("/v1/rounds", OPEN_NY)
    opened = table.entries(kinds=("round-opened",))[-1].data
    assert opened["deck"] == {"deck_no": right["deck_no"], "back": "blue"}


def test_the_readme_default_deals_round_after_round(deck_table: Callable[..., DeckTable]) -> None:
    table = deck_table(embedded=True)
    api = table.api
    first = table.wait_deck("checked")
    assert first["emulator"] and first["count"] == 52
    play_ny(api)
    second = table.wait_deck("checked")  # the emulator loaded the next deck after the stub; checked on load
    assert second["deck_no"] == first["deck_no"] + 1 and second["check"]["who"] == "shoed"
    closed = play_ny(api)
    assert closed["state"] == "complete"
    opened = [e.data["deck"]["deck_no"] for e in table.entries(kinds=("round-opened",))]
    assert opened == [first["deck_no"], second["deck_no"]]
    counts = [e.data["cards_remaining"] for e in table.entries(kinds=("round-opened",))]
    assert counts == [52, 52]  # the shoe's count and the journal's deck check agree at each round's start


def test_a_stud_hand_then_release_stub_then_the_next_hand(deck_table: Callable[..., DeckTable]) -> None:
    table = deck_table(embedded=True)
    api = table.api
    table.wait_deck("checked")
    play_stud(api)
    used = table.deck()
    assert used["state"] == "used" and used["actions"] == ["release-stub"], used
    refused = api.call("POST", "/v1/rounds", OPEN_STUD)
    assert (refused.status, refused.code) == (409, "deck-not-ready"), refused.body
    assert "release the stub" in refused.body["error"]["hint"]
    assert api.post("/v1/round/release-stub")["count"] > 0
    table.wait_deck("checked")  # the embedded emulator loads the next deck by itself
    api.post("/v1/rounds", OPEN_STUD)
    assert [e.data["stub_size"] for e in table.entries(kinds=("round-opened",))] == [52, 52]


def test_no_round_opens_while_the_shoe_is_unreachable(deck_table: Callable[..., DeckTable]) -> None:
    table = deck_table(replug_after=60.0)
    api = table.api
    table.wait_deck("checked")
    assert table.emulator is not None
    table.emulator.popen.send_signal(signal.SIGUSR1)  # the cable is pulled (plugged back in a minute later)
    deadline = time.monotonic() + 15
    while api.get("/v1/status")["shoe"]["link"] == "up" and time.monotonic() < deadline:
        time.sleep(0.05)
    # the link's state and the deck's are published one after the other by the owner thread: a reader may
    # see the link down a moment before the deck turns unknown (the gate below refuses either way)
    while table.deck()["state"] != "unknown" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert table.deck()["state"] == "unknown"
    refused = api.call("POST", "/v1/rounds", OPEN_NY)
    assert (refused.status, refused.code) == (503, "shoe-unavailable"), refused.body
    assert table.entries(kinds=("round-opened",)) == []
