"""``shoectl play SCRIPT.json [--port URL]``: one scripted round, its record printed as JSON.

By default the cards come from the in-process emulator loaded with exactly the script's ``"shoe"``
list; ``--port`` (here or before the command) names another shoe.  The record is always JSON.
A file that is not JSON exits 2 (``Exit.USAGE``), as an unreadable one does; a round played to its
end as void (a misdeal: an unreadable card, a card already dealt) exits 15 (``Exit.MISDEAL``) with its
record on stdout. An illegal script exits 9 (``Exit.RULES``) with ``shoectl: error: <what and where>`` on stderr and
nothing on stdout (under ``--json``: one ``{"error": ...}`` document); a device fault before the
first card exits with its usual code.  A round cut short once cards are out (a jam, a stud action
that does not fit a real shoe's cards) is void: its record, with an ``"error"`` member, is printed,
and the exit code is the cause's.  See docs/play-scripts.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import msgspec

from drivers.errors import ShoeError
from shoe.cli.exit_codes import Exit, exit_code_for
from shoe.cli.output import emit, error_dict, error_message
from shoe.play import CutShort, parse_script, run_script
from shoe.rules.errors import RuleViolation

__all__ = ["DEFAULT_PORT", "add_parsers", "cmd_play"]

DEFAULT_PORT = "emu://"
"""shoectl's default port: for ``play`` it means the emulator loaded with the script's own cards."""

HINT = "see docs/play-scripts.md for the script format"
CUT_HINT = "the round is void and every chip returned; its record is on stdout"


def cmd_play(args: argparse.Namespace) -> int:
    port = None if args.port == DEFAULT_PORT else args.port
    try:
        raw = Path(args.script).read_bytes()
    except OSError as exc:
        error_message(f"cannot read script {args.script}: {exc.strerror or exc}", HINT, as_json=args.json,
                      code=Exit.USAGE, kind="usage")  # fmt: skip
        return Exit.USAGE
    try:
        # A file that is not JSON (cut short, another format) is bad input, not an illegal round: exit 2.
        data = msgspec.json.decode(raw)  # strict JSON: no NaN/Infinity, no lone surrogate escape
    except (msgspec.DecodeError, RecursionError) as exc:
        error_message(f"{args.script}: not JSON: {exc}", HINT, as_json=args.json, code=Exit.USAGE, kind="usage")
        return Exit.USAGE
    try:
        script = parse_script(data)
    except RuleViolation as exc:
        return _illegal(exc, args.json)
    try:
        record = run_script(script, port=port)
    except RuleViolation as exc:
        return _illegal(exc, args.json)
    except CutShort as exc:
        return _cut_short(exc)
    emit(record, as_json=True, human=str)
    return Exit.MISDEAL if record.get("state") == "misdeal" else Exit.OK


def _illegal(exc: RuleViolation, as_json: bool) -> int:
    error_message(str(exc), HINT, as_json=as_json, code=Exit.RULES, kind="rules")
    return Exit.RULES


def _cut_short(exc: CutShort) -> int:
    """The void record on stdout with the error in it (one JSON document); the error on stderr too."""
    cause = exc.cause
    if isinstance(cause, ShoeError):
        code, kind, hint = exit_code_for(cause), type(cause).__name__, f"{cause.hint}; {CUT_HINT}"
    else:
        code, kind, hint = Exit.RULES, "rules", f"{HINT}; {CUT_HINT}"
    emit({**exc.record, "error": error_dict(str(cause), hint, code=code, kind=kind)}, as_json=True, human=str)
    error_message(str(cause), hint, as_json=False, code=code, kind=kind)
    return code


def add_parsers(sub: Any) -> None:
    p = sub.add_parser(
        "play",
        help="play one scripted round (Mississippi stud or seven-card stud) and print its JSON record",
        description="Run one full round from a JSON script with every card taken from a shoe, and print the "
        "round's record as JSON (the cards are shown: this is a test tool). By default the shoe is the built-in "
        'emulator loaded with exactly the script\'s "shoe" list, top card first; --port names another shoe '
        "(emu://?unreadable_at=3 keeps the script's cards and adds the fault). Exit 9 for an illegal script, "
        "with the problem and its JSON path on stderr; a round cut short (a jam) still prints its void record. "
        "Format: docs/play-scripts.md; examples: examples/*.json.",
    )
    p.add_argument("script", metavar="SCRIPT.json", help="the round's script")
    p.add_argument(
        "--port",
        default=argparse.SUPPRESS,
        help="the shoe's port URL (overrides the global --port; default: the emulator loaded with the script)",
    )
    p.set_defaults(func=cmd_play)
