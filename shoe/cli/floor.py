"""``shoectl floor``: the casino floor's PostgreSQL copy of every table's journal (docs/floor.md).

``migrate`` creates or upgrades the schema, ``enrol`` and ``revoke`` give a table its own credential and
key and take them back, ``status`` lists every table, ``rounds`` lists rounds,
``reconstruct`` rebuilds one round hand by hand from the central copy (NY 5324.38(e)(8), PA 655a.11(j)),
``verify`` checks every table's chain end to end. ``shoectl journal verify --against URL`` compares a
local journal with the floor. psycopg is imported only when a command runs (shoectl's parser stays light).
Exit codes: 2 usage (a bad option, not a PostgreSQL URL, a role that may not run the command), 3 the
floor database is unreachable or not migrated, 10 a chain or a comparison failed.

Which role each command needs (docs/floor.md, "Roles"): migrate, enrol and revoke the database's owner;
status, verify, reconstruct and journal verify --against floor_auditor; rounds floor_pit or floor_auditor.
A role that may not is told so in one line, never with a traceback.
"""

from __future__ import annotations

import argparse
import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from shoe.cli.exit_codes import Exit
from shoe.cli.output import Refused, columns, emit

URL_ENV = "SHOE_FLOOR_URL"
EPILOG = f"""\
floor database: --url, else ${URL_ENV} (a libpq URL, e.g. postgresql://auditor@db1,db2/floor?target_session_attrs=any)
roles: migrate, enrol, revoke: the database's owner   status, verify, reconstruct: floor_auditor
       rounds: floor_pit or floor_auditor   (a table's own credential only ships)
exit codes: 0 ok   2 usage (or a role that may not)   3 floor database unreachable or not migrated
            10 a chain or a comparison failed
"""

_HINTS = {
    "unreachable": ("check the URL, that the server runs and that this machine may reach it", Exit.UNAVAILABLE),
    "not-migrated": (
        "run `shoectl floor migrate --url postgresql://OWNER@HOST/DB` as the database's owner",
        Exit.UNAVAILABLE,
    ),
    "permission": ('connect with the role named above (docs/floor.md, "Roles")', Exit.USAGE),
    "usage": ("see `shoectl floor --help`", Exit.USAGE),
    "refused": ("see floor.alarms (`shoectl floor status`)", Exit.JOURNAL_BAD),
    "failed": ("check the server's log; docs/floor.md", Exit.UNAVAILABLE),
}


def refusal(exc: Any) -> Refused:
    """A FloorError as the CLI's one-line refusal, with its next step and exit code."""
    hint, code = _HINTS.get(getattr(exc, "kind", "failed"), _HINTS["failed"])
    return Refused(str(exc), hint, code)


def _url(args: argparse.Namespace) -> str:
    url = getattr(args, "url", None) or os.environ.get(URL_ENV)
    if not url:
        raise Refused("no floor database given", f"pass --url postgresql://... or set {URL_ENV}", Exit.USAGE)
    return str(url)


def _guarded(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    @functools.wraps(command)
    def run(args: argparse.Namespace) -> int:
        from shoe.floor.errors import FloorError

        try:
            return command(args)
        except FloorError as exc:
            raise refusal(exc) from None

    return run


@_guarded
def cmd_migrate(args: argparse.Namespace) -> int:
    from shoe.floor.migrate import migrate

    before, after = migrate(_url(args))
    emit({"from_version": before, "to_version": after}, as_json=args.json,
         human=lambda d: f"floor schema at version {d['to_version']} (was {d['from_version']})")  # fmt: skip
    return 0


@_guarded
def cmd_enrol(args: argparse.Namespace) -> int:
    from shoe.floor.credentials import enrol
    from shoe.journal.mac import key_path
    from shoe.journal.paths import default_journal_path

    key_file = Path(args.key_file) if args.key_file else key_path(Path(args.journal or default_journal_path()))
    done = enrol(_url(args), args.table, key_file, legacy=args.legacy)
    doc = {"table": done.table, "role": done.role, "url": done.url, "key_file": str(done.key_file),
           "key_id": done.key_id, "legacy": done.legacy}  # fmt: skip

    def human(d: dict[str, Any]) -> str:
        return (f"table {d['table']} enrolled as role {d['role']} (key {d['key_id']} written to {d['key_file']}, "
                f"mode 0600)\nput this in shoed's configuration, [floor] url (it holds the role's password):\n"
                f"{d['url']}")  # fmt: skip

    emit(doc, as_json=args.json, human=human)
    return 0


@_guarded
def cmd_revoke(args: argparse.Namespace) -> int:
    from shoe.floor.credentials import revoke

    doc = revoke(_url(args), args.table)
    emit(doc, as_json=args.json, human=lambda d: f"table {d['table']}: credential {d['role']} revoked (role dropped)")
    return 0


def _status_text(d: dict[str, Any]) -> str:
    if not d["tables"]:
        return "no table has shipped to this floor yet"
    lines = [f"{'table':<16} {'last':>7} {'last entry (UTC)':<28} {'ago s':>8} {'link':<10} {'live round':<22} alarms"]
    for t in d["tables"]:
        ago = "-" if t["since_last_received_s"] is None else f"{t['since_last_received_s']:.1f}"
        alarm = f"{t['alarms']}: {t['last_alarm']}" if t["alarms"] else "0"
        if t.get("claimed_by_others"):
            alarm += f" (claimed by another credential {t['claimed_by_others']} times: see floor.alarms)"
        lines.append(f"{t['table']:<16} {t['last_seq'] or 0:>7} {t['last_ts'] or '-':<28} {ago:>8} "
                     f"{t['link'] or '-':<10} {t['live_round'] or '-':<22} {alarm}")  # fmt: skip
    return "\n".join(lines)


@_guarded
def cmd_status(args: argparse.Namespace) -> int:
    from shoe.floor.audit import floor_status

    emit({"tables": floor_status(_url(args))}, as_json=args.json, human=_status_text)
    return 0


def _rounds_text(d: dict[str, Any]) -> str:
    """One row a round, each column as wide as its widest cell: a round id is 40 characters, a timestamp
    with microseconds 32, so fixed widths pushed every later column out of line."""
    if not d["rounds"]:
        return "no rounds"
    rows = [
        (r["table_name"], r["round_id"], r["game"] or "?", r["jurisdiction"] or "?", r["opened"] or "?",
         r["entries"], r["closed"] or "live")
        for r in d["rounds"]
    ]  # fmt: skip
    return columns(("table", "round", "game", "jur", "opened", "entries", "closed"), rows, right=frozenset({5}))


@_guarded
def cmd_rounds(args: argparse.Namespace) -> int:
    from shoe.floor.audit import rounds

    found = rounds(_url(args), args.table, getattr(args, "from"), args.to)
    emit({"rounds": found}, as_json=args.json, human=_rounds_text)
    return 0


@_guarded
def cmd_reconstruct(args: argparse.Namespace) -> int:
    from shoe.floor.audit import round_entries
    from shoe.floor.errors import FloorError
    from shoe.journal.present import present_round, round_text
    from shoe.journal.reconstruct import reconstruct_round

    try:
        table, entries, check = round_entries(_url(args), args.round, args.table)
    except FloorError as exc:
        if str(exc).startswith(("no round", "round ")):
            raise Refused(str(exc), "`shoectl floor rounds` lists the rounds", Exit.USAGE) from None
        raise
    data = present_round(reconstruct_round(entries))
    data["floor_table"], data["integrity"] = table, check
    emit(data, as_json=args.json, human=round_text)
    return 0 if check["ok"] else int(Exit.JOURNAL_BAD)


@_guarded
def cmd_verify(args: argparse.Namespace) -> int:
    from shoe.floor.audit import verify_floor

    results = verify_floor(_url(args))

    def human(d: dict[str, Any]) -> str:
        lines = [f"{r['table']}: {'OK' if r['ok'] else 'BAD'} {r['entries']} entries"
                 + ("" if r["ok"] else f": {r['problem']}") for r in d["journals"]]  # fmt: skip
        bad = sum(not r["ok"] for r in d["journals"])
        return "\n".join([*lines, f"floor {'OK' if not bad else 'BAD'}: {len(d['journals'])} journals, {bad} bad"])

    emit({"journals": results, "ok": all(r["ok"] for r in results)}, as_json=args.json, human=human)
    return 0 if all(r["ok"] for r in results) else int(Exit.JOURNAL_BAD)


def verify_against(args: argparse.Namespace, journal: Any) -> int:
    """``shoectl journal verify --against URL``: the local journal compared with the floor's copy."""
    from shoe.floor.audit import compare
    from shoe.floor.errors import FloorError

    try:
        with journal:
            result = compare(journal, args.against, args.table)
    except FloorError as exc:
        raise refusal(exc) from None

    def human(d: dict[str, Any]) -> str:
        if d["ok"]:
            lag = f"; {d['not_yet_shipped']} entries not yet shipped" if d["not_yet_shipped"] else ""
            return (f"journal matches the floor: table {d['table']}, {d['floor_head_seq']} entries on the floor, "
                    f"local last {d['local_last_seq']}{lag}")  # fmt: skip
        return (
            "journal DIFFERS from the floor:\n"
            + "\n".join(f"  - {f}" for f in d["findings"])
            + ("\n-> keep the file as evidence (copy it; do not repair it) and report it to surveillance")
        )

    emit(result, as_json=args.json, human=human)
    return 0 if result["ok"] else int(Exit.JOURNAL_BAD)


def add_parsers(sub: Any) -> None:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--url", metavar="URL", help=f"the floor database (default: ${URL_ENV})")
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="machine-readable output")
    fmt = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser("floor", help="the casino floor's central copy of every journal (PostgreSQL)", epilog=EPILOG,
                       formatter_class=fmt)  # fmt: skip
    p.set_defaults(needs_port=False)
    fsub = p.add_subparsers(dest="floor_command", metavar="ACTION", required=True)

    def action(name: str, func: Callable[[argparse.Namespace], int], text: str) -> argparse.ArgumentParser:
        a: argparse.ArgumentParser = fsub.add_parser(name, parents=[common], help=text, epilog=EPILOG,
                                                     formatter_class=fmt)  # fmt: skip
        a.set_defaults(func=func, needs_port=False)
        return a

    action("migrate", cmd_migrate, "create or upgrade the floor's schema (a fresh database in one command)")
    e = action("enrol", cmd_enrol, "a login role and a key for one table; prints the table's [floor] url")
    e.add_argument("table", metavar="TABLE")
    where = e.add_mutually_exclusive_group()
    where.add_argument("--journal", metavar="PATH", help="the table's journal: the key is written beside it, "
                       "PATH.key (default: the default journal, $SHOED_JOURNAL)")  # fmt: skip
    where.add_argument("--key-file", metavar="PATH", help="write the key here instead (copy it, mode 0600, to the "
                       "journal's PATH.key on the table PC)")  # fmt: skip
    e.add_argument(
        "--legacy",
        action="store_true",
        help="accept entries without a MAC until the journal's first one (a journal older than the key)",
    )
    v = action("revoke", cmd_revoke, "retire a table's credential (its role is dropped, its sessions ended)")
    v.add_argument("table", metavar="TABLE")
    action("status", cmd_status, "every table: last entry, link, live round, alarms")
    r = action("rounds", cmd_rounds, "rounds by table and time")
    r.add_argument("--table", metavar="T", help="only this table")
    r.add_argument("--from", metavar="TIME", help="opened at or after (ISO 8601 UTC, e.g. 2026-12-01T08:00)")
    r.add_argument("--to", metavar="TIME", help="opened before")
    c = action("reconstruct", cmd_reconstruct, "one round hand by hand, from the central copy")
    c.add_argument("round", metavar="ROUND")
    c.add_argument("--table", metavar="T", help="the table, if the round id is on several")
    action("verify", cmd_verify, "every table's chain, end to end")
