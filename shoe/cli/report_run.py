"""``shoectl report``'s work: read the journal, value every decision, print (imports numpy).

The parser is in :mod:`shoe.cli.report`, which imports this module only when the command runs.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path
from typing import Any

from shoe.cli.exit_codes import Exit
from shoe.cli.journal import JOURNAL_UNAVAILABLE, _guarded, _open
from shoe.cli.output import Refused
from shoe.report.read import RoundInfo, read_rounds
from shoe.report.summary import build_report

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
            f"envy: {row['paid_lines']} of {row['wagers']} lines paid, {row['expected_paid_lines']:.6f} expected "
            "(per other player: a royal or straight flush held at settlement, docs/rules-engine.md decision 8)"
            for row in data["side_wagers"]
            if row["bet"] == "envy" and fmt == "text"
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
