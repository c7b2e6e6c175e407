"""The simulated table: the real round code driven by simulated clients, with faults, in one thread.

One :class:`Table` plays a step list (:mod:`_sim_plan`): per round, the deck the dealer loads, the seats'
wagers, the players' decisions and the faults planted at the shoe, the journal and the callers. The
dealer is state-driven (it asks the round what is due, as a dealer looking at the display would), so a
round cut by a power cut or a lost link goes on from whatever the journal and the shoe say. Each action
goes through the registry (role check, typed request from ``shoe.service.api.requests``) to the real
``MississippiRun``; a failure is followed by what the service does (``shoe.service.memory``: rebuild the
round from the journal, pause it, reconcile it with the shoe with ``rounds.recovery.reconcile``); a
power cut by a restart (reopen the journal, rebuild, pause ``pc-restart``, reconcile).

Display streams project every committed entry through ``shoe.service.journal.secrecy.project`` for each
role, and the round view after every action; a floorperson reads the view; a technician verifies the
journal between rounds and is refused while a round is live; hostile callers send bodies through
``strict_json`` and the typed decoding that must be refused and change nothing.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec

from bench._sim_desk import PowerCut, SimDesk, SimStore
from bench._sim_shoe import SimShoe
from drivers.errors import ShoeError
from protocols.cards import ALL_CODES
from shoe.journal import Entry, JournalError
from shoe.rules.errors import RuleViolation
from shoe.rules.mississippi import RevealRecord, RoundState
from shoe.rules.profiles import Irregularity
from shoe.rules.stud.dealing import Target
from shoe.service.api import requests as rq
from shoe.service.api import strict_json
from shoe.service.api.registry import BY_NAME, Scope
from shoe.service.errors import Role, ServiceError
from shoe.service.journal.secrecy import project
from shoe.service.journal.visibility import PAYLOADS, RECORDS
from shoe.service.rounds.intents import drive
from shoe.service.rounds.mississippi import MississippiRun
from shoe.service.rounds.recovery import reconcile, scan_journal
from shoe.service.rounds.run import RoundRun, rebuild
from shoe.service.rounds.stud import StudRun

__all__ = ["HOSTILE_BODIES", "RoundTruth", "Table"]

GAMES: dict[str, type[RoundRun]] = {MississippiRun.game: MississippiRun, StudRun.game: StudRun}
STUD_TABLE = {"ante": 25, "bring_in": 50, "small_bet": 100, "big_bet": 200}
TABLE = "SIM-1"
DEALER = {"id": "dealer-1", "name": "Sim Dealer"}
PEOPLE = {Role.DEALER: DEALER, Role.TECHNICIAN: {"id": "tech-1", "name": "Sim Technician"}}
EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
STREAM_ROLES = tuple(Role) if any(v.roles for v in (*PAYLOADS.values(), *RECORDS.values())) else (Role.OBSERVER,)
"""One display stream per role whose projection can differ: while no declaration overrides a role
(``visibility.Visibility.roles``), every role sees the same, and one stream stands for all."""
VERIFY_FIRST = 100
"""The technician's first journal verification, after this many rounds; then at every doubling of the round
count (200, 400, 800, ...): each reads the whole journal, so a fixed period made a run's cost grow with the
square of its length (100 verifications of 165,000 entries on average over 10,000 rounds)."""
MAX_STEPS = 200  # dealer actions in one round before it is counted stuck

HOSTILE_BODIES: tuple[bytes, ...] = (
    b"{",
    b'{"seat": NaN, "multiple": 1}',
    b'{"seat": 1, "multiple": Infinity}',
    b'{"seat": "1", "multiple": 1}',
    b'{"seat": 1, "multiple": 1, "seat": 2}',
    b'{"seat": 1e999, "multiple": 1}',
    b'{"seat": 99999999999999999999999, "multiple": 1}',
    b'{"seat": 1, "multiple": 1, "extra": true}',
    b"[" * 70_000 + b"]" * 70_000,
    b'{"seat": 1, "multiple": 1, "x": "' + b"A" * 70_000 + b'"}',
    b"\xef\xbb\xbf{}",
    b'{"index": 1, "card": "Zz"}',
    b'{"index": 1, "card": "\\ud800"}',
    b'{"seat": -1, "multiple": 1}',
    b'{"seat": 1, "multiple": 2.5}',
    b"\xff\xfe",
)
"""Bodies a hostile caller sends to ``decide`` or ``reveal``: each must be refused before the round sees it."""


@dataclass
class RoundTruth:
    """What the simulator knows of one round from outside the code under test."""

    round_id: str | None = None
    moved_before: int = 0
    moved_after: int = 0
    dispenses_before: set[int] = field(default_factory=set)
    dispenses_after: set[int] = field(default_factory=set)
    stub: list[str] | None = None  # the stub as the mechanism held it when released (before any scan)
    steps: int = 0
    stuck: bool = False


class Table:
    """The whole table in one thread (see the module docstring)."""

    def __init__(self, seed: int, path: Path, *, bug: str | None = None, dealer: str = "careful") -> None:
        self.seed = seed
        self.dealer = dealer
        """``careful``: after a reveal that failed once the reader had taken a card, the dealer enters the card
        now face up on the table; ``naive``: asks the shoe again (a new SCAN reads the next card)."""
        self._on_table: str | None = None
        self.shoe = SimShoe(seed)
        self.store = SimStore(path)
        self.desk = SimDesk(self.store, self.shoe)
        self.desk.bug = bug
        self.bug = bug
        self.faults: Counter[str] = Counter()
        self.rounds: list[RoundTruth] = []
        self.outputs: list[tuple[str | None, Any]] = []  # (round_id at the time, text shown) -> secrecy check
        self.hostile_changed: list[str] = []
        self.refusals: Counter[str] = Counter()
        self.restarts = 0
        self._round_no = 0
        self._plan_faults: dict[tuple[str, int], str] = {}
        self._counters: Counter[str] = Counter()
        self.shoe.fault = self._shoe_fault
        self.shoe.fired = self._fired
        self.store.fault = self._commit_fault
        self.store.fired = self._fired
        self._leaked = False
        self.shown_upto = 0
        self.streamed_seq = 0
        self.on_round_end: Callable[[Table, RoundTruth], None] = lambda table, truth: None

    # -- faults from the step list ------------------------------------------------------------------

    def _fired(self, kind: str) -> None:
        self.faults[kind] += 1

    def _shoe_fault(self, what: str) -> str | None:
        if what == "phantom-arm":
            n = self._counters["dispense"]
            return "phantom" if self._plan_faults.get(("dispense", n)) == "phantom" else None
        n = self._counters[what]
        self._counters[what] += 1
        kind = self._plan_faults.get((what, n))
        if kind == "phantom":
            return None
        if kind == "lie" and what == "query":
            return kind
        if kind == "lie":  # a forged answer to the read-back of this dispense
            self._plan_faults[("query", self._counters["query"])] = "lie"
            return None
        return kind

    def _commit_fault(self, number: int) -> str | None:
        return self._plan_faults.get(("commit", number))

    # -- one round ------------------------------------------------------------------------------

    def play(self, plan: dict[str, Any]) -> RoundTruth:
        truth = RoundTruth()
        self.rounds.append(truth)
        self._counters = Counter()
        self._plan_faults = {}
        base_commit = self.store.commits
        for where, point, kind in plan.get("faults", []):
            self._plan_faults[(where, point + base_commit if where == "commit" else point)] = kind
        hostile = {int(k): v for k, v in plan.get("hostile", {}).items()}
        self._on_table = None
        refused_in_doubt = self.refusals["scan-in-doubt"]
        failed_before = self.refusals["recovery-failed"]
        in_doubt: int | None = None  # the community card whose reveal the service refused scan-in-doubt
        self._stud_turn = 0
        self._load_deck(plan["deck"])
        truth.moved_before = self.shoe.moved
        truth.dispenses_before = set(self.shoe.device._results)
        opened = False
        while truth.steps < MAX_STEPS:
            truth.steps += 1
            run = self.desk.run
            if run is not None and not run.closed and run.terminal:
                self._guarded(self._close)
                continue
            if opened and (run is None or run.closed):
                break
            if truth.steps in hostile:
                self._hostile(hostile[truth.steps])
                if opened and self.desk.live_id() is not None:
                    self._technician_mid_round()
            action, params = self._next(plan, run if opened else None)
            if action == "open-round":
                opened = True
            told = self.refusals["scan-in-doubt"] > refused_in_doubt  # the service said: enter the card
            if action == "reveal" and self._on_table is not None and (self.dealer == "careful" or told):
                params = {**params, "card": self._on_table}
            elif action == "reveal" and in_doubt == params["index"]:
                # Told the SCAN is in doubt, and the reader left no card on the table: nobody can name the card,
                # so the dealer declares the misdeal (the service alarms the stub in doubt).
                action, params = "void", {"cause": "unreadable-card"}
            stub_before = [card.code for card in self.shoe.device._mech.stub] if action == "reveal" else []
            refused_before = self.refusals["scan-in-doubt"]
            self._guarded(lambda a=action, p=params: self._act(a, p, truth))
            if action == "reveal" and self.refusals["scan-in-doubt"] > refused_before:
                in_doubt = params["index"]
            if action == "reveal":
                self._after_reveal(stub_before, params)
            if self.desk.run is not None and truth.round_id is None and self.desk.run.round_id:
                truth.round_id = self.desk.run.round_id
            mech = self.shoe.device._mech
            if truth.stub is None and mech.stub_released:
                truth.stub = [card.code for card in mech.stub]
        else:
            truth.stuck = True
        if self.refusals["recovery-failed"] > failed_before:
            # A reconciliation failed in this round (the shoe could not be asked): the service tries again when
            # the link is back, as shoed's resync does, before the next round opens.
            self._recover_guarded()
        truth.moved_after = self.shoe.moved
        truth.dispenses_after = set(self.shoe.device._results)
        self._technician()
        self.on_round_end(self, truth)
        return truth

    def _after_reveal(self, stub_before: list[str], params: dict[str, Any]) -> None:
        """The card a failed reveal's SCAN took from the stub lies face up on the table (the mechanism says which)."""
        run = self.desk.run
        done = (
            isinstance(run, MississippiRun)
            and sum(isinstance(x, RevealRecord) for x in run.r.records) >= params["index"]
        )
        taken = len(stub_before) - len(self.shoe.device._mech.stub)
        if done or run is None or run.closed:
            self._on_table = None
        elif taken > 0 and self._on_table is None:
            self._on_table = stub_before[taken - 1]

    def _load_deck(self, deck_seed: int) -> None:
        """Between rounds the dealer empties the shoe, loads a shuffled deck by hand and checks it."""
        mech = self.shoe.device._mech
        for _ in range(5):  # a release the link failed is tried again, as a dealer presses the button again
            if not mech.deck or mech.stub_released:
                break
            self._guarded(self.shoe.release_stub)
        codes = list(ALL_CODES)
        random.Random(deck_seed).shuffle(codes)
        self.shoe.load(codes)
        self.desk.deck_no += 1
        self.desk.checked = None
        try:
            self.desk.checked = self.shoe.deck_check().count
        except ShoeError:
            self.desk.checked = None

    def _next(self, plan: dict[str, Any], run: RoundRun | None) -> tuple[str, dict[str, Any]]:
        """What the dealer does next, from what the round shows."""
        stud = plan.get("game") == StudRun.game
        if run is None or run.closed:
            self._round_no += 1
            if stud:
                seats_only = [s for s, _ in plan["seats"]]
                return "open-round", {"game": StudRun.game, "jurisdiction": "NJ", "seats": seats_only,
                                      "table": STUD_TABLE}  # fmt: skip
            seats = [{"seat": s, "ante": a} for s, a in plan["seats"]]
            return "open-round", {"game": MississippiRun.game, "jurisdiction": "NY", "seats": seats}
        if isinstance(run, StudRun):
            return self._next_stud(plan, run)
        assert isinstance(run, MississippiRun)
        r, state = run.r, run.r.state
        if state is RoundState.PAUSED:
            return "void", {"cause": "other"}
        if state is RoundState.OPEN:
            return "no-more-bets", {}
        if state in (RoundState.NO_MORE_BETS, RoundState.DEALING_STACKS) and r.next_stack_seat is not None:
            return "deal", {}
        if state is RoundState.DEALING_STACKS:
            return "release-stub", {}
        if r.next_to_decide is not None:
            seat, street = r.next_to_decide, r.street or 3
            return "decide", {"seat": seat, "multiple": plan["multiples"][str(seat)][street - 3]}
        if state in (RoundState.THIRD_STREET, RoundState.FOURTH_STREET, RoundState.FIFTH_STREET):
            return "reveal", {"index": sum(isinstance(x, RevealRecord) for x in r.records) + 1}
        if state is RoundState.SETTLEMENT:
            return "settle", {}
        return "void", {"cause": "other"}

    def _next_stud(self, plan: dict[str, Any], run: StudRun) -> tuple[str, dict[str, Any]]:
        """A stud hand: deal what is due, else the player to act picks one of the legal actions (the plan's choice)."""
        hand = run.hand
        if run.paused:
            return "void", {"cause": "other"}
        step = hand.next_card
        if step is not None and step.target is not Target.RESHUFFLE:
            return "deal", {}
        if hand.to_act is not None:
            legal = hand.legal_actions()
            choices = plan["choices"]
            pick = legal[choices[self._stud_turn % len(choices)] % len(legal)]
            self._stud_turn += 1
            amount = pick.amount if pick.kind.value in ("bring-in", "complete", "bet", "raise") else None
            return "stud-action", {"seat": pick.seat, "action": pick.kind.value, "amount": amount}
        return "void", {"cause": "other"}

    def _act(self, action: str, params: dict[str, Any], truth: RoundTruth | None, role: Role = Role.DEALER) -> None:
        """One command through the registry: role, typed request, the action, group commit, the answer shown."""
        entry = BY_NAME[action]
        if entry.role is not role:
            raise ServiceError("forbidden", f"{action} is for the {entry.role.value} role, not {role.value}")
        request = rq.convert(params, entry.request)
        desk = self.desk
        desk.by = PEOPLE[role]
        desk.batching += 1
        try:
            answer = self._dispatch(entry.scope, action, request)
            self._close()
        finally:
            desk.by = None
            desk.batching -= 1
        desk.flush()
        self._show(answer)

    def _dispatch(self, scope: Scope, action: str, request: msgspec.Struct) -> dict[str, Any]:
        desk = self.desk
        if scope is Scope.MAINTENANCE:
            run = desk.run
            if run is not None and not run.closed:
                raise ServiceError("round-live", f"{action} is refused while round {run.round_id} is live")
            if action != "verify-journal":
                raise ServiceError("not-simulated", f"{action} is not simulated")
            result = self.store.journal.verify()
            data = {"action": "verify-journal", "ok": result.ok, "checked": result.checked,
                    "first_bad_seq": result.first_bad_seq, "problem": result.problem}  # fmt: skip
            desk.append("technician", data, None)
            return data
        if scope is Scope.OPEN:
            round_id = self._round_id()
            game = GAMES[rq.game_of(request)]
            run, opened = drive(game.open(round_id, request), desk)
            desk.append("round-opened", opened, round_id)
            desk.run = run
            desk.checked = None  # this deck is the round's now
            return {"round_id": round_id}
        run = desk.run
        if run is None or run.closed:
            raise ServiceError("no-round", "no round is live")
        # The shuffle's entropy, drawn at the edge as shoed draws it, here from the seed.
        entropy = random.Random(self.seed * 1_000_033 + self._round_no).randbytes(16)
        return drive(run.act(action, request, entropy), desk)

    def _round_id(self) -> str:
        when = EPOCH + timedelta(minutes=self._round_no)
        suffix = random.Random(self.seed * 1_000_003 + self._round_no).getrandbits(24)
        return f"{TABLE}-{when.strftime('%Y%m%dT%H%M%SZ')}-{suffix:06x}"

    def _close(self) -> None:
        run = self.desk.run
        if run is not None and run.terminal and not run.closed:
            self.desk.append("round-closed", run.closing(), run.round_id)
            run.closed = True
        self.desk.flush()

    def _guarded(self, step: Any) -> None:
        """Run one step as the service would: a refusal changes nothing; a failure part-way is rebuilt from the
        journal and reconciled with the shoe; a power cut restarts the table PC."""
        try:
            step()
        except PowerCut:
            self._restart()
        except ServiceError as exc:
            self.refusals[exc.code] += 1
            self._show({"error": exc.code, "message": exc.message})
            if exc.code in ("shoe-unavailable", "shoe-discrepancy"):
                self._recover_guarded()
        except RuleViolation as exc:
            self.refusals["rule"] += 1
            self._show({"error": "rule", "message": exc.message})
        except (ShoeError, JournalError) as exc:
            self.refusals[type(exc).__name__] += 1
            self._recover_guarded()

    def _recover_guarded(self) -> None:
        try:
            self._recover()
        except (PowerCut, JournalError):  # a journal that cannot take the pause stops the service: a restart
            self._restart()
        except (ShoeError, ServiceError):
            self.refusals["recovery-failed"] += 1

    def _recover(self) -> None:
        """The service after a failed action (``shoe.service.memory.rebuild_from_journal`` with doubt)."""
        desk = self.desk
        desk.batching = 0
        desk._pending.clear()
        desk._by_pending.clear()
        if not self.shoe.device.plugged:
            self.shoe.reconnect()
        facts = scan_journal(self.store.journal)
        desk.known_dispense_id = facts.known_dispense_id
        run = None
        if facts.open_round is not None:
            run = rebuild(facts.open_round, facts.round_entries, GAMES)
        desk.run = run
        if run is not None and not run.closed and not run.terminal:
            if not run.paused:
                drive(
                    run.pause(
                        Irregularity.PC_RESTART, "an action failed part-way: the round was rebuilt from the journal"
                    ),
                    desk,
                )
            reconcile(desk, run, self.shoe)  # type: ignore[arg-type]
        elif run is None or run.closed:  # stacks the shoe completed that the journal never named: alarmed
            reconcile(desk, run, self.shoe)  # type: ignore[arg-type]
        self._close()

    def _restart(self, attempt: int = 0) -> None:
        """Power back: a new process opens the journal, rebuilds the open round, journals its start, reconciles."""
        self.restarts += 1
        self.store.reopen()
        self._stream(
            self.store.journal.entries(after_seq=self.streamed_seq)
        )  # the streams catch up (the feed's refill)
        checked, deck_no, committed = self.desk.checked, self.desk.deck_no, self.desk.committed
        self.desk = SimDesk(self.store, self.shoe)
        self.desk.bug, self.desk.deck_no, self.desk.committed = self.bug, deck_no, committed
        self.desk._bug_done = True  # a planted bug fires once per run
        self.shoe.reconnect()
        facts = scan_journal(self.store.journal)
        self.desk.known_dispense_id = facts.known_dispense_id
        run = None if facts.open_round is None else rebuild(facts.open_round, facts.round_entries, GAMES)
        self.desk.checked = checked if run is None else None
        self.desk.run = run
        try:
            self.desk.append("service", {"event": "start", "pid": 1, "open_round": run and run.round_id,
                                         "known_dispense_id": facts.known_dispense_id}, None)  # fmt: skip
            if run is not None and not run.terminal and not run.paused:
                drive(run.pause(Irregularity.PC_RESTART, "the table PC restarted mid-round"), self.desk)
            if run is not None and run.paused:
                reconcile(self.desk, run, self.shoe)  # type: ignore[arg-type]
            self._close()
        except (PowerCut, JournalError):
            if attempt < 3:
                self._restart(attempt + 1)
            else:
                self.refusals["restart-failed"] += 1
        except (ShoeError, ServiceError):
            self.refusals["recovery-failed"] += 1

    # -- the other clients ----------------------------------------------------------------------

    def _show(self, answer: Any) -> None:
        """The dealer's answer, the round view (display and floorperson) and every new entry, projected per role."""
        run = self.desk.run
        rid = run.round_id if run is not None else None
        committed = self.desk.committed
        start = self.shown_upto
        self._stream(entry for entry, _ in committed[start:])
        self.shown_upto = len(committed)
        self.outputs.append((rid, answer))  # after the entries it follows, as a stream shows them
        if run is not None:
            self.outputs.append((rid, run.view()))

    def _stream(self, entries: Iterable[Entry]) -> None:
        """Every display stream (one per role) gets each committed entry once, in order, secrecy-projected."""
        run = self.desk.run
        rid = run.round_id if run is not None else None
        for entry in entries:
            if entry.seq <= self.streamed_seq:
                continue
            self.streamed_seq = entry.seq
            for role in STREAM_ROLES:
                for event in project(entry.seq, entry.ts, entry.kind, entry.round_id, entry.data, role=role):
                    self.outputs.append((rid, event))
            if self.bug == "leak-hole-card" and not self._leaked and entry.kind == "card":
                self._leaked = True  # the planted bug: one stream shows a card entry as journaled
                self.outputs.append((rid, {"type": "card", **entry.data}))

    def _hostile(self, count: int) -> None:
        """Hostile callers: each body refused before the round sees it, and nothing journaled or changed."""
        before = (self.store.journal.head_seq(), self._state())
        rng = random.Random(self.seed * 7919 + self._round_no * 31 + count)
        for _ in range(count):
            raw = rng.choice(HOSTILE_BODIES)
            action = rng.choice(("decide", "reveal", "settle"))
            self.faults["hostile"] += 1
            try:
                rq.decode(raw, BY_NAME[action].request)
            except (strict_json.JsonError, rq.RequestError, msgspec.DecodeError, ValueError):
                # Not an output the secrecy check reads: the decoding is pure (no round state reaches it), and
                # its messages quote the caller's body and a fixed example card code ("7h").
                continue
            if action == "settle":  # an empty-body action: the body decoded; the caller's role is refused
                self.outputs.append((None, {"error": "forbidden", "role": Role.OBSERVER.value}))
                continue
            self.hostile_changed.append(f"accepted {raw[:40]!r} for {action}")
        if (self.store.journal.head_seq(), self._state()) != before:
            self.hostile_changed.append("the journal or the round changed")

    def _state(self) -> str:
        run = self.desk.run
        return "" if run is None else json.dumps(run.view(), sort_keys=True, default=str)

    def _technician(self) -> None:
        """Between rounds, after ``VERIFY_FIRST`` rounds and at each doubling, the technician verifies the journal
        (a ``technician`` entry names them); their action during a round is refused (``_technician_mid_round``)."""
        periods, rest = divmod(self._round_no, VERIFY_FIRST)
        if periods and not rest and periods & (periods - 1) == 0:
            self._guarded(lambda: self._act("verify-journal", {}, None, Role.TECHNICIAN))

    def _technician_mid_round(self) -> None:
        before = self.store.journal.head_seq()
        self._guarded(lambda: self._act("verify-journal", {}, None, Role.TECHNICIAN))
        if self.store.journal.head_seq() != before:
            self.hostile_changed.append("a technician's action was journaled while a round was live")
