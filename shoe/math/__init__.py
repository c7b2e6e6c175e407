"""Game math: exact PAR sheets and optimal strategy from the paytables that settle real rounds (pure).

Mississippi stud (NY 5324.38, PA 655a.11-12, NJ 13:69F-35.9): :func:`par_sheet` solves the game
exactly by backward induction over fold / 1x / 2x / 3x on every street (:mod:`.induction`) and
counts every ordered deal down the optimal strategy (:mod:`.par`); :mod:`.strategy` turns the
strategy into tables a person can read.  Seven-card stud is a pot game with no house edge:
:mod:`.stud` gives its showdown hand frequencies instead.  No I/O here; ``shoectl math`` prints.
"""

from shoe.math.induction import ACTIONS, Ties
from shoe.math.par import Outcome, Par, analyse, par_sheet, paytable_key, tree_of

__all__ = ["ACTIONS", "Outcome", "Par", "Ties", "analyse", "par_sheet", "paytable_key", "tree_of"]
