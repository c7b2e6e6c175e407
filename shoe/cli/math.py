"""``shoectl math``: the PAR sheet of a paytable (exact house edge, wager, variance) and its optimal strategy.

Nothing here talks to a shoe: the figures come from :mod:`shoe.math`, computed from the same profiles
and paytables that settle real rounds.  Seven-card stud is a pot game (no house edge): the command
says so and prints the showdown hand frequencies instead.
"""

from __future__ import annotations

import argparse
from typing import Any

TIE_RULES = ("prefer-bet", "prefer-fold")
"""``shoe.math.Ties`` values, the default first (tests/cli/test_cli_imports.py checks they agree)."""
DEFAULT_STUD_ROUNDS = 20_000
"""``shoe.math.stud.DEFAULT_ROUNDS`` (checked the same way)."""

HELP = "PAR sheet: exact house edge, average wager, variance and optimal strategy of a paytable"
DESCRIPTION = """\
The PAR sheet of a Mississippi stud table, computed exactly from the same profile and paytable that
settle its rounds: the optimal strategy by backward induction over fold / 1x / 2x / 3x on 3rd, 4th
and 5th street, and every starting hand with every ordered community sequence counted down it
(155,937,600 deals, no sampling; a few seconds).

  house edge           what the house keeps per ante (= -EV of one round per unit ante)
  average total wager  ante + street bets, in antes, under optimal play
  element of risk      house edge / average total wager (the edge on the money risked)
  hit frequency        how often a round wins; every final line and each street's fold is listed
                       with its probability and its contribution to the return

Equal-EV actions exist (e.g. fold or 1x on 5th street): --ties picks the rule.  The EV is the same
either way; the average wager and the variance are not.  prefer-bet reproduces the published figures.

Seven-card stud is a pot game: the house takes no edge from the wagers, so there is no PAR sheet.
--game seven-card-stud says so and prints how often each hand wins the showdown for 2-8 players.
"""
EPILOG = """\
examples:
  shoectl math                                  the NY minimum table (also PA's and NJ's)
  shoectl math --paytable better.toml           a better NY table, checked against the NY floor
  shoectl math --strategy --street 3rd          what to do with two cards
  shoectl math --format md > par.md             Markdown; csv and json for spreadsheets and scripts
  shoectl math --jurisdiction PA --side all --meter meter=25000000   PA side wagers: Three Card Bonus,
                                                Progressive A-D, Envy
  shoectl math --leaks community                what seeing a community card early is worth
  shoectl math --game seven-card-stud --players 6 --rounds 50000 --seed 7

--paytable FILE (TOML or JSON): the lines and odds to 1, e.g.
  name = "ny-better"
  [pays]
  royal-flush = 1000
  straight-flush = 100 ...   (every line: royal-flush straight-flush four-of-a-kind full-house flush
  straight three-of-a-kind two-pair pair-jacks-or-better pair-6s-to-10s; 0 = push; a missing line loses)
  A jurisdiction profile file (game = ..., based_on = ...) or a play script ("table": {"paytable": ...})
  works too.  NY and NJ refuse a table below the minimum (NY 5324.38(f)(1)); PA's table is fixed.

exit codes: 0 ok   2 usage (unreadable or malformed --paytable)   9 paytable refused by the jurisdiction
"""



def _run(args: argparse.Namespace) -> int:
    from shoe.cli.math_sheet import cmd_math  # numpy and its threads only when the command runs

    return cmd_math(args)


def _players(text: str) -> int:
    value = int(text)
    if not 2 <= value <= 8:
        raise argparse.ArgumentTypeError(f"{value} players: seven-card stud seats 2 to 8 (N.J.A.C. 13:47-20.35(b))")
    return value


def _rounds(text: str) -> int:
    value = int(text)
    if not 100 <= value <= 10_000_000:
        raise argparse.ArgumentTypeError(f"{value} rounds: give 100 to 10,000,000")
    return value


def add_parsers(sub: Any) -> None:
    p = sub.add_parser(
        "math", help=HELP, description=DESCRIPTION, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--game", choices=["mississippi-stud", "seven-card-stud"], default="mississippi-stud")
    p.add_argument(
        "--jurisdiction", choices=["NY", "PA", "NJ"], help="whose rules and table (default NY, or the file's)"
    )
    p.add_argument("--paytable", metavar="FILE", help="analyse this paytable instead (TOML or JSON; see below)")
    p.add_argument(
        "--ties",
        choices=list(TIE_RULES),
        default=TIE_RULES[0],
        help="how equal-EV actions are broken (default prefer-bet, the published convention)",
    )
    p.add_argument("--format", choices=["text", "json", "csv", "md"], default="text", help="output form (default text)")
    p.add_argument("--strategy", action="store_true", help="also print the optimal strategy, street by street")
    p.add_argument("--street", choices=["3rd", "4th", "5th", "all"], default="all", help="with --strategy: one street")
    p.add_argument(
        "--side",
        action="append",
        choices=["three-card", "progressive", "envy", "all"],
        help="PA side wagers too (repeatable): Three Card Bonus, Progressive tables A-D, Envy Bonus",
    )
    p.add_argument(
        "--progressive-table", choices=list("ABCD"), action="append", help="with --side progressive: one table"
    )
    p.add_argument("--meter", action="append", metavar="NAME=CENTS", help="a progressive meter reading (repeatable)")
    p.add_argument("--stake", type=int, default=100, help="the progressive wager in cents (default 100)")
    p.add_argument(
        "--leaks",
        choices=["community", "all"],
        help="what a leaked card is worth (community cards; all: also another seat's hole card, ~20 s)",
    )
    p.add_argument("--no-cache", action="store_true", help="compute again, ignoring $XDG_CACHE_HOME/shoectl/math")
    p.add_argument("--players", type=_players, help="seven-card stud: one table size 2-8 (default all)")
    p.add_argument(
        "--rounds",
        type=_rounds,
        default=DEFAULT_STUD_ROUNDS,
        help=f"seven-card stud: simulated showdowns per table size (default {DEFAULT_STUD_ROUNDS:,})",
    )
    p.add_argument("--seed", type=int, default=0, help="seven-card stud: the simulation's seed (default 0)")
    p.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="the same as --format json")
    p.set_defaults(func=_run, needs_port=False)
