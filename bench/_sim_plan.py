"""The simulator's step list: every seeded choice of a run, made up front, and its shrinking.

A step list is a list of rounds; each round holds its game (Mississippi stud unless ``"game"`` says
seven-card stud), the seed of the deck the dealer loads, the seats and their antes, each seat's decision
per street (Mississippi: ``multiples``; stud: ``choices``, each picking one of the legal actions in
turn), the faults planted in it (``[where, n, kind]``: the ``n``-th request of type ``where`` to the
shoe, or the ``n``-th journal commit of the round) and the hostile callers (dealer step -> how many
bodies). ``random.Random`` streams per component derive from the seed (decks, seats, decisions,
faults), so one seed is one step list and one journal.

:func:`shrink` is delta debugging over that list: drop halves, quarters, ... of the rounds, then each
fault and each hostile burst, then seats, keeping every change after which the same invariant still
fails. What is left is the shortest list found that reproduces the failure.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

__all__ = ["ALL_FAULTS", "REPRODUCTIONS", "make_plan", "shrink"]

Plan = list[dict[str, Any]]

WHERE: dict[str, tuple[str, ...]] = {
    "corrupt": ("dispense", "query", "scan", "release", "status"),
    "lost": ("dispense", "query", "scan", "release", "status"),
    "unplug": ("dispense", "query", "scan", "release"),
    "link-down": ("dispense", "query", "release"),
    "lie": ("dispense",),
    "phantom": ("dispense",),
    "power-cut-before": ("commit",),
    "power-cut-after": ("commit",),
    "disk-full": ("commit",),
    "hostile": ("step",),
    "scan-give-up": ("scan",),
    "scan-reboot": ("scan",),
}
ALL_FAULTS = tuple(WHERE)
"""``--faults all``: every fault the table must survive with every invariant."""
REPRODUCTIONS = ("scan-give-up", "scan-reboot")
"""Faults that reproduced the community card that was not the stub's next (a SCAN acted on twice) before the
service refused a SCAN in doubt; in ``all`` since, and with ``--dealer naive`` they must hold too."""
STUD_SHARE = 0.25
"""The share of rounds that are seven-card stud hands (the rest Mississippi stud)."""
_SPAN = {"dispense": 10, "query": 6, "scan": 3, "release": 1, "status": 4, "commit": 24, "step": 16}


def make_plan(seed: int, rounds: int, faults: tuple[str, ...]) -> Plan:
    seats_rng, play_rng = random.Random(f"{seed}/seats"), random.Random(f"{seed}/decisions")
    deck_rng, fault_rng = random.Random(f"{seed}/decks"), random.Random(f"{seed}/faults")
    plan: Plan = []
    for _ in range(rounds):
        if seats_rng.random() < STUD_SHARE:  # 2-6 players: 6 x 7 cards and the burns fit one deck (no reshuffle)
            seats = sorted(seats_rng.sample(range(1, 9), seats_rng.randint(2, 6)))
            step: dict[str, Any] = {"game": "seven-card-stud", "deck": deck_rng.getrandbits(32),
                                    "seats": [[s, 0] for s in seats],
                                    "choices": [play_rng.randrange(1000) for _ in range(60)],
                                    "faults": [], "hostile": {}}  # fmt: skip
        else:
            seats = sorted(seats_rng.sample(range(1, 7), seats_rng.randint(1, 4)))
            antes = [[s, seats_rng.choice((500, 1000, 2500))] for s in seats]
            multiples = {str(s): [play_rng.choice((0, 1, 1, 2, 3)) for _ in range(3)] for s in seats}
            step = {"deck": deck_rng.getrandbits(32), "seats": antes, "multiples": multiples,
                    "faults": [], "hostile": {}}  # fmt: skip
        for _ in range(fault_rng.choice((0, 1, 1, 2)) if faults else 0):
            kind = fault_rng.choice(faults)
            where = fault_rng.choice(WHERE[kind])
            n = fault_rng.randrange(_SPAN[where])
            if kind == "hostile":
                step["hostile"][str(n + 1)] = fault_rng.randint(1, 4)
            else:
                step["faults"].append([where, n, kind])
        plan.append(step)
    return plan


def shrink(plan: Plan, fails: Callable[[Plan], bool], budget: int = 300) -> Plan:
    """The shortest step list found that still ``fails`` (delta debugging; ``budget`` re-runs at most)."""
    runs = 0

    def still(candidate: Plan) -> bool:
        nonlocal runs
        runs += 1
        return bool(candidate) and fails(candidate)

    current = plan
    chunk = max(1, len(current) // 2)
    while chunk >= 1 and runs < budget:
        i, changed = 0, False
        while i < len(current) and runs < budget:
            candidate = current[:i] + current[i + chunk :]
            if still(candidate):
                current, changed = candidate, True
            else:
                i += chunk
        if not changed:
            chunk //= 2
    for r in range(len(current)):
        for key in ("faults", "hostile"):
            items = list(current[r][key]) if key == "faults" else list(current[r][key].items())
            j = 0
            while j < len(items) and runs < budget:
                candidate = copy.deepcopy(current)
                rest = items[:j] + items[j + 1 :]
                candidate[r][key] = rest if key == "faults" else dict(rest)
                if still(candidate):
                    current, items = candidate, rest
                else:
                    j += 1
        least = 2 if current[r].get("game") == "seven-card-stud" else 1
        while len(current[r]["seats"]) > least and runs < budget:
            candidate = copy.deepcopy(current)
            dropped = candidate[r]["seats"].pop()
            candidate[r].get("multiples", {}).pop(str(dropped[0]), None)
            if not still(candidate):
                break
            current = candidate
    return current
