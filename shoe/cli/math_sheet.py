"""``shoectl math``'s work: the PAR sheet, strategy, side wagers and leaks, formatted (imports numpy).

The parser is in :mod:`shoe.cli.math`, which imports this module only when the command runs, so that
no other command (``shoectl emulate`` above all: its signals) starts numpy's threads.
"""

from __future__ import annotations

import argparse
import csv
import functools
import io
import json
import sys
import time
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from shoe.cli.exit_codes import Exit
from shoe.cli.math_cache import cached
from shoe.cli.output import Refused, error_message
from shoe.math import Par, Ties, par_sheet, paytable_key, side
from shoe.math.leaks import leak_values
from shoe.math.report import leaks_data, par_data, side_data, strategy_data
from shoe.math.stud import showdown_table
from shoe.rules.errors import RuleViolation
from shoe.rules.mississippi import TableConfig, resolve_table
from shoe.rules.paytables import PROGRESSIVE_TABLES, THREE_CARD_BONUS_EXAMPLE, BasePaytable
from shoe.rules.profile_data import profile_from_data
from shoe.rules.profiles import MississippiProfile, get_profile


def _guarded(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    @functools.wraps(command)
    def run(args: argparse.Namespace) -> int:
        try:
            return command(args)
        except RuleViolation as exc:
            if exc.code == "invalid-configuration":  # a malformed file, not a table the rules refuse
                hint, code = "see shoectl math --help for the paytable file's form", Exit.USAGE
            else:
                hint, code = "give every line at least the minimum odds, or leave --paytable out", Exit.RULES
            error_message(str(exc), hint, as_json=args.json, code=code, kind="RuleViolation")
            return int(code)

    return run


def _read(path: Path) -> Mapping[str, Any]:
    hint = "a TOML or JSON file: name = ... and [pays] with odds to 1 per line (shoectl math --help)"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise Refused(f"cannot read --paytable {str(path)!r} ({exc.strerror})", hint, Exit.USAGE) from None
    try:
        data: Any = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        kind = "JSON" if path.suffix == ".json" else "TOML"
        raise Refused(f"--paytable {str(path)!r} is not valid {kind}: {exc}", hint, Exit.USAGE) from None
    if not isinstance(data, Mapping):
        raise Refused(f"--paytable {str(path)!r} is not a table of lines", hint, Exit.USAGE)
    return data


def _table(args: argparse.Namespace) -> tuple[MississippiProfile, BasePaytable]:
    """The jurisdiction's profile and the paytable to analyse, checked as a real table would be."""
    jurisdiction = args.jurisdiction or "NY"
    if args.paytable is None:
        profile = get_profile("mississippi-stud", jurisdiction)
        assert isinstance(profile, MississippiProfile)
        return profile, profile.paytable
    path = Path(args.paytable).expanduser()
    data = _read(path)
    if "game" in data and "based_on" in data:  # a jurisdiction profile as data
        loaded = profile_from_data(data)
        if not isinstance(loaded, MississippiProfile):
            raise Refused(f"{path} is a {loaded.game} profile, not Mississippi stud", "", Exit.USAGE)
        return loaded, loaded.paytable
    if isinstance(data.get("table"), Mapping) and "paytable" in data["table"]:  # a play script
        named = str(data.get("jurisdiction", jurisdiction))
        if args.jurisdiction is not None and named != args.jurisdiction:
            hint = f"leave out --jurisdiction, or give --jurisdiction {named}"
            raise Refused(f"{path} is a {named} table, not {args.jurisdiction}", hint, Exit.USAGE)
        jurisdiction = named
        data = {"name": path.stem, "pays": data["table"]["paytable"]}
    pays = data.get("pays", {k: v for k, v in data.items() if k != "name"})
    if not isinstance(pays, Mapping):
        raise Refused(f"{path}: pays must be a table of line = odds", "see shoectl math --help", Exit.USAGE)
    try:
        table = BasePaytable.from_mapping(str(data.get("name", path.stem)), pays)
    except ValueError as exc:
        raise Refused(f"{path}: {exc}", "lines are named as in shoectl math --help", Exit.USAGE) from None
    profile = get_profile("mississippi-stud", jurisdiction)
    assert isinstance(profile, MississippiProfile)
    # The table's own check (NY 5324.38(f)(1) floor, PA 655a.12(a) fixed); the ante limits are placeholders.
    resolve_table(profile, TableConfig(500, 50_000, paytable=table))
    return profile, table


def _pct(x: Mapping[str, Any], digits: int = 4) -> str:
    return f"{x['value'] * 100:.{digits}f}%"


def _summary(d: Mapping[str, Any]) -> list[tuple[str, str]]:
    return [
        ("house edge", f"{_pct(d['house_edge'])} of the ante ({d['house_edge']['exact']})"),
        ("average total wager", f"{d['average_total_wager']['value']:.4f} antes"),
        ("element of risk", f"{_pct(d['element_of_risk'])} (house edge / average total wager)"),
        ("standard deviation", f"{d['std_dev_per_round']:.4f} antes per round"),
        ("hit frequency", f"{_pct(d['hit_frequency'], 2)} of rounds win"),
        ("push frequency", _pct(d["push_frequency"], 2)),
        ("fold frequency", f"{_pct(d['fold_frequency'], 2)} (all streets)"),
    ]


def _outcome_rows(d: Mapping[str, Any]) -> list[list[str]]:
    rows = [
        [o["outcome"], o["pays"], f"{o['deals']:,}", f"{o['probability']:.8f}", f"{o['contribution']:+.6f}"]
        for o in d["outcomes"]
    ]
    rows.append(["total", "", f"{d['deals']:,}", f"{1:.8f}", f"{d['ev_per_ante']['value']:+.6f}"])
    return rows


OUTCOME_HEAD = ["outcome", "pays", "deals", "probability", "contribution"]


def _grid(head: list[str], rows: list[list[str]], md: bool) -> str:
    if md:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        return "\n".join([*lines, *("| " + " | ".join(r) + " |" for r in rows)])
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows, strict=True)]
    return "\n".join("  ".join(str(x).ljust(w) for x, w in zip(r, widths, strict=True)).rstrip() for r in [head, *rows])


def par_text(d: Mapping[str, Any], md: bool) -> str:
    pt = d["paytable"]
    title = f"Mississippi stud PAR sheet: {d['jurisdiction']} ({d['regulation']}), paytable {pt['name']}"
    out = [f"# {title}" if md else title, ""]
    out += [f"paytable: {', '.join(f'{k} {v}' for k, v in pt['pays'].items())} (to 1; 0 = push; {pt['rule']})"]
    out += [
        f"paytable hash: {pt['hash']}",
        f"method: {d['method']}",
        f"ties: {d['ties']['rule']}: {d['ties']['meaning']}",
        "",
    ]
    out.append(_grid(["figure", "value"], [list(r) for r in _summary(d)], md))
    out += ["", _grid(OUTCOME_HEAD, _outcome_rows(d), md), ""]
    out += [f"note: {n}" for n in d["notes"]]
    return "\n".join(out)


def strategy_text(s: Mapping[str, Any], streets: set[str], md: bool) -> str:
    out = ["", f"ties: {s['ties']['rule']}: {s['ties']['meaning']}", s["reading"], ""]
    short = {"fold": "F", "1x": "1", "2x": "2", "3x": "3"}
    if "3rd" in streets:
        g = s["grid_3rd"]
        out += ["3rd street (F fold, 1/2/3 the bet in antes); " + g["reading"]]
        head = ["", *g["ranks"]]
        rows = [[r, *(short[a] for a in row)] for r, row in zip(g["ranks"], g["rows"], strict=True)]
        out += [_grid(head, rows, md), ""]
    for t in s["streets"][1:]:
        if t["street"] in streets:
            out.append(f"{t['street']} street: action by total already wagered")
            out += [_grid(["cards", *(f"W={w}" for w in t["wagered"])], t["rows"], md), ""]
    return "\n".join(out)


def _csv(head: list[str], rows: list[list[Any]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(head)
    writer.writerows(rows)
    return buf.getvalue()


def _meters(items: list[str] | None) -> dict[str, int]:
    out = {}
    for item in items or []:
        name, _, value = item.partition("=")
        if name not in {"meter", "mega", "major", "minor"} or not value.isdigit():
            hint = (
                "--meter NAME=CENTS with NAME meter (table A) or mega, major, minor (B-D), e.g. --meter meter=25000000"
            )
            raise Refused(f"bad --meter {item!r}", hint, Exit.USAGE)
        out[name] = int(value)
    return out


def _extras(args: argparse.Namespace, par: Par, profile: MississippiProfile) -> list[dict[str, Any]]:
    """The --side and --leaks tables (PA side wagers; what a leaked card is worth)."""
    tables: list[dict[str, Any]] = []
    wanted = set(args.side or [])
    if wanted and not profile.side_bets:
        hint = "give --jurisdiction PA (PA 655a.11(i)(4), 655a.12)"
        raise Refused(f"{profile.jurisdiction} tables offer no side wagers", hint, Exit.USAGE)
    if "all" in wanted:
        wanted = {"three-card", "progressive", "envy"}
    if wanted:
        sheets = [side.three_card_bonus(THREE_CARD_BONUS_EXAMPLE)] if "three-card" in wanted else []
        if "progressive" in wanted:
            sheets += [side.progressive(PROGRESSIVE_TABLES[k], par) for k in args.progressive_table or "ABCD"]
        envy = side.envy_per_player(par) if "envy" in wanted else None
        tables += side_data(sheets, envy, stake=args.stake, meters=_meters(args.meter))["tables"]
    if args.leaks:
        found = leak_values(par.odds, par.ties, hole_card=args.leaks == "all")
        tables += leaks_data(found, par.ev)["tables"]
    return tables


def _tables_text(tables: list[dict[str, Any]], md: bool) -> str:
    out = []
    for t in tables:
        out += ["", ("## " if md else "") + t["title"], "", _grid(t["head"], t["rows"], md)]
        out += [f"note: {n}" for n in t["notes"]]
    return "\n".join(out)


def _mississippi(args: argparse.Namespace, fmt: str) -> str:
    profile, table = _table(args)
    started = time.perf_counter()
    where = {"jurisdiction": profile.jurisdiction, "regulation": profile.regulation, "rule": profile.rules.paytable}
    par = par_sheet(table, Ties(args.ties)) if args.strategy or args.side or args.leaks or args.no_cache else None
    if par is None:  # the sheet alone: from the disk cache when this program computed it before
        parts = {**where, "name": table.name, "pays": paytable_key(table), "ties": args.ties}
        d = cached(parts, lambda: par_data(par_sheet(table, Ties(args.ties)), table, **where))
    else:
        d = par_data(par, table, **where)
    d["seconds"] = round(time.perf_counter() - started, 3)
    streets = {"3rd", "4th", "5th"} if args.street == "all" else {args.street}
    s = strategy_data(par) if par is not None and args.strategy else None
    extras = _extras(args, par, profile) if par is not None else []
    if fmt == "json":
        if extras:
            d["extras"] = extras
        if s is not None:
            s["streets"] = [t for t in s["streets"] if t["street"] in streets]
            d["strategy"] = s
        return json.dumps(d)
    if fmt == "csv":
        if extras:
            return "\n".join(_csv(["table", *t["head"]], [[t["title"], *r] for r in t["rows"]]) for t in extras)
        if s is None:
            rows = [[o["outcome"], o["pays"], o["deals"], o["probability"], o["contribution"]] for o in d["outcomes"]]
            return _csv(OUTCOME_HEAD, rows)
        rows = [
            [t["street"], r[0], w, a]
            for t in s["streets"]
            if t["street"] in streets
            for r in t["rows"]
            for w, a in zip(t["wagered"], r[1:], strict=True)
            if a != "."
        ]
        return _csv(["street", "cards", "wagered", "action"], rows)
    md = fmt == "md"
    text = par_text(d, md) + (_tables_text(extras, md) if extras else "")
    return text + ("\n" + strategy_text(s, streets, md) if s is not None else "")


def _stud(args: argparse.Namespace, fmt: str) -> str:
    players = range(2, 9) if args.players is None else [args.players]
    table = showdown_table(players, rounds=args.rounds, seed=args.seed)
    if fmt == "json":
        return json.dumps(table)
    head = ["winning hand", *(f"{p} players" for p in table["players"]), "any one hand (exact)"]
    rows = [[r["category"], *(f"{x:.4f}" for x in r["probability"]), f"{r['any_hand']:.4f}"] for r in table["rows"]]
    if fmt == "csv":
        return _csv(head, rows)
    md = fmt == "md"
    out = [("# " if md else "") + "Seven-card stud: no house edge", "", table["no_house_edge"], "", table["method"], ""]
    out += [_grid(head, rows, md), "", table["interval"]]
    return "\n".join(out)


@_guarded
def cmd_math(args: argparse.Namespace) -> int:
    fmt = "json" if args.json else args.format
    text = _stud(args, fmt) if args.game == "seven-card-stud" else _mississippi(args, fmt)
    sys.stdout.write(text.rstrip("\n") + "\n")
    return 0
