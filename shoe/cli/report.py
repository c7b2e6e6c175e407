"""``shoectl report``: theoretical against actual hold, and decision quality, from the journal.

Reads the journal (never writes it) through :mod:`shoe.report.read`; the figures come from
:mod:`shoe.report.summary` and :mod:`shoe.math.actual`.  No card code is printed: only amounts, counts,
round ids and seat numbers.
"""

from __future__ import annotations

import argparse
from datetime import datetime, time, timedelta
from typing import Any

from shoe.report.groupings import GROUPINGS, SHIFTS

HELP = "theoretical against actual hold, and each seat's decision quality, from the journal"
DESCRIPTION = """\
Mississippi stud rounds of the journal: rounds, handle (ante and street bets), what the house won and
lost, the actual hold, the theoretical win under optimal play and under the decisions the players
took (each valued exactly from the cards the seat had seen), and the difference in standard
deviations. Per seat: the EV its decisions gave up against optimal play, and a test of whether its
deviations beat optimal play more often than luck allows (a seat that saw an unrevealed card,
PA 655a.11(a)(3)); a flagged seat has a probability below --alpha / seats tested of doing so by luck.
Side wagers, void rounds, irregularities and other games are counted apart.

examples:
  shoectl report --journal /var/lib/shoed/journal.sqlite
  shoectl report --by shift --from 2026-11-02 --to 2026-11-08
  shoectl report --by seat --format md
  shoectl report --plot plots/                 PNG and SVG (pip install -e '.[plot]')
"""
EPILOG = f"""\
--from / --to: ISO dates or times, local time unless an offset is given; --to a date alone includes that day.
shifts: {SHIFTS}.
exit codes: 0 ok (a flagged seat is reported, not an error)   2 usage   3 journal missing or unreadable
"""
def _when(text: str, end: bool) -> datetime:
    try:
        if len(text) == 10:
            day = datetime.combine(datetime.fromisoformat(text).date(), time())
            moment = day + timedelta(days=1) if end else day
        else:
            moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an ISO date or time (2026-11-02 or 2026-11-02T14:00)"
        ) from None
    return moment if moment.tzinfo else moment.astimezone()


def _start(text: str) -> datetime:
    return _when(text, False)


def _end(text: str) -> datetime:
    return _when(text, True)


def _alpha(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text}: give a probability between 0 and 1, e.g. 0.001")
    return value


def _run(args: argparse.Namespace) -> int:
    from shoe.cli.report_run import cmd_report  # numpy and its threads only when the command runs

    return cmd_report(args)


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("report", help=HELP, description=DESCRIPTION, epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("--journal", metavar="PATH", help="the journal file (default: $SHOED_JOURNAL or the XDG path)")
    p.add_argument("--from", dest="start", type=_start, metavar="WHEN", help="rounds opened at or after WHEN")
    p.add_argument("--to", dest="end", type=_end, metavar="WHEN", help="rounds opened before WHEN (a date: to its end)")
    p.add_argument("--by", choices=GROUPINGS, default="all", help="one row per table, shift, day or seat")
    p.add_argument("--format", choices=["text", "md", "csv", "json"], default="text", help="output form")
    p.add_argument("--alpha", type=_alpha, default=0.001, help="flag a seat below alpha / seats tested (0.001)")
    p.add_argument("--plot", metavar="DIR", help="write PNG and SVG plots there (needs matplotlib)")
    p.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="the same as --format json")
    p.set_defaults(func=_run, needs_port=False)
