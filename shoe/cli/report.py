"""``shoectl report``: theoretical against actual hold, and decision quality, from the journal (issue 15).

Reads the journal (never writes it) through :mod:`shoe.report.read`; the figures come from
:mod:`shoe.report.summary` and :mod:`shoe.math.actual`.  No card code is printed: only amounts, counts,
round ids and seat numbers.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from datetime import datetime, time, timedelta
from pathlib import Path
from typing import Any

from shoe.cli.exit_codes import Exit
from shoe.cli.journal import JOURNAL_UNAVAILABLE, Refused, _guarded, _open
from shoe.report.read import RoundInfo, read_rounds
from shoe.report.summary import GROUPINGS, SHIFTS, build_report

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
COLUMNS = [
    ("key", "group"), ("rounds", "rounds"), ("seat_rounds", "seats"), ("handle", "handle"),
    ("house_won", "won"), ("house_lost", "lost"), ("house_win", "win"), ("hold_pct", "hold%"),
    ("theo_optimal", "theo opt"), ("theo_observed", "theo obs"), ("z_optimal", "sd opt"),
    ("z_observed", "sd obs"), ("ev_given_up", "EV given up"),
]  # fmt: skip
SEAT_COLUMNS = [
    ("seat", "seat"), ("seat_rounds", "rounds"), ("decisions", "decisions"), ("deviations", "deviations"),
    ("ev_given_up", "EV given up"), ("beat", "beat"), ("expected_beat", "expected"), ("p_count", "p (count)"),
    ("z_gain", "z gain"), ("p_gain", "p (gain)"), ("flag", "flag"),
]  # fmt: skip


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


def _cell(value: Any, key: str = "") -> str:
    if value is None:
        return "-"
    if key.startswith("p_") and isinstance(value, float):
        return f"{value:.2e}" if value > 0 else "<1e-300"
    if isinstance(value, float):
        return f"{value:.2e}" if value and abs(value) < 1e-3 else f"{value:.3f}"
    return str(value)


def _seat_rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [{**s, **s.get("test", {}), "flag": "FLAGGED" if s.get("flagged") else ""} for s in data["seats"]]


def _table(rows: list[dict[str, Any]], cols: list[tuple[str, str]], fmt: str) -> str:
    cells = [[label for _, label in cols]] + [[_cell(r.get(k), k) for k, _ in cols] for r in rows]
    if fmt == "md":
        lines = ["| " + " | ".join(cells[0]) + " |", "|" + "---|" * len(cols)]
        return "\n".join(lines + ["| " + " | ".join(c) + " |" for c in cells[1:]])
    widths = [max(len(row[i]) for row in cells) for i in range(len(cols))]
    lines = []
    for row in cells:
        padded = [c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))]
        lines.append(("  " + "  ".join(padded)).rstrip())
    return "\n".join(lines)


def _text(data: dict[str, Any], fmt: str) -> str:
    head = "## " if fmt == "md" else ""
    apart, test = data["apart"], data["test"]
    out = [
        f"{head}report of {data['journal']}: rounds opened {data['period']['first'] or '-'} to "
        f"{data['period']['last'] or '-'} (UTC), by {data['by']}",
        "",
        f"{head}Mississippi stud, base game (cents; sd: (win - theo) / standard deviation)",
        _table([*data["groups"], data["total"]] if data["by"] != "all" else [data["total"]], COLUMNS, fmt),
        "theoretical: " + "; ".join(
            f"{j} house edge {p['house_edge_pct']:.4f}% of the ante, sd {p['std_dev_per_ante']:.4f} antes per round"
            for j, p in data["paytables"].items()) + " (optimal play, shoectl math)",
        "",
        f"{head}decision quality per seat (EV given up: cents against optimal play)",
        _table(_seat_rows(data), SEAT_COLUMNS, fmt),
        f"test: {test['description']}; alpha {test['alpha']}, {test['seats_tested']} seats tested, "
        f"threshold {test['threshold']:.2e}",
    ]  # fmt: skip
    if data["worst_rounds"]:
        out += ["", f"{head}rounds with the most EV given up", _table(data["worst_rounds"],
                [("round_id", "round"), ("ev_given_up", "EV given up")], fmt)]  # fmt: skip
    if data["side_wagers"]:
        cols = [("bet", "side wager"), ("wagers", "wagers"), ("handle", "handle"), ("house_win", "win"),
                ("hold_pct", "hold%"), ("theo", "theo")]  # fmt: skip
        out += [
            "",
            f"{head}side wagers (apart; theo where a fixed table prices it)",
            _table(data["side_wagers"], cols, fmt),
        ]
    out += [
        "",
        f"{head}counted apart",
        f"void rounds {apart['void_rounds']} (returned {apart['returned']}), open rounds {apart['open_rounds']}, "
        f"forfeits {apart['forfeits']}, irregularity entries "
        f"{', '.join(f'{k} {v}' for k, v in sorted(apart['irregularities'].items())) or 'none'}, other games "
        f"{', '.join(f'{k} {v}' for k, v in sorted(apart['other_games'].items())) or 'none'}",
    ]
    return "\n".join(out)


def _csv(data: dict[str, Any]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["section", *(k for k, _ in COLUMNS)])
    for row in [*data["groups"], data["total"]]:
        writer.writerow(["hold", *(row.get(k) for k, _ in COLUMNS)])
    writer.writerow(["section", *(k for k, _ in SEAT_COLUMNS)])
    for row in _seat_rows(data):
        writer.writerow(["seat", *(row.get(k) for k, _ in SEAT_COLUMNS)])
    return buf.getvalue()


@_guarded
def cmd_report(args: argparse.Namespace) -> int:
    fmt = "json" if getattr(args, "json", False) else args.format
    start, end = args.start, args.end

    def keep(r: RoundInfo) -> bool:
        if start is None and end is None:
            return True
        return r.opened is not None and (start is None or r.opened >= start) and (end is None or r.opened < end)

    with _open(args) as journal:
        rounds = list(read_rounds(journal))
        path = str(journal.path)
    data = {"journal": path, **build_report(rounds, by=args.by, alpha=args.alpha, keep=keep)}
    series = data.pop("series")
    if args.plot:
        from shoe.report.plots import PlotUnavailable, write_plots

        try:
            data["plots"] = [str(p) for p in write_plots(Path(args.plot), series)]
        except PlotUnavailable as exc:
            raise Refused(str(exc), "pip install -e '.[plot]' (matplotlib), or leave --plot out", Exit.USAGE) from None
        except OSError as exc:
            raise Refused(f"cannot write the plots to {args.plot}: {exc.strerror}", "give a writable folder",
                          JOURNAL_UNAVAILABLE) from None  # fmt: skip
    text = json.dumps(data) if fmt == "json" else _csv(data) if fmt == "csv" else _text(data, fmt)
    sys.stdout.write(text.rstrip("\n") + "\n")
    return 0


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
    p.set_defaults(func=cmd_report, needs_port=False)
