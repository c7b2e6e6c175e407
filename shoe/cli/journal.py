"""``shoectl journal``: verify the table service's journal, show a round in dealing order, export it.

Exit codes besides the common ones: 3 when the journal is missing or cannot be opened (``JOURNAL_UNAVAILABLE``)
and 10 when its hash chain is broken (``JOURNAL_BAD``); see docs/journal.md.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import asdict
from itertools import takewhile
from pathlib import Path
from typing import Any, TextIO

from shoe.cli.exit_codes import Exit
from shoe.cli.output import Refused, columns, emit, error_message
from shoe.journal import GENESIS, Entry, Journal, JournalError, VerifyResult, default_journal_path, verify_entries
from shoe.journal.present import present_round, round_text
from shoe.journal.reconstruct import reconstruct_round

JOURNAL_UNAVAILABLE = int(Exit.UNAVAILABLE)
"""3: no journal at the path, no permission, or not a journal."""
JOURNAL_BAD = int(Exit.JOURNAL_BAD)
"""The hash chain is broken: an entry was edited, deleted, inserted or reordered."""

EPILOG = """\
exit codes: 0 ok   2 usage (unknown round, export file exists)   3 journal missing or unreadable
  10 journal tampered or damaged: the first bad entry is named   1 a bug (traceback printed)
journal path: --journal, else $SHOED_JOURNAL, else $XDG_STATE_HOME/shoed/journal.sqlite (~/.local/state)
"""


def _guarded(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """A journal that fails ends with a message, a hint and an exit code, never a traceback (a
    :class:`Refused` is printed by ``shoectl``'s main, as for every command)."""

    @functools.wraps(command)
    def run(args: argparse.Namespace) -> int:
        try:
            return command(args)
        except JournalError as exc:
            hint = "check --journal / SHOED_JOURNAL names the service's journal, and run as the service's user"
            error_message(str(exc), hint, as_json=args.json, code=JOURNAL_UNAVAILABLE, kind="JournalError")
            return JOURNAL_UNAVAILABLE

    return run


def _path(args: argparse.Namespace) -> Path:
    return Path(args.journal).expanduser() if args.journal else default_journal_path()


def _open(args: argparse.Namespace) -> Journal:
    """Open an existing journal; reading never creates one."""
    path = _path(args)
    if not path.exists():
        hint = "pass --journal PATH or set SHOED_JOURNAL to where shoed keeps it (see docs/journal.md)"
        raise Refused(f"no journal at {path}", hint, JOURNAL_UNAVAILABLE)
    if not os.access(path, os.R_OK | os.W_OK):
        hint = "run shoectl as the user the service runs as (e.g. `sudo -u shoed shoectl journal ...`)"
        raise Refused(f"no permission to open the journal {path}", hint, JOURNAL_UNAVAILABLE)
    return Journal.open(path)


@_guarded
def cmd_verify(args: argparse.Namespace) -> int:
    if getattr(args, "against", None):  # the central copy (docs/floor.md); psycopg loads only then
        from shoe.cli.floor import verify_against

        return verify_against(args, _open(args))
    with _open(args) as journal:
        result, last = journal.verify(), journal.last()
    data = {"journal": str(journal.path), **asdict(result), "last_seq": None, "last_hash": None}
    if result.ok and last is not None:
        data.update(last_seq=last.seq, last_hash=last.hash)

    def human(d: dict[str, Any]) -> str:
        if d["ok"]:
            tail = f"\nlast entry {d['last_seq']}: {d['last_hash']}" if d["last_hash"] else ""
            return f"journal OK: {d['checked']} entries, chain intact{tail}"
        return (
            f"journal BAD: {d['problem']}\n{d['checked']} entries before it are intact\n"
            "-> keep the file as evidence (copy it; do not repair it) and report it to surveillance"
        )

    emit(data, as_json=args.json, human=human)
    return 0 if result.ok else JOURNAL_BAD


def _check_span(journal: Journal, first: int, last: int) -> VerifyResult:
    """The chain from the entry before the round to its last entry (all kinds, other rounds' too)."""
    start_prev = GENESIS
    if first > 1:
        anchor = next(journal.entries(after_seq=first - 2), None)
        if anchor is None or anchor.seq != first - 1:
            return VerifyResult(False, 0, first - 1, f"entry {first - 1} is missing (deleted?)")
        start_prev = anchor.hash
    span = takewhile(lambda e: e.seq <= last, journal.entries(after_seq=first - 1))
    return verify_entries(span, start_seq=first, start_prev=start_prev)


def _rounds_text(d: dict[str, Any]) -> str:
    if not d["rounds"]:
        return f"no rounds in {d['journal']}"
    rows = [
        (
            r["round_id"],
            r["game"] or "?",
            r["jurisdiction"] or "?",
            r["opened"] or "?",
            r["entries"],
            r["closed"] or "-",
        )
        for r in d["rounds"]
    ]
    return columns(("round", "game", "jur", "opened", "entries", "closed"), rows, right=frozenset({4}))


def _known_round(journal: Journal, round_id: str) -> dict[str, Any]:
    for summary in journal.rounds():
        if summary["round_id"] == round_id:
            return summary
    raise Refused(f"no round {round_id!r} in {journal.path}", "`shoectl journal show` lists the rounds", Exit.USAGE)


@_guarded
def cmd_show(args: argparse.Namespace) -> int:
    with _open(args) as journal:
        if args.round is None:
            emit({"journal": str(journal.path), "rounds": journal.rounds()}, as_json=args.json, human=_rounds_text)
            return 0
        summary = _known_round(journal, args.round)
        data = present_round(reconstruct_round(journal.entries(round_id=args.round)))
        check = _check_span(journal, summary["first_seq"], summary["last_seq"])
    data["integrity"] = {"ok": check.ok, "first_bad_seq": check.first_bad_seq, "problem": check.problem}
    if not check.ok:
        sys.stderr.write(f"shoectl: WARNING: this round's entries fail the chain check: {check.problem}\n")
    emit(data, as_json=args.json, human=round_text)
    return 0 if check.ok else JOURNAL_BAD


def _write_lines(entries: Iterable[Entry], out: TextIO) -> int:
    count = 0
    for count, entry in enumerate(entries, 1):  # noqa: B007 (the count is the result)
        out.write(json.dumps(entry.as_dict()) + "\n")
    out.flush()
    return count


@_guarded
def cmd_export(args: argparse.Namespace) -> int:
    with _open(args) as journal:
        if args.round is not None:
            _known_round(journal, args.round)
        entries = journal.entries(round_id=args.round)
        if args.output is None:
            _write_lines(entries, sys.stdout)
            return 0
        try:  # the export holds card identities: private, and an existing file is never overwritten
            fd = os.open(args.output, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            raise Refused(f"{args.output} already exists", "choose a new file name", Exit.USAGE) from None
        except OSError as exc:
            raise Refused(f"cannot write {args.output}: {exc.strerror}", "choose another place", Exit.USAGE) from None
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            count = _write_lines(entries, out)
    data = {"journal": str(journal.path), "output": args.output, "exported": count}
    emit(data, as_json=args.json, human=lambda d: f"exported {d['exported']} entries to {d['output']}")
    return 0


def add_parsers(sub: Any) -> None:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--journal", metavar="PATH", help="the journal file (default: $SHOED_JOURNAL or the XDG path)")
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="machine-readable output")
    fmt = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser(
        "journal", help="verify, show and export the table service's journal", epilog=EPILOG, formatter_class=fmt
    )
    p.set_defaults(needs_port=False)
    jsub = p.add_subparsers(dest="journal_command", metavar="ACTION", required=True)
    v = jsub.add_parser("verify", parents=[common], help="recompute the hash chain", epilog=EPILOG, formatter_class=fmt)
    v.add_argument("--against", metavar="URL", help="also compare with the floor's copy (postgresql://...)")
    v.add_argument("--table", metavar="T", help="with --against: the table's name on the floor (default: found)")
    v.set_defaults(func=cmd_verify, needs_port=False)
    s = jsub.add_parser(
        "show", parents=[common], help="list rounds, or one round in dealing order", epilog=EPILOG, formatter_class=fmt
    )
    s.add_argument("--round", metavar="ID", help="the round to reconstruct (without it: list the rounds)")
    s.set_defaults(func=cmd_show, needs_port=False)
    e = jsub.add_parser(
        "export",
        parents=[common],
        help="JSON lines, one entry per line, hashes included",
        epilog=EPILOG,
        formatter_class=fmt,
    )
    e.add_argument("--round", metavar="ID", help="only this round's entries")
    e.add_argument("--output", metavar="FILE", help="write to a new file (mode 0600) instead of stdout")
    e.set_defaults(func=cmd_export, needs_port=False)
