"""A round's state machine keeps nothing per round once the round is gone.

Each Mississippi round built its transition table anew, and the machine layer kept what rounds of one
table share keyed by that table's identity: one entry, with its 47 edges, per round ever played (~9 KiB a
round: shoed's RSS grew ~1.7 MiB every 200 rounds, without bound). The layer now shares tables by
content (``_TABLES``) and remembers at most ``BY_ID_MAX`` table objects by identity (``_BY_ID``); a
round's table is also built once per profile. Both must stay put however many rounds are played.
"""

from __future__ import annotations

import gc

from shoe.rules import machine
from shoe.rules.mississippi import TableConfig, new_round


def _kept() -> tuple[int, int]:
    return len(machine._TABLES), len(machine._BY_ID)


def test_many_rounds_share_one_table_entry() -> None:
    for _ in range(3):
        new_round("NY", TableConfig(500, 5000))
    gc.collect()
    before = _kept()
    for _ in range(50):
        new_round("NY", TableConfig(500, 5000))
    gc.collect()
    assert _kept() == before


def test_many_stud_hands_share_one_table_entry() -> None:
    from shoe.rules.stud import StudHand, StudTableConfig

    config = StudTableConfig(ante=0, bring_in=100, small_bet=200, big_bet=400)
    StudHand(config, [1, 2, 3])
    gc.collect()
    before = _kept()
    for _ in range(20):
        StudHand(config, [1, 2, 3])
    gc.collect()
    assert _kept() == before
