"""The evaluator's tables as built: six and seven cards are derived from the table below."""

from __future__ import annotations

from collections import Counter
from itertools import combinations_with_replacement

from shoe.hands import tables as t


def test_every_no_flush_entry_is_the_best_five_of_its_ranks() -> None:
    t.build()
    for n in (5, 6, 7):
        seen = 0
        for held in combinations_with_replacement(range(2, 15), n):
            counts = Counter(held)
            if max(counts.values()) > 4:
                continue
            seen += 1
            key = sum(t.RANK_KEY[r - 2] * k for r, k in counts.items())
            assert t.NO_FLUSH[n][key] == t.CLASS_NUMBER[t.best_no_flush(dict(counts))], (n, held)
        assert seen == len(t.NO_FLUSH[n]) == {5: 6175, 6: 18395, 7: 49205}[n]
