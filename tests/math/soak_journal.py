"""A seeded journal of many Mississippi stud rounds, played by the real rules engine, for ``shoectl report``.

Each round is driven through the service's own :class:`shoe.service.rounds.mississippi.MississippiRun` (the
code ``shoed`` runs), with a desk that deals from a seeded shuffled deck instead of a shoe, so every
entry (``round-opened``, ``stack-for-seat``, ``card``, ``decide``, ``reveal``, ``settlement``,
``round-closed``) is exactly what the service writes.  The entries go into a real journal file (the
schema of :class:`shoe.journal.Journal`, a verifying hash chain) with a simulated clock: one round
every 90 s on two tables, so a run spans days and shifts.  The fsync per entry of the service is
skipped (one transaction per 500 rounds): this is a test file, not a table's memory.

Seats play one of three policies, chosen per round before any card is seen (decisions are planned
street by street for all rounds at once with :func:`shoe.math.actual.next_values`):

* ``optimal``: the optimal strategy (ties: the largest wager);
* ``noisy``: optimal 85% of the time, else a uniformly random action (an honest, imperfect player);
* ``cheater``: seat ``cheater`` (when given) sees the next community card before each decision and
  takes the action worth most with it, valued by honest play after (PA 655a.11(a)(3), an exposed card).

``python -m tests.math.soak_journal OUT.sqlite [ROUNDS] [SEED] [--cheater SEAT]``
"""

from __future__ import annotations

import json
import random
import sqlite3
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from drivers.stacks import Stack
from protocols.fields import CardRead
from shoe.cards import Card
from shoe.journal import GENESIS, Journal, Pending, prepare
from shoe.journal.chain import canonical, entry_hash
from shoe.math.actual import next_values, tables_for
from shoe.math.hands import line_odds
from shoe.rules.paytables import MISSISSIPPI_MINIMUM
from shoe.service.api import requests as rq
from shoe.service.rounds.intents import DrainResult, drive
from shoe.service.rounds.mississippi import MississippiRun

START = datetime(2026, 11, 2, 6, 0, tzinfo=UTC)
ANTES = (500, 1000, 2500)


@dataclass
class Plan:
    """One round before it is played: the deck order, the seats with their antes and decisions."""

    deck: list[int]
    seats: list[int]
    antes: list[int]
    side: list[dict[str, int]]
    jurisdiction: str
    void: bool
    decisions: dict[int, list[int]] = field(default_factory=dict)


class GenDesk:
    """The service's desk without a shoe: cards from the planned deck; entries kept for the writer."""

    def __init__(self, deck: list[int]) -> None:
        self.deck = [Card.from_index(i).code for i in deck]
        self.pos = 0
        self.dispense_id = 0
        self.entries: list[tuple[str, dict[str, Any]]] = []

    def append(self, kind: str, data: dict[str, Any], round_id: str | None) -> int:
        self.entries.append((kind, data))
        return len(self.entries)

    def dispense(self, size: int) -> Stack:
        self.dispense_id += 1
        cards = tuple(CardRead(c) for c in self.deck[self.pos : self.pos + size])
        self.pos += size
        return Stack(self.dispense_id, cards)

    def scan(self) -> CardRead:
        self.pos += 1
        return CardRead(self.deck[self.pos - 1])

    def release_stub(self) -> int:
        return 52 - self.pos

    def drain(self) -> DrainResult:
        return DrainResult()

    def shoe_serial(self) -> str | None:
        return "GEN0001"

    def cards_remaining(self) -> int | None:
        return 52

    def load_on_top(self, codes: Sequence[str]) -> bool:  # pragma: no cover - no seven-card stud here
        return False

    def deck_for_round(self) -> tuple[int | None, dict[str, Any]]:
        """The open-round gate passes: each planned round is dealt from its own whole, checked deck."""
        return 52, {"deck_no": 0, "back": "red"}

    def raise_alarm(self, cause: str, detail: str, **_: Any) -> None:  # pragma: no cover - no shoe faults here
        raise AssertionError(f"alarm {cause}: {detail}")


def plan_rounds(rounds: int, seed: int, cheater: int | None) -> list[Plan]:
    rng = random.Random(seed)
    plans = []
    for i in range(rounds):
        seats = sorted(rng.sample(range(1, 7), rng.randint(2, 5)))
        if cheater is not None and cheater not in seats:
            seats = sorted({*seats[1:], cheater})
        pa = i % 10 == 9
        side = [{"three-card-bonus": 500} if pa and rng.random() < 0.5 else {} for _ in seats]
        plans.append(Plan(rng.sample(range(52), 52), seats, [rng.choice(ANTES) for _ in seats], side,
                          "PA" if pa else "NY", rng.random() < 0.002))  # fmt: skip
    _decide(plans, rng, cheater)
    return plans


def _decide(plans: list[Plan], rng: random.Random, cheater: int | None) -> None:
    """Every seat's decisions, street by street for all rounds at once."""
    t = tables_for(line_odds(MISSISSIPPI_MINIMUM))
    rows = [(p, j, s) for p in plans for j, s in enumerate(p.seats)]
    noisy = np.array([rng.random() < 0.5 for _ in rows])
    live = np.ones(len(rows), dtype=bool)
    wagered = np.ones(len(rows), dtype=np.int64)
    for p in plans:
        p.decisions = {s: [] for s in p.seats}
    for street in range(3):
        idx = np.flatnonzero(live)
        seen = np.array(
            [[*p.deck[2 * j : 2 * j + 2], *p.deck[2 * len(p.seats) : 2 * len(p.seats) + street]] for p, j, _ in
             (rows[i] for i in idx)], dtype=np.int64).reshape(len(idx), street + 2)  # fmt: skip
        nxt = np.array([rows[i][0].deck[2 * len(rows[i][0].seats) + street] for i in idx], dtype=np.int64)
        vals, unseen, _ = next_values(t, seen, wagered[idx])
        sums = (vals * unseen[:, :, None]).sum(axis=1)
        best = 3 - sums[:, ::-1].argmax(axis=1)
        knowing = 3 - vals[np.arange(len(idx)), nxt, ::-1].argmax(axis=1)
        for n, i in enumerate(idx.tolist()):
            p, _, seat = rows[i]
            action = int(best[n])
            if seat == cheater:
                action = int(knowing[n])
            elif noisy[i] and rng.random() < 0.15:
                action = rng.randrange(4)
            p.decisions[seat].append(action)
            wagered[i] += action
            live[i] = action > 0


def play(plan: Plan, round_id: str) -> list[tuple[str, dict[str, Any]]]:
    """The round through the service's MississippiRun: its journal entries in order."""
    desk = GenDesk(plan.deck)
    seats = [
        rq.SeatWager(seat=s, ante=a, side=side) for s, a, side in zip(plan.seats, plan.antes, plan.side, strict=True)
    ]
    table = rq.MississippiTable(name="soak")
    if plan.jurisdiction == "PA":
        table = rq.MississippiTable(name="soak", side=rq.SideParams(offered=["three-card-bonus"]))
    request = rq.OpenMississippi(jurisdiction=plan.jurisdiction, seats=seats, table=table)  # type: ignore[arg-type]
    run, opened = drive(MississippiRun.open(round_id, request), desk)
    assert isinstance(run, MississippiRun)

    def act(action: str, request: msgspec.Struct) -> None:
        drive(run.act(action, request, b""), desk)

    desk.append("round-opened", opened, round_id)
    act("no-more-bets", rq.Empty())
    act("deal", rq.Empty())
    if plan.void:
        act("void", rq.Void(cause="other"))
    else:
        act("release-stub", rq.Empty())
        step = dict.fromkeys(plan.seats, 0)
        while not run.terminal:
            view = run.r
            if (seat := view.next_to_decide) is not None:
                act("decide", rq.Decide(seat=seat, multiple=plan.decisions[seat][step[seat]]))
                step[seat] += 1
            elif view.state.value == "settlement":
                act("settle", rq.Empty())
            else:
                act("reveal", rq.Reveal(index=sum(1 for k, _ in desk.entries if k == "reveal") + 1))
    desk.append("round-closed", run.closing(), round_id)
    return desk.entries


def write_journal(path: Path, rounds: int, seed: int = 1, cheater: int | None = None) -> Path:
    """Write ``rounds`` seeded rounds to a new journal at ``path``."""
    Journal.open(path).close()  # the schema, the file mode 0600
    conn = sqlite3.connect(str(path), isolation_level=None)
    conn.execute("PRAGMA synchronous=OFF")
    seq, prev = 0, GENESIS
    conn.execute("BEGIN")
    for i, plan in enumerate(plan_rounds(rounds, seed, cheater)):
        at = START + timedelta(seconds=90 * (i // 2))
        round_id = f"table-{1 + i % 2}-{at:%Y%m%dT%H%M%SZ}-{i:06x}"
        for n, (kind, data) in enumerate(play(plan, round_id)):
            seq += 1
            ts = (at + timedelta(milliseconds=500 * n)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
            stored = canonical(data)
            digest = entry_hash(prev, seq=seq, ts=ts, kind=kind, round_id=round_id, data=data)
            conn.execute(
                "INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?)", (seq, ts, kind, round_id, stored, prev, digest)
            )
            prev = digest
        if i % 500 == 499:
            conn.execute("COMMIT")
            conn.execute("BEGIN")
    conn.execute("COMMIT")
    conn.close()
    return path


RELEASE_FIXTURE = Path(__file__).parents[1] / "journal" / "fixtures" / "release-0.1.0-ac0bba9.sqlite"
"""A journal the first release wrote: NY, NJ and PA Mississippi stud (side wagers, Envy) and a seven-card stud hand."""
WRITE_BATCH = 2_000


def fill_journal(
    journal: Journal, entries: int, seed: int = 1, *, void_every: int = 9, fixture_every: int = 25, distinct: int = 400
) -> int:
    """Append seeded rounds through ``journal.write`` (the service's own commit) until it holds ``entries``.

    Mississippi stud rounds as :func:`play` writes them, every ``void_every``-th one voided after the
    deal, and every ``fixture_every``-th a copy of the release fixture's rounds (seven-card stud, NJ,
    PA side wagers and Envy) under fresh round ids, with the entries outside any round between them.
    ``distinct`` rounds are played; past them the same rounds are written again under fresh round ids
    (a long journal in seconds, each copy still a round the report values). The last round is left
    open. Entries are committed :data:`WRITE_BATCH` at a time; returns the last seq.
    """
    fixture = _fixture_entries()
    plans = plan_rounds(distinct, seed, None)
    played_once: list[list[tuple[str, dict[str, Any]]]] = []
    pending: list[Pending] = []
    written = journal.head_seq()
    i = 0
    while written + len(pending) < entries:
        n = i % distinct
        if n == len(played_once):
            plan = plans[n]
            plan.void = plan.void or (void_every > 0 and (n + 1) % void_every == 0)
            played_once.append(play(plan, "generated"))
        i += 1
        round_id = f"table-1-{START + timedelta(seconds=90 * i):%Y%m%dT%H%M%SZ}-{i:06x}"
        played = played_once[n]
        if written + len(pending) + len(played) >= entries:
            played = played[:-1]  # the last round stays open
        pending.extend(prepare(kind, data, round_id) for kind, data in played)
        if fixture_every > 0 and i % fixture_every == 0:
            pending.extend(prepare(k, d, None if r is None else f"{r}-{i:x}") for k, r, d in fixture)
        if len(pending) >= WRITE_BATCH:
            written = journal.write(pending)[-1].seq
            pending = []
    if pending:
        written = journal.write(pending)[-1].seq
    return written


def _fixture_entries() -> list[tuple[str, str | None, dict[str, Any]]]:
    """Read-only (``Journal.open`` would put a write-ahead log beside the fixture)."""
    conn = sqlite3.connect(f"file:{RELEASE_FIXTURE}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT kind, round_id, data FROM entries ORDER BY seq").fetchall()
    finally:
        conn.close()
    return [(kind, round_id, json.loads(data)) for kind, round_id, data in rows]


def main(argv: list[str]) -> int:
    cheater = None
    if "--cheater" in argv:
        at = argv.index("--cheater")
        cheater = int(argv[at + 1])
        argv = argv[:at] + argv[at + 2 :]
    if not 1 <= len(argv) <= 3:
        print(__doc__.rsplit("\n\n", 1)[-1], file=sys.stderr)
        return 2
    out = Path(argv[0])
    if out.exists():
        print(f"{out} exists: choose a new path", file=sys.stderr)
        return 2
    write_journal(out, int(argv[1]) if len(argv) > 1 else 10_000, int(argv[2]) if len(argv) > 2 else 1, cheater)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
