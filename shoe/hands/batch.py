"""The batch evaluator: many hands at once, numpy arrays in and out, for game math and simulations.

``rank_batch(cards)`` takes an ``(N, n)`` integer array of card indices (n = 5, 6 or 7, each row
distinct cards 0..51, index ``(rank - 2) * 4 + suit`` as :mod:`shoe.hands.fast`) and returns an
``(N,)`` ``int16`` array of rank numbers 1..7462, higher is better: exactly ``rank5``/``rank6``/``rank7``
of each row (NY 9 NYCRR 5324.38(b); the tables and their card keys are those of
:mod:`shoe.hands.tables`, so both APIs agree by construction, and tests check it on every 5-card hand).

Per row: one gather and sum of the card keys; ``key & 511`` says whether five or more cards share a
suit (and which); without a flush the rank comes from the sorted no-flush keys by ``searchsorted``;
with one, from the flush table at the OR of that suit's rank bits. Importing this module imports numpy:
the service and ``shoectl`` do not import it (tests/cli/test_cli_imports.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from shoe.hands import tables as _t

__all__ = ["rank_batch"]

_CACHE: dict[str, Any] = {}


def _arrays() -> dict[str, Any]:
    if not _CACHE:
        _t.build()
        key = np.array(_t.CARD_KEY, dtype=np.int64)
        rank_bit = np.array(_t.RANK_BIT, dtype=np.int32)
        suits = np.array([i & 3 for i in range(52)], dtype=np.int8)
        found: dict[str, Any] = {"key": key, "rank_bit": rank_bit, "suit": suits}
        found["flush"] = np.array(_t.FLUSH, dtype=np.int16)
        for n in (5, 6, 7):
            keys = np.array(sorted(_t.NO_FLUSH[n]), dtype=np.int64)
            found[f"nf_keys{n}"] = keys
            found[f"nf_rank{n}"] = np.array([_t.NO_FLUSH[n][int(k)] for k in keys], dtype=np.int16)
            found[f"flush_suit{n}"] = np.array(_t.FLUSH_SUIT[n], dtype=np.int8)
        _CACHE.update(found)
    return _CACHE


def rank_batch(cards: npt.ArrayLike) -> npt.NDArray[np.int16]:
    """Rank numbers (1..7462, higher is better) of each row of an ``(N, 5|6|7)`` array of card indices.

    Raises ``ValueError`` for another shape or a card index outside 0..51 (rows must not repeat a card:
    a repeated card gives a meaningless number, as the scalar evaluators do).
    """
    hands = np.asarray(cards)
    if hands.ndim != 2 or hands.shape[1] not in (5, 6, 7):
        raise ValueError(f"expected an (N, 5|6|7) array of card indices, got shape {hands.shape}")
    if hands.size and (hands.min() < 0 or hands.max() > 51):
        raise ValueError("card indices must be 0..51")
    a = _arrays()
    n = hands.shape[1]
    key = a["key"][hands].sum(axis=1)
    suit = a[f"flush_suit{n}"][key & _t.SUIT_MASK]
    out = np.empty(len(hands), dtype=np.int16)
    plain = suit < 0
    nf_keys = a[f"nf_keys{n}"]
    out[plain] = a[f"nf_rank{n}"][np.searchsorted(nf_keys, key[plain] >> _t.SUIT_SHIFT)]
    if not plain.all():
        flushed = ~plain
        rows = hands[flushed]
        same = a["suit"][rows] == suit[flushed][:, None]
        mask = np.bitwise_or.reduce(np.where(same, a["rank_bit"][rows], 0), axis=1)
        out[flushed] = a["flush"][mask]
    return out
