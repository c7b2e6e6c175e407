"""Power cuts at random points over many rounds: ``shoed`` is SIGKILLed and restarted on the same journal and
the same (still running) emulated shoe, and every time the journal verifies, no card is dealt twice, and
the round either resumes to its settlement or is void with every wager returned (docs/service.md,
"Recovery decisions").

One shoe serves every round (``EmuHost``: the dealer reloads it with a new shuffled deck between rounds),
so its dispense ids and event log carry over from round to round as a real shoe's do. Each round is NY,
PA or NJ seven-card stud with random seats, wagers and decisions, and one or two kill points drawn from
``random.Random(seed)``: before any HTTP step (which is also just after the step before it), or DURING a
command, by a SIGKILL from a timer thread a few milliseconds after the request went out (``deal`` most
often; also ``release-stub`` and ``settle``). A kill point past the round's last step falls between
rounds.

``SHOE_CRASH_ROUNDS`` (default 8) sets the number of rounds, ``SHOE_CRASH_SEED`` the seed (default fixed;
``random`` draws one). The seed and a summary line (rounds, kills, resumed, voided, double dispenses) are
printed even without ``-s``. Two former service bugs, pinned by the tests at the bottom (cards of a recovered
stack journaled twice, a round stuck in stub-counted), fail the loop; ``SHOE_CRASH_STRICT=0`` counts them in
the summary instead.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import secrets
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from shoe.journal import Journal, JournalError
from tests.e2e.conftest import FULL_DECK, EmuHost, Reply, Table, card_entries, deck

ROUNDS = int(os.environ.get("SHOE_CRASH_ROUNDS", "8"))
_SEED = os.environ.get("SHOE_CRASH_SEED", "20261129")
SEED = secrets.randbelow(2**32) if _SEED == "random" else int(_SEED)
STRICT = os.environ.get("SHOE_CRASH_STRICT", "1") != "0"
PA_SIDE = {
    "offered": ["progressive", "envy", "three-card-bonus"],
    "progressive_table": "A",
    "envy": {"royal_flush": 100_000, "straight_flush": 10_000},
}
STUD_TABLE = {"ante": 25, "bring_in": 100, "small_bet": 200, "big_bet": 400}
STUD_WEIGHTS = {"bring-in": 6, "complete": 2, "check": 6, "call": 6, "bet": 2, "raise": 1, "fold": 1}


@dataclass
class Tally:
    rounds: int = 0
    complete: int = 0
    void: int = 0
    kills: int = 0
    no_reply: int = 0  # kills during a command that left it without its reply
    between_rounds: int = 0
    resumed: int = 0  # rounds killed while live that went on to their settlement
    voided: int = 0  # rounds killed while live that ended void (by recovery, or by the dealer)
    stacks_recovered: int = 0  # stacks read back from the shoe's event log by a restart
    double_dispenses: int = 0
    known_duplicates: set[tuple[str, str]] = field(default_factory=set)  # bug: (round, card) journaled twice
    known_stuck_stub: int = 0  # bug: a round stuck in stub-counted after a restart (xfail below)
    notes: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (
            f"crash loop seed={SEED}: rounds={self.rounds} (complete={self.complete} void={self.void}) "
            f"kills={self.kills} (no-reply={self.no_reply} between-rounds={self.between_rounds}) "
            f"resumed={self.resumed} voided={self.voided} stacks-recovered={self.stacks_recovered} "
            f"double-dispenses={self.double_dispenses} known bugs: cards-journaled-twice="
            f"{len(self.known_duplicates)} stuck-in-stub-counted={self.known_stuck_stub}"
        )


@dataclass
class Kill:
    """Kill before step ``step`` (1-based, every HTTP action counts), or during the ``nth`` ``action``."""

    step: int | None = None
    action: str | None = None
    nth: int = 1
    delay: float = 0.0
    done: bool = False


@dataclass
class Plan:
    game: str  # NY, PA or stud
    cards: list[str]
    seats: list[dict[str, Any]]
    kills: list[Kill]

    @property
    def mississippi(self) -> bool:
        return self.game != "stud"


def draw_plan(rng: random.Random) -> Plan:
    game = rng.choice(["NY", "PA", "stud"])
    cards = rng.sample(FULL_DECK, len(FULL_DECK))
    if game == "stud":
        seats: list[dict[str, Any]] = [{"seat": s} for s in sorted(rng.sample(range(1, 9), rng.randint(2, 5)))]
        steps = 8 + 4 * len(seats)
    else:
        seats = []
        for seat in sorted(rng.sample(range(1, 7), rng.randint(1, 4))):
            side = {}
            if game == "PA":
                side = {k: v for k, v in (("progressive", 100), ("three-card-bonus", 500)) if rng.random() < 0.5}
            seats.append({"seat": seat, "ante": rng.choice([500, 1000, 2500]), "side": side})
        steps = 10 + 3 * len(seats)
    kills: list[Kill] = []
    roll = rng.random()
    if roll < 0.5 or (game == "stud" and roll < 0.7):
        kills.append(Kill(action="deal", nth=1 if game != "stud" else rng.randint(1, 3), delay=rng.uniform(0, 0.025)))
    elif roll < 0.6:
        kills.append(Kill(action="settle", delay=rng.uniform(0, 0.3)))
    elif roll < 0.7:
        kills.append(Kill(action="release-stub", delay=rng.uniform(0, 0.01)))
    else:
        kills.append(Kill(step=rng.randint(1, steps)))
    if rng.random() < 0.3:
        kills.append(Kill(step=rng.randint(1, steps)))
    return Plan(game, cards, seats, kills)


class CrashDealer:
    """Plays rounds through the API from the round view, killing and restarting ``shoed`` as planned."""

    def __init__(self, table: Table, host: EmuHost, rng: random.Random, tally: Tally) -> None:
        self.table, self.host, self.rng, self.tally = table, host, rng, tally
        self.api = table.api
        self.plan: Plan | None = None
        self.round_id: str | None = None
        self.step = 0
        self.counts: Counter[str] = Counter()
        self.inputs_sent = False
        self.killed_live = False

    # -- one round ---------------------------------------------------------------------------------

    def play(self, plan: Plan) -> None:
        self.plan, self.round_id, self.step, self.counts = plan, None, 0, Counter()
        self.inputs_sent = self.killed_live = False
        moved_before = self.host.stats()["cards_moved"]
        body: dict[str, Any] = {"game": "seven-card-stud", "jurisdiction": "NJ", "table": STUD_TABLE}
        if plan.mississippi:
            table = {"min_ante": 500, "max_ante": 50000, **({"side": PA_SIDE} if plan.game == "PA" else {})}
            body = {"game": "mississippi-stud", "jurisdiction": plan.game, "table": table}
        while True:
            view: dict[str, Any] | None = self.api.round() if self.round_id else None
            if self.round_id is not None and (view is None or view["round_id"] != self.round_id):
                # a restart after the round closed shows no round (docs/service.md: round_view)
                assert self.closed(), f"seed {SEED}: round {self.round_id} is neither shown nor closed"
                break
            if view is not None and view["closed"]:
                break
            if view is None:
                action, path, payload = "open-round", "/v1/rounds", {**body, "seats": plan.seats}
            else:
                action, path, payload = self.next_action(view)
            reply = self.act(action, path, payload)
            if reply is None:
                continue  # killed before or during it: decide again from the recovered round
            if action == "open-round":
                assert reply.status == 201, reply
                self.round_id = reply.body["round_id"]
            elif not reply.ok:
                self.refused(action, reply)
        self.finish(moved_before)

    def next_action(self, view: Mapping[str, Any]) -> tuple[str, str, dict[str, Any]]:
        state = view["state"]
        assert not view["paused"], f"seed {SEED}: round paused after recovery: {view}"
        plan = self.plan
        assert plan is not None
        if not plan.mississippi:
            step = view["next_card"]
            if step is not None:
                if step["target"] == "reshuffle":
                    return "reshuffle-burns", "/v1/round/reshuffle-burns", {}
                return "deal", "/v1/round/deal", {}
            legal = view["legal_actions"]
            choice = self.rng.choices(legal, weights=[STUD_WEIGHTS[a["action"]] for a in legal])[0]
            return "stud-action", "/v1/round/stud-actions", {"seat": choice["seat"], "action": choice["action"]}
        if state == "open-for-wagers":
            return "no-more-bets", "/v1/round/no-more-bets", {}
        if state == "no-more-bets" and plan.game == "PA":
            return "lock-progressive", "/v1/round/progressive/lock", {}
        if state == "progressive-locked":
            count = sum(1 for s in plan.seats if "progressive" in s["side"])
            return "chip-count", "/v1/round/progressive/chip-count", {"count": count}
        if view["next_stack_seat"] is not None:
            return "deal", "/v1/round/deal", {}
        if state == "dealing-stacks":
            return "release-stub", "/v1/round/release-stub", {}
        if state == "stub-counted":  # known bug: nothing moves the round on; the floor voids it
            self.tally.known_stuck_stub += 1
            self.tally.notes.append(f"round {self.round_id} stuck in stub-counted after a restart: voided")
            assert not STRICT, f"seed {SEED}: round {self.round_id} stuck in stub-counted"
            return "void", "/v1/round/void", {"cause": "other"}
        if plan.game == "PA" and not self.inputs_sent:
            return "progressive-inputs", "/v1/table-system/progressive-inputs", {"meters": {"meter": 2_500_000}}
        if view["next_to_decide"] is not None:
            multiple = self.rng.choices(view["legal_decisions"], weights=[1, 4, 2, 2])[0]
            return "decide", "/v1/round/decisions", {"seat": view["next_to_decide"], "multiple": multiple}
        if view["next_reveal"] is not None:
            return "reveal", "/v1/round/reveal", {"index": view["next_reveal"]}
        if state == "settlement":
            return "settle", "/v1/round/settle", {}
        raise AssertionError(f"seed {SEED}: no action for {view}")

    def act(self, action: str, path: str, payload: dict[str, Any]) -> Reply | None:
        """Send one action, or kill ``shoed`` before it or during it as planned (then ``None``)."""
        plan = self.plan
        assert plan is not None
        self.step += 1
        self.counts[action] += 1
        role = "table-system" if action == "progressive-inputs" else "dealer"
        for kill in plan.kills:
            if not kill.done and kill.step is not None and kill.step <= self.step:
                kill.done = True
                self.crash(f"before step {self.step} ({action})")
                return None
        during = next(
            (k for k in plan.kills if not k.done and k.action == action and k.nth == self.counts[action]), None
        )
        if during is None:
            reply = self.api.call("POST", path, payload, role=role)
            if action == "progressive-inputs" and reply.ok:
                self.inputs_sent = True
            return reply
        during.done = True
        pid = self.table.shoed.proc.pid
        timer = threading.Timer(during.delay, os.kill, (pid, signal.SIGKILL))
        timer.start()
        try:
            self.api.call("POST", path, payload, role=role)
        except (http.client.HTTPException, OSError):
            self.tally.no_reply += 1  # the reply never came
        timer.join()
        self.crash(f"{during.delay * 1000:.1f} ms into {action}")
        return None

    def refused(self, action: str, reply: Reply) -> None:
        if action == "release-stub" and reply.code == "stub-not-releasable":
            # The shoe released the stub just before a kill, the journal never saw it: the service's hint is to
            # void the round (recovery reconciles dispenses, not the stub).
            self.tally.notes.append(f"round {self.round_id}: the stub was out before the journal knew: voided")
            self.api.post("/v1/round/void", {"cause": "other"})
            return
        raise AssertionError(f"seed {SEED}: {action} refused: {reply.status} {reply.body}")

    # -- a power cut -----------------------------------------------------------------------------------

    def crash(self, where: str) -> None:
        shoed = self.table.shoed
        shoed.kill()
        self.tally.kills += 1
        live = self.round_id is not None and not self.closed()
        shoed.start()
        self.table.verify_journal()
        if self.round_id is None:
            return
        self.check_no_card_twice(where)
        self.killed_live |= live

    def closed(self) -> bool:
        return bool(self.entries(kinds=("round-closed",)))

    def entries(self, kinds: tuple[str, ...] | None = None) -> list[Any]:
        with Journal.open(self.table.journal) as journal:
            return list(journal.entries(round_id=self.round_id, kinds=kinds))

    def check_no_card_twice(self, where: str) -> None:
        entries = self.entries()
        cards = card_entries(entries)
        counts = Counter(c["card"] for c in cards if c.get("card"))
        twice = {code: n for code, n in counts.items() if n > 1}
        if not twice:
            return
        # The known bug: the same dispense's cards journaled again when its stack is recovered.
        slots = Counter((c["dispense_id"], c["position"], c["card"]) for c in cards)
        recovered = {
            e.data["dispense_id"] for e in entries if e.kind == "link" and e.data["event"] == "stack-recovered"
        }
        known = all(
            slots[(d["dispense_id"], d["position"], code)] == n and d["dispense_id"] in recovered
            for code, n in twice.items()
            for d in cards
            if d["card"] == code
        )
        message = f"seed {SEED}, round {self.round_id}, after a kill {where}: cards journaled twice {twice}"
        if known and not STRICT:
            new = {(str(self.round_id), code) for code in twice} - self.tally.known_duplicates
            if new:
                self.tally.known_duplicates |= new
                self.tally.notes.append(f"{message} (a recovered stack: known bug)")
            return
        self.tally.double_dispenses += 1
        raise AssertionError(message)

    # -- the end of a round --------------------------------------------------------------------------

    def finish(self, moved_before: int) -> None:
        plan = self.plan
        assert plan is not None and self.round_id is not None
        for kill in plan.kills:  # a kill point past the round's last step: between rounds
            if not kill.done:
                kill.done = True
                self.tally.between_rounds += 1
                self.crash("between rounds")
        entries = self.entries()
        self.check_no_card_twice("at the round's end")
        closed = [e.data for e in entries if e.kind == "round-closed"]
        assert len(closed) == 1, f"seed {SEED}: round {self.round_id} closed {len(closed)} times"
        outcome = closed[0]["outcome"]
        assert outcome in ("complete", "void"), closed
        cards = card_entries(entries)
        dealt = {(c["dispense_id"], c["position"]) for c in cards if c["dispense_id"] is not None}
        moved = self.host.stats()["cards_moved"] - moved_before
        self.tally.rounds += 1
        if self.killed_live:
            self.tally.resumed += outcome == "complete"
            self.tally.voided += outcome == "void"
        self.tally.stacks_recovered += sum(
            1 for e in entries if e.kind == "link" and e.data["event"] == "stack-recovered"
        )
        if outcome == "complete":
            self.tally.complete += 1
            assert moved == len(dealt), f"seed {SEED}: the shoe moved {moved} cards, the journal has {len(dealt)}"
            if not plan.mississippi:
                assert sum(s["net"] for s in closed[0]["seats"].values()) == 0, closed
            return
        self.tally.void += 1
        why = [e.data for e in entries if e.kind == "irregularity" and e.data.get("action") == "void"]
        cause = f"{why[-1].get('cause')}: {why[-1].get('detail')}" if why else "?"
        self.tally.notes.append(f"round {self.round_id} void ({cause})")
        assert moved >= len(dealt), f"seed {SEED}: the journal has {len(dealt)} cards, the shoe moved {moved}"
        assert {s["net"] for s in closed[0]["seats"].values()} <= {0}, closed  # every wager returned
        assert closed[0]["returned"] == self.wagered(entries), (closed[0], self.wagered(entries))

    def wagered(self, entries: Sequence[Any]) -> int:
        """Every chip the players put in, from the journal: antes (and side wagers), bets, calls, raises."""
        plan = self.plan
        assert plan is not None
        decisions = [e.data.get("record") or {} for e in entries if e.kind == "decision"]
        bets: int = sum(
            int(r.get("amount") or 0) for r in decisions if r.get("type") in ("DecisionRecord", "BettingAction")
        )
        if not plan.mississippi:
            return STUD_TABLE["ante"] * len(plan.seats) + bets
        placed: int = sum(int(s["ante"]) + int(sum(s["side"].values())) for s in plan.seats)
        return placed + bets


@pytest.fixture
def seed_line(capsys: pytest.CaptureFixture[str]) -> Iterator[Callable[[str], None]]:
    def say(line: str) -> None:
        with capsys.disabled():
            print(f"\n{line}", flush=True)

    yield say


@pytest.mark.timeout(120 + 5 * ROUNDS)
def test_kill_9_at_random_points_over_many_rounds(e2e: Callable[..., Table], seed_line: Callable[[str], None]) -> None:
    seed_line(f"crash loop: seed={SEED} rounds={ROUNDS} (SHOE_CRASH_SEED / SHOE_CRASH_ROUNDS to change)")
    rng = random.Random(SEED)
    plans = [draw_plan(rng) for _ in range(ROUNDS)]
    table = e2e(deck=plans[0].cards, host=True)
    host = table.shoe
    assert isinstance(host, EmuHost)
    tally = Tally()
    dealer = CrashDealer(table, host, rng, tally)
    started = time.monotonic()
    try:
        for number, plan in enumerate(plans):
            if number:  # the dealer empties the shoe and loads the next shuffled deck
                emptied = table.api.call("POST", "/v1/round/release-stub")
                assert emptied.ok or emptied.code == "stub-not-releasable", emptied
                host.load(plan.cards)
            dealer.play(plan)
    finally:
        seed_line(tally.line() + f" in {time.monotonic() - started:.1f}s")
        for note in tally.notes:
            seed_line(f"  {note}")
    assert tally.double_dispenses == 0

    # The shoe's own counters (shoed holds the port exclusively: stop it first) against the journal.
    assert table.shoed.stop() == 0
    counters = table.shoectl("--port", str(table.link), "--json", "counters")
    assert counters.returncode == 0, counters.stdout + counters.stderr
    with Journal.open(table.journal) as journal:
        assert journal.verify().ok
        dealt = {(e.data["dispense_id"], e.data["position"]) for e in journal.entries(kinds=("card",))
                 if e.data["dispense_id"] is not None}  # fmt: skip
    shoe = host.stats()
    assert json.loads(counters.stdout)["cards"] == shoe["cards_moved"] == len(dealt), (counters.stdout, shoe)
    assert json.loads(counters.stdout)["stacks"] == len({d for d, _ in dealt})


# -- the two recovery bugs the loop can meet, pinned deterministically (in process: a power cut between two
# -- journal writes of one command cannot be timed from outside the process) --------------------------------


def _service(tmp_path: Path, shoe: Any) -> Any:
    from drivers.emu_transport import EmulatorTransport
    from drivers.timeouts import LinkTimeouts
    from shoe.service import ServiceConfig, TableService

    timeouts = LinkTimeouts(reply=0.3, reconnect_initial=0.02, reconnect_max=0.2, reconnect_give_up=5.0)
    config = ServiceConfig(shoe_port="emu://", journal=tmp_path / "journal.sqlite", timeouts=timeouts)
    service = TableService(config, transport_factory=lambda: EmulatorTransport(shoe))
    service.start()
    return service


def _cut_power_at(monkeypatch: pytest.MonkeyPatch, hit: Callable[[str, Mapping[str, Any]], bool]) -> None:
    """The next journal write that ``hit`` matches never happens: the power went just before it."""
    from shoe.service.owner import Owner

    original = Owner.append
    armed = [True]

    def append(owner: Owner, kind: str, data: dict[str, Any], round_id: str | None) -> int:
        if armed[0] and hit(kind, data):
            armed[0] = False
            owner.killed = True
            if owner.journal is not None:
                owner.journal.close()
            raise JournalError("power cut")
        return original(owner, kind, data, round_id)

    monkeypatch.setattr(Owner, "append", append)


def _ny_round_to(service: Any, last: str) -> None:
    from shoe.service import Role, ServiceError

    seats = {"1": {"ante": 500}, "2": {"ante": 500}}
    service.submit("open-round", {"game": "mississippi-stud", "jurisdiction": "NY", "seats": seats}, Role.DEALER)
    for action in ("no-more-bets", "deal", "release-stub"):
        try:
            service.submit(action, {}, Role.DEALER)
        except ServiceError as exc:
            assert (action, exc.code) == (last, "journal-error"), exc
            return


def test_a_stack_recovered_after_its_cards_were_journaled_is_not_journaled_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from drivers.emulator import EmulatedShoe, EmulatorConfig

    shoe = EmulatedShoe(EmulatorConfig(deck=deck("As", "Ad", "Kh", "Kd")))
    _cut_power_at(monkeypatch, lambda kind, data: data.get("action") == "stack-dealt" and data.get("dispense_id") == 2)
    first = _service(tmp_path, shoe)
    _ny_round_to(first, "deal")
    first.kill()
    monkeypatch.undo()
    second = _service(tmp_path, shoe)
    try:
        with Journal.open(tmp_path / "journal.sqlite") as journal:
            cards = [e.data["card"] for e in journal.entries(kinds=("card",))]
        assert shoe.stats.cards_moved == 4
        assert cards == ["As", "Ad", "Kh", "Kd"], cards
    finally:
        second.stop()
        shoe.close()


def test_a_restart_between_the_stub_count_and_the_community_cards_carries_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from drivers.emulator import EmulatedShoe, EmulatorConfig
    from shoe.service import Role

    shoe = EmulatedShoe(EmulatorConfig(deck=FULL_DECK))
    _cut_power_at(monkeypatch, lambda kind, data: data.get("action") == "community-dealt")
    first = _service(tmp_path, shoe)
    _ny_round_to(first, "release-stub")
    first.kill()
    monkeypatch.undo()
    second = _service(tmp_path, shoe)
    try:
        view = second.round_view(Role.OBSERVER)
        assert view is not None and view["state"] == "third-street" and view["next_to_decide"] == 1, view
    finally:
        second.stop()
        shoe.close()
