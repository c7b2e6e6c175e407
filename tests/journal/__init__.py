"""Journal tests: real SQLite files in tmp_path. Shared builders live here."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from shoe.journal import Journal

ROUND = "R-0001"
# Seat 1, 3 and 5 wager; the shoe dispenses one two-card stack to each, ascending seat order.
STACKS = {1: ("As", "Kd"), 3: ("7c", "7d"), 5: ("Qh", "Jh")}
COMMUNITY = ("Th", "2c", "9s")


def deal_ny_round(journal: Journal, round_id: str = ROUND) -> None:
    """A realistic New York Mississippi stud round, as the service would journal it."""
    seats = {"1": {"ante": 500}, "3": {"ante": 1000}, "5": {"ante": 500, "three_card_bonus": 100}}
    table = {"id": "MS-03", "min_ante": 500, "community_source": "stub", "shoe_serial": "SH-0042"}
    journal.append(
        "round-opened",
        {"game": "mississippi-stud", "jurisdiction": "NY", "table": table, "seats": seats},
        round_id=round_id,
    )
    journal.append("link", {"state": "up", "port": "emu://"})  # the service's own entries interleave
    for dispense, (seat, cards) in enumerate(STACKS.items(), 1):
        for position, card in enumerate(cards, 1):
            data = {
                "target": "seat",
                "seat": seat,
                "index": None,
                "dispense_id": dispense,
                "position": position,
                "card": card,
                "face": "down",
                "status": "ok",
            }
            journal.append("card", data, round_id=round_id)
    for street, community in zip((3, 4, 5), COMMUNITY, strict=True):
        for seat in STACKS:
            journal.append(
                "decision", {"seat": seat, "street": street, "action": "bet", "multiple": 1}, round_id=round_id
            )
        data = {
            "target": "community",
            "seat": None,
            "index": street - 2,
            "dispense_id": None,
            "position": None,
            "card": community,
            "face": "up",
            "status": "ok",
        }
        journal.append("card", data, round_id=round_id)
        journal.append("reveal", {"index": street - 2, "card": community}, round_id=round_id)
    for seat in (5, 3, 1):  # counterclockwise from the dealer's right
        journal.append("settlement", {"seat": seat, "wager": "ante", "result": "win", "paid": 500}, round_id=round_id)
    journal.append("round-closed", {"outcome": "settled"}, round_id=round_id)


def build(path: Path, rounds: int = 1) -> Path:
    with Journal.open(path) as journal:
        journal.append("service", {"event": "started", "version": "0.1.0"})
        for n in range(1, rounds + 1):
            deal_ny_round(journal, f"R-{n:04d}")
    return path


@contextmanager
def attacker(path: Path) -> Iterator[sqlite3.Connection]:
    """A raw connection with the append-only triggers dropped, as someone editing the file would."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("DROP TRIGGER IF EXISTS entries_no_update")
        conn.execute("DROP TRIGGER IF EXISTS entries_no_delete")
        yield conn
    finally:
        conn.close()
