"""The fast induction (shoe.math) against a plain recursive solver on small decks, card for card."""

from __future__ import annotations

import pytest

from shoe.cards import parse_cards
from shoe.math import Ties, analyse
from shoe.math.hands import LINES, line_odds
from shoe.math.suits import suit_group
from shoe.rules.paytables import MISSISSIPPI_MINIMUM, BasePaytable
from tests.math.brute import Brute

# Straights (the wheel and 2-6), a straight flush, pairs that lose, push and win, folds on every street.
MIXED = "Ah 2c 3c 4c 5c 6c 6d Jd Jh 2d"
# Three suits of three ranks: trips and full houses.
TRIPS = "4c 8c Kc 4d 8d Kd 4h 8h Kh"
ODD_TABLE = BasePaytable.from_mapping(
    "odd", {"full-house": 50, "three-of-a-kind": 0, "two-pair": 3, "pair-jacks-or-better": 1}
)


@pytest.mark.parametrize(
    ("codes", "paytable", "ties"),
    [
        (MIXED, MISSISSIPPI_MINIMUM, Ties.PREFER_BET),
        (MIXED, MISSISSIPPI_MINIMUM, Ties.PREFER_FOLD),
        (TRIPS, ODD_TABLE, Ties.PREFER_BET),
    ],
)
def test_the_induction_matches_a_plain_recursion_on_a_small_deck(
    codes: str, paytable: BasePaytable, ties: Ties
) -> None:
    deck = parse_cards(codes)
    odds = line_odds(paytable)
    brute = Brute(deck, odds, prefer_bet=ties is Ties.PREFER_BET)
    par = analyse(odds, ties, tuple(c.index for c in deck))
    assert par.ev == brute.ev()
    ends, wagered, deals = brute.play()
    assert par.deals == deals
    assert {o.name: o.count for o in par.outcomes if o.count} == ends
    assert par.average_wager * deals == wagered


def test_the_plain_recursion_sees_every_kind_of_ending() -> None:
    """The MIXED deck is a real check: folds on each street, and every line it can make."""
    ends, _, _ = Brute(parse_cards(MIXED), line_odds(MISSISSIPPI_MINIMUM), prefer_bet=True).play()
    assert {"fold-3rd", "fold-4th", "fold-5th", "pair-2s-to-5s", "pair-6s-to-10s", "high-card"} <= ends.keys()
    assert {"straight", "straight-flush", "two-pair", "pair-jacks-or-better"} <= ends.keys()
    assert set(ends) <= {*LINES, "fold-3rd", "fold-4th", "fold-5th"}


def test_the_suit_class_tree_agrees_with_the_tree_of_every_card_set() -> None:
    """Full deck: the same EV, the same count for every ending and total wager (the plain tree
    ranks all 2,598,960 hands; the class tree 788,736, one completion of each 4-card class)."""
    odds = line_odds(MISSISSIPPI_MINIMUM)
    for ties in Ties:
        classes, plain = analyse(odds, ties), analyse(odds, ties, plain=True)
        assert classes.solution.tree.nodes == (169, 1755, 16432)
        assert plain.solution.tree.nodes == (1326, 22100, 270725)
        assert classes.outcomes == plain.outcomes
        assert classes.ev == plain.ev


@pytest.mark.parametrize(("codes", "renamings"), [(MIXED, 1), (TRIPS, 6), ("2c 2d 3c 3d 9c 9d Ac Ad", 2)])
def test_a_small_deck_keeps_only_the_suit_renamings_it_has(codes: str, renamings: int) -> None:
    deck = tuple(c.index for c in parse_cards(codes))
    assert len(suit_group(deck)) == renamings
    odds = line_odds(MISSISSIPPI_MINIMUM)
    assert analyse(odds, Ties.PREFER_BET, deck).outcomes == analyse(odds, Ties.PREFER_BET, deck, plain=True).outcomes



@pytest.mark.parametrize("block", [1, 3, 7])
def test_the_last_card_ranked_in_blocks_gives_the_same_tree(monkeypatch: pytest.MonkeyPatch, block: int) -> None:
    """The class tree ranks the fourth street's completions a block of representatives at a time (to bound
    its memory); any block size, including ones that split the representatives unevenly, gives the counts
    of all of them ranked at once (``by_classes`` itself is not cached; ``analyse`` is)."""
    from shoe.math import suits

    for codes in (MIXED, TRIPS):
        deck = tuple(c.index for c in parse_cards(codes))
        whole = suits.by_classes(deck)
        monkeypatch.setattr(suits, "FINAL_BLOCK", block)
        blocks = suits.by_classes(deck)
        monkeypatch.undo()
        assert whole.nodes[2] > block, "the blocks must split the representatives"
        assert blocks.nodes == whole.nodes and (blocks.count4 == whole.count4).all()
