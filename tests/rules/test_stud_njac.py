"""Which test covers which paragraph of N.J.A.C. 13:47-20.35 (seven-card stud at casino nights).

Test names carry the citation as ``test_njac_13_47_20_35_<paragraph>_<what>`` (``f_1`` is (f)(1));
the test below fails when a paragraph loses its last test or a test is missing from this table.

(a) holders observe these procedures for each game
    showdown:   a_whole_hand_follows_the_procedure, a_script_object_as_shoectl_play_reads_it
(b) at most eight players; a posted ante
    machine:    b_at_most_eight_players, b_posted_table_rules_are_validated
    betting:    b_ante_posted_by_every_player_and_pot_accounting
(c) two rounds down, one up, clockwise from the dealer's left
    dealing:    c_two_down_one_up_clockwise_from_dealers_left,
                c_refuses_a_card_for_the_wrong_seat_or_out_of_order
(d) the lowest up-card brings it in; same rank: spades > hearts > diamonds > clubs
    betting:    d_bring_in_lowest_up_card_suit_order, d_bring_in_may_bring_in_or_complete_only
(e) clockwise from the bring-in: fold, call or raise; complete when all have responded
    betting:    e_action_clockwise_from_the_bring_in_fold_call_or_complete,
                e_round_complete_when_all_respond_bring_in_gets_no_option, e_bring_in_completing_himself
(f) burn, then a 4th card face up to each player not folded, from the dealer's left
    dealing:    f_burn_then_fourth_card_up_to_players_not_folded
(f)(1) the highest hand showing must bet or check
    betting:    f_1_highest_hand_showing_bets_or_checks
(f)(2) a tie: the player closest to the dealer's left
    betting:    f_2_tie_for_highest_showing_goes_to_lowest_seat_no_suits
(g) later players fold, call, raise, or check while nobody has bet
    betting:    g_check_bet_call_raise_fold_on_later_streets, g_fold_with_no_bet_is_allowed_after_the_opener
(h) two rounds up, one down, a burn before each; common card; burn reshuffle
    dealing:    h_burn_before_each_street_two_up_then_one_down,
                h_seven_players_get_a_common_card_without_reshuffle,
                h_eight_players_reshuffle_burns_with_the_last_card, h_reshuffle_when_no_card_remains,
                h_eight_seats_one_fold_leaves_seven_live_common_card,
                h_six_players_get_their_own_seventh_card, h_common_card_and_reshuffle_thresholds,
                h_no_common_card_before_seventh_street
(i) a showdown, best five of seven (and no down card shown before it)
    showdown:   i_public_view_never_shows_down_cards_before_showdown
    properties: i_pot_is_conserved_over_random_hands
(i)(1) the highest five-card hand wins
    showdown:   i_1_highest_five_card_hand_from_seven_wins
(i)(2) exact ties split; the excess to the highest card by suit
    showdown:   i_2_split_pot_odd_chip_to_highest_card_by_suit, i_2_three_way_split_and_shared_common_card
"""

from __future__ import annotations

import ast
from pathlib import Path

PARAGRAPHS = ("a", "b", "c", "d", "e", "f", "f_1", "f_2", "g", "h", "i", "i_1", "i_2")


def test_every_paragraph_of_njac_13_47_20_35_has_a_test() -> None:
    names: set[str] = set()
    for path in Path(__file__).parent.glob("test_stud_*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names |= {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    docstring = __doc__ or ""
    for paragraph in PARAGRAPHS:
        tag = f"njac_13_47_20_35_{paragraph}_"
        covering = [n for n in names if tag in n and not any(f"{tag}{d}_" in n for d in "123")]
        assert covering, f"no test names N.J.A.C. 13:47-20.35({paragraph})"
        for name in covering:
            short = name.split("njac_13_47_20_35_", 1)[1]
            assert short in docstring, f"{name} is missing from the mapping table"
