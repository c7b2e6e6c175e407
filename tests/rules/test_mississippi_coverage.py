"""Every subsection of NY 9 NYCRR 5324.38 and 58 Pa. Code 655a.11, and the test that enforces it.

A test "names" its subsection in its name (``test_ny_5324_38_d_2_...``) or docstring; the checks
below keep this table honest: every subsection is listed, every listed test exists and names it.

| subsection | test |
|---|---|
| NY 5324.38(a)(1) | test_mississippi_ny_layout::test_ny_5324_38_a_1_six_betting_positions |
| NY 5324.38(a)(2)(i) | test_mississippi_ny_layout::test_ny_5324_38_a_2_i_ante_per_position |
| NY 5324.38(a)(2)(ii) | test_mississippi_ny_layout::test_ny_5324_38_a_2_ii_street_wagers_in_layout_order |
| NY 5324.38(a)(2)(iii)(a) | test_mississippi_ny_layout::test_ny_5324_38_a_2_iii_a_bet_is_one_two_or_three_antes |
| NY 5324.38(a)(2)(iii)(b) | test_mississippi_ny_layout::test_ny_5324_38_a_2_iii_b_payout_odds_published |
| NY 5324.38(a)(2)(iv) | test_mississippi_ny_layout::test_ny_5324_38_a_2_iv_three_community_areas_by_street |
| NY 5324.38(b)(1) | test_mississippi_ny_layout::test_ny_5324_38_b_1_ace_low_only_in_the_wheel |
| NY 5324.38(b)(2)(i) | test_mississippi_ny_layout::test_ny_5324_38_b_2_each_hand_rank_pays_its_line |
| NY 5324.38(b)(2)(ii) | test_mississippi_ny_layout::test_ny_5324_38_b_2_each_hand_rank_pays_its_line |
| NY 5324.38(b)(2)(iii) | test_mississippi_ny_layout::test_ny_5324_38_b_2_each_hand_rank_pays_its_line |
| NY 5324.38(b)(2)(iv) | test_mississippi_ny_layout::test_ny_5324_38_b_2_each_hand_rank_pays_its_line |
| NY 5324.38(b)(2)(v) | test_mississippi_ny_layout::test_ny_5324_38_b_2_each_hand_rank_pays_its_line |
| NY 5324.38(b)(2)(vi) | test_mississippi_ny_layout::test_ny_5324_38_b_2_each_hand_rank_pays_its_line |
| NY 5324.38(b)(2)(vii) | test_mississippi_ny_layout::test_ny_5324_38_b_2_each_hand_rank_pays_its_line |
| NY 5324.38(b)(2)(viii) | test_mississippi_ny_layout::test_ny_5324_38_b_2_each_hand_rank_pays_its_line |
| NY 5324.38(b)(2)(ix) | test_mississippi_ny_layout::test_ny_5324_38_b_2_each_hand_rank_pays_its_line |
| NY 5324.38(c)(1) | test_mississippi_ny_dealing::test_ny_5324_38_c_1_wagers_within_table_limits_in_whole_cents |
| NY 5324.38(c)(2) | test_mississippi_ny_dealing::test_ny_5324_38_c_2_no_wager_after_no_more_bets |
| NY 5324.38(c)(3) | test_mississippi_ny_dealing::test_ny_5324_38_c_3_bet_wagers_only_as_street_decisions |
| NY 5324.38(c)(4) | test_mississippi_ny_dealing::test_ny_5324_38_c_4_one_position_per_player_rewager_replaces |
| NY 5324.38(c)(5) | test_mississippi_ny_dealing::test_ny_5324_38_c_5_a_player_dealt_in_stays_until_settled |
| NY 5324.38(d)(1) | test_mississippi_ny_dealing::test_ny_5324_38_d_1_dealing_starts_at_the_dealers_left_clockwise |
| NY 5324.38(d)(1)(i) | test_mississippi_ny_dealing::test_ny_5324_38_d_1_i_two_cards_each_face_down |
| NY 5324.38(d)(1)(ii) | test_mississippi_ny_dealing::test_ny_5324_38_d_1_ii_three_community_cards_face_down |
| NY 5324.38(d)(2) | test_mississippi_ny_dealing::test_ny_5324_38_d_2_stacks_in_seat_order |
| NY 5324.38(d)(2) | test_mississippi_ny_dealing::test_ny_5324_38_d_2_no_stack_for_a_seat_without_a_wager |
| NY 5324.38(d)(2) | test_mississippi_ny_dealing::test_ny_5324_38_d_2_a_stack_of_three_cards_is_a_misdeal |
| NY 5324.38(d)(3) | test_mississippi_ny_dealing::test_ny_5324_38_d_3_stub_removed_then_community_dealt_from_it |
| NY 5324.38(d)(3) | test_mississippi_ny_dealing::test_ny_5324_38_d_3_wrong_stub_count_is_a_misdeal_deck_removed |
| NY 5324.38(e)(1) | test_mississippi_ny_play::test_ny_5324_38_e_1_fold_forfeits_the_ante_and_the_hand_is_collected |
| NY 5324.38(e)(2) | test_mississippi_ny_play::test_ny_5324_38_e_2_first_reveal_waits_for_every_3rd_street_decision |
| NY 5324.38(e)(3) | test_mississippi_ny_play::test_ny_5324_38_e_3_4th_street_fold_forfeits_ante_and_3rd |
| NY 5324.38(e)(4) | test_mississippi_ny_play::test_ny_5324_38_e_4_second_reveal_after_4th_street |
| NY 5324.38(e)(5) | test_mississippi_ny_play::test_ny_5324_38_e_5_5th_street_fold_forfeits_ante_3rd_and_4th |
| NY 5324.38(e)(6) | test_mississippi_ny_play::test_ny_5324_38_e_6_third_reveal_then_settlement |
| NY 5324.38(e)(7) | test_mississippi_ny_play::test_ny_5324_38_e_7_settlement_from_the_dealers_right_counterclockwise |
| NY 5324.38(e)(7)(i) | test_mississippi_ny_play::test_ny_5324_38_e_7_i_losing_wagers_collected |
| NY 5324.38(e)(7)(ii) | test_mississippi_ny_play::test_ny_5324_38_e_7_ii_pair_of_6s_to_10s_is_a_push |
| NY 5324.38(e)(7)(iii) | test_mississippi_ny_play::test_ny_5324_38_e_7_iii_winning_wagers_paid_per_the_paytable |
| NY 5324.38(e)(8) | test_mississippi_ny_play::test_ny_5324_38_e_8_records_reconstruct_each_hand |
| NY 5324.38(f)(1) | test_mississippi_ny_play::test_ny_5324_38_f_1_paytable_below_the_minimum_refused_naming_the_entry |
| NY 5324.38(f)(1) | test_mississippi_ny_play::test_ny_5324_38_f_1_better_paytable_accepted |
| NY 5324.38(f)(2) | test_mississippi_ny_play::test_ny_5324_38_f_2_cap_limits_one_hands_winnings_pro_rata |
| PA 655a.11(a) | test_mississippi_pa::test_pa_655a_11_a_1_only_dealer_and_player_see_the_cards |
| PA 655a.11(a)(1) | test_mississippi_pa::test_pa_655a_11_a_1_only_dealer_and_player_see_the_cards |
| PA 655a.11(a)(2) | test_mississippi_pa::test_pa_655a_11_a_2_cards_in_full_view_of_the_dealer |
| PA 655a.11(a)(3) | test_mississippi_pa::test_pa_655a_11_a_3_information_sharing_forfeits_all_wagers |
| PA 655a.11(b) | test_mississippi_pa::test_pa_655a_11_b_3rd_street_asked_clockwise_from_the_dealers_left |
| PA 655a.11(b) | test_mississippi_pa::test_pa_655a_11_b_fold_with_a_side_wager_keeps_the_hand_on_the_table |
| PA 655a.11(c) | test_mississippi_pa::test_pa_655a_11_c_first_reveal_after_every_3rd_street_wager |
| PA 655a.11(d) | test_mississippi_pa::test_pa_655a_11_d_4th_street_fold_forfeits_ante_and_3rd |
| PA 655a.11(e) | test_mississippi_pa::test_pa_655a_11_e_second_reveal_after_4th_street |
| PA 655a.11(f) | test_mississippi_pa::test_pa_655a_11_f_5th_street_fold_forfeits_ante_3rd_and_4th |
| PA 655a.11(g) | test_mississippi_pa::test_pa_655a_11_g_third_reveal_after_5th_street |
| PA 655a.11(h) | test_pa_side_wagers::test_pa_655a_11_h_fold_loses_the_progressive_wager |
| PA 655a.11(h) | test_pa_side_wagers::test_pa_655a_11_h_folded_hand_keeps_envy_eligibility |
| PA 655a.11(h) | test_pa_side_wagers::test_pa_655a_11_h_folded_hand_keeps_three_card_bonus |
| PA 655a.11(h) | test_pa_side_wagers::test_pa_655a_11_h_folded_hand_keeps_five_card_bonus |
| PA 655a.11(i) | test_mississippi_pa::test_pa_655a_11_i_settled_from_the_dealers_right_one_player_at_a_time |
| PA 655a.11(i)(1) | test_mississippi_pa::test_pa_655a_11_i_1_losing_wagers_collected |
| PA 655a.11(i)(2) | test_mississippi_pa::test_pa_655a_11_i_2_pair_of_6s_to_10s_pushes |
| PA 655a.11(i)(3) | test_mississippi_pa::test_pa_655a_11_i_3_winning_wagers_paid_per_655a_12_a |
| PA 655a.11(i)(4) | test_pa_side_wagers::test_pa_655a_11_i_4_side_wagers_after_the_base_in_order |
| PA 655a.11(i)(4)(i) | test_pa_side_wagers::test_pa_655a_11_i_4_i_D_paid_per_the_table_only_the_highest_hand |
| PA 655a.11(i)(4)(i)(A) | test_pa_side_wagers::test_pa_655a_11_i_4_i_A_only_a_winning_hand_is_paid |
| PA 655a.11(i)(4)(i)(B) | test_pa_side_wagers::test_pa_655a_11_i_4_i_B_C_floorperson_validates_every_progressive_win |
| PA 655a.11(i)(4)(i)(C) | test_pa_side_wagers::test_pa_655a_11_i_4_i_B_C_floorperson_validates_every_progressive_win |
| PA 655a.11(i)(4)(i)(D) | test_pa_side_wagers::test_pa_655a_11_i_4_i_D_meter_percentage_not_paid_from_the_tray |
| PA 655a.11(i)(4)(i)(E) | test_pa_side_wagers::test_pa_655a_11_i_4_i_E_envy_per_other_qualifying_hand_not_own |
| PA 655a.11(i)(4)(i)(E) | test_pa_side_wagers::test_pa_655a_11_i_4_i_E_multiple_envy_bonuses |
| PA 655a.11(i)(4)(ii) | test_pa_side_wagers::test_pa_655a_11_i_4_ii_three_card_bonus_on_the_community_cards |
| PA 655a.11(i)(4)(iii) | test_pa_side_wagers::test_pa_655a_11_i_4_iii_magic_card_and_lucky_bonus |
| PA 655a.11(i)(4)(iii)(A) | test_pa_side_wagers::test_pa_655a_11_i_4_iii_A_five_card_bonus_needs_a_winning_hand |
| PA 655a.11(i)(4)(iii)(B) | test_pa_side_wagers::test_pa_655a_11_i_4_iii_B_floorperson_for_500_for_1 |
| PA 655a.11(i)(4)(iii)(C) | test_pa_side_wagers::test_pa_655a_11_i_4_iii_C_game_account_but_meter_share_documented |
| PA 655a.11(j) | test_mississippi_pa::test_pa_655a_11_j_round_complete_after_all_settled |
"""

from __future__ import annotations

import importlib
import re

import pytest

ROWS = re.findall(r"^\| ((?:NY 5324\.38|PA 655a\.11)\S*) \| (\w+)::(\w+) \|$", __doc__ or "", re.MULTILINE)

NY = ["(a)(1)", "(a)(2)(i)", "(a)(2)(ii)", "(a)(2)(iii)(a)", "(a)(2)(iii)(b)", "(a)(2)(iv)", "(b)(1)"]
NY += [f"(b)(2)({n})" for n in ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix")]
NY += [f"(c)({n})" for n in range(1, 6)] + ["(d)(1)", "(d)(1)(i)", "(d)(1)(ii)", "(d)(2)", "(d)(3)"]
NY += [f"(e)({n})" for n in range(1, 9)] + ["(e)(7)(i)", "(e)(7)(ii)", "(e)(7)(iii)", "(f)(1)", "(f)(2)"]
PA = ["(a)", "(a)(1)", "(a)(2)", "(a)(3)", *(f"({c})" for c in "bcdefghij"), "(i)(1)", "(i)(2)", "(i)(3)"]
PA += ["(i)(4)", "(i)(4)(i)", *(f"(i)(4)(i)({c})" for c in "ABCDE"), "(i)(4)(ii)", "(i)(4)(iii)"]
PA += [f"(i)(4)(iii)({c})" for c in "ABC"]
SUBSECTIONS = [f"NY 5324.38{s}" for s in NY] + [f"PA 655a.11{s}" for s in PA]
"""Every subsection of the two texts (shared/regulations/000_*.txt and 002_*.txt)."""


def _token(citation: str) -> str:
    """``"NY 5324.38(d)(2)"`` -> ``"ny_5324_38_d_2"``."""
    return re.sub(r"[^a-z0-9]+", "_", citation.lower()).strip("_")


def test_every_subsection_has_a_row() -> None:
    listed = {row[0] for row in ROWS}
    assert sorted(set(SUBSECTIONS) - listed) == []
    assert sorted(listed - set(SUBSECTIONS)) == []


@pytest.mark.parametrize(("citation", "module", "name"), ROWS, ids=[f"{r[0]}-{r[2]}" for r in ROWS])
def test_each_listed_test_exists_and_names_its_subsection(citation: str, module: str, name: str) -> None:
    test = getattr(importlib.import_module(f"tests.rules.{module}"), name)
    doc = (test.__doc__ or "").replace(" ", "")
    section, paragraph = re.match(r"\w+ ([\d.a-z]+?)(\(.*)", citation).groups()  # type: ignore[union-attr]
    named = _token(citation) in name.lower() or (section in doc and paragraph in doc)
    assert named, f"{name} does not name {citation}"
