"""Poker hand evaluation for Mississippi stud and seven-card stud (pure Python, no I/O).

Rules: NY 9 NYCRR 5324.38(b) and 58 Pa. Code 655a.6 (ace high; ace low only in A-2-3-4-5; no
wrap-around; suits never break ties); three-card ranks for the PA Three Card Bonus (655a.12);
stud showing hands per N.J.A.C. 13:47-20.35.

Object API: :func:`evaluate5`, :func:`best_hand` -> :class:`HandValue`; :func:`evaluate3`;
:func:`showing_value` (and :func:`showing_key`, its comparison key from the ranks alone).  Fast integer
API on card indices (higher is better, 1..7462):
:func:`rank5`, :func:`rank6`, :func:`rank7`, :func:`rank_cards`; :func:`rank_class` and
:func:`hand_value` turn a rank number back into a category, tiebreak and :class:`HandValue`.
"""

from shoe.hands.categories import Category, HandValue
from shoe.hands.fast import RANK_COUNT, category_of_rank, rank5, rank6, rank7, rank_cards, rank_class
from shoe.hands.five import best_hand, evaluate5, hand_value
from shoe.hands.showing import ShowingValue, showing_key, showing_value
from shoe.hands.three import ThreeCardCategory, ThreeCardValue, evaluate3

__all__ = [
    "RANK_COUNT",
    "Category",
    "HandValue",
    "ShowingValue",
    "ThreeCardCategory",
    "ThreeCardValue",
    "best_hand",
    "category_of_rank",
    "evaluate3",
    "evaluate5",
    "hand_value",
    "rank5",
    "rank6",
    "rank7",
    "rank_cards",
    "rank_class",
    "showing_key",
    "showing_value",
]
