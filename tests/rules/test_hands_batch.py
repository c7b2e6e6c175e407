"""The batch evaluator (shoe.hands.batch) gives exactly the scalar evaluators' rank numbers
(NY 9 NYCRR 5324.38(b)), numpy arrays in and out."""

from __future__ import annotations

import random
from itertools import combinations, islice

import numpy as np
import pytest

from shoe.hands.batch import rank_batch
from shoe.hands.fast import rank5, rank6, rank7


def test_every_fifth_five_card_hand_agrees_with_rank5() -> None:
    hands = np.array(list(islice(combinations(range(52), 5), 0, None, 5)), dtype=np.int8)
    expected = np.array([rank5(*map(int, h)) for h in hands], dtype=np.int16)
    assert np.array_equal(rank_batch(hands), expected)


@pytest.mark.parametrize(("n", "scalar"), [(6, rank6), (7, rank7)])
def test_seeded_six_and_seven_card_hands_agree(n: int, scalar: object) -> None:
    rng = random.Random(5324_38 + n)
    hands = np.array([rng.sample(range(52), n) for _ in range(30_000)], dtype=np.int16)
    expected = np.array([scalar(*map(int, h)) for h in hands], dtype=np.int16)  # type: ignore[operator]
    got = rank_batch(hands)
    assert got.dtype == np.int16 and got.shape == (30_000,)
    assert np.array_equal(got, expected)


def test_bad_shapes_and_cards_are_refused() -> None:
    with pytest.raises(ValueError, match="shape"):
        rank_batch(np.zeros((3, 4), dtype=np.int8))
    with pytest.raises(ValueError, match=r"0\.\.51"):
        rank_batch([[0, 1, 2, 3, 52]])
    assert rank_batch(np.zeros((0, 7), dtype=np.int8)).shape == (0,)
