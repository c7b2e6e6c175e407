"""The dealer of the end-to-end crash loop (``test_crash_e2e.py``): random round plans, kill points, and the
tally of what each power cut led to."""

from __future__ import annotations

import http.client
import os
import random
import secrets
import signal
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from shoe.journal import Journal
from tests.e2e.conftest import Table
from tests.e2e.support import FULL_DECK, EmuHost, Reply, card_entries

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
    # Former bugs, counted (instead of failing) only with SHOE_CRASH_STRICT=0:
    known_duplicates: set[tuple[str, str]] = field(default_factory=set)  # (round, card) journaled twice
    known_stuck_stub: int = 0  # rounds stuck in stub-counted
    notes: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (
            f"crash loop seed={SEED}: rounds={self.rounds} (complete={self.complete} void={self.void}) "
            f"kills={self.kills} (no-reply={self.no_reply} between-rounds={self.between_rounds}) "
            f"resumed={self.resumed} voided={self.voided} stacks-recovered={self.stacks_recovered} "
            f"double-dispenses={self.double_dispenses} former bugs: cards-journaled-twice="
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
        if state == "stub-counted":  # a former bug (fails unless SHOE_CRASH_STRICT=0): the floor voids it
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
                self.tally.notes.append(f"{message} (a recovered stack: the former bug)")
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
