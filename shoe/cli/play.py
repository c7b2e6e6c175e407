"""``shoectl play SCRIPT.json [--port URL]``: one scripted round, its record printed as JSON.

By default the cards come from the in-process emulator loaded with exactly the script's ``"shoe"``
list; ``--port`` (here or before the command) names another shoe.  The record is always JSON.
An illegal script exits 9 (``Exit.RULES``) with ``shoectl: error: <what and where>`` on stderr and
nothing on stdout; a device fault exits with its usual code.  See docs/play-scripts.md.
"""

from __future__ import annotations

import argparse
from typing import Any

from shoe.cli.exit_codes import Exit
from shoe.cli.output import emit, error_message
from shoe.play import load_script, run_script
from shoe.rules.errors import RuleViolation

__all__ = ["DEFAULT_PORT", "add_parsers", "cmd_play"]

DEFAULT_PORT = "emu://"
"""shoectl's default port: for ``play`` it means the emulator loaded with the script's own cards."""

HINT = "see docs/play-scripts.md for the script format"


def cmd_play(args: argparse.Namespace) -> int:
    port = None if args.port == DEFAULT_PORT else args.port
    try:
        script = load_script(args.script)
    except OSError as exc:
        error_message(f"cannot read script {args.script}: {exc.strerror or exc}", HINT, as_json=False,
                      code=Exit.USAGE, kind="usage")  # fmt: skip
        return Exit.USAGE
    except RuleViolation as exc:
        return _illegal(exc)
    try:
        record = run_script(script, port=port)
    except RuleViolation as exc:
        return _illegal(exc)
    emit(record, as_json=True, human=str)
    return Exit.OK


def _illegal(exc: RuleViolation) -> int:
    error_message(str(exc), HINT, as_json=False, code=Exit.RULES, kind="rules")
    return Exit.RULES


def add_parsers(sub: Any) -> None:
    p = sub.add_parser(
        "play",
        help="play one scripted round (Mississippi stud or seven-card stud) and print its JSON record",
        description="Run one full round from a JSON script with every card taken from a shoe, and print the "
        "round's record as JSON (the cards are shown: this is a test tool). By default the shoe is the built-in "
        'emulator loaded with exactly the script\'s "shoe" list, top card first; --port names another shoe '
        "(emu://?unreadable_at=3 keeps the script's cards and adds the fault). Exit 9 for an illegal script, "
        "with the problem and its JSON path on stderr. Format: docs/play-scripts.md; examples: examples/*.json.",
    )
    p.add_argument("script", metavar="SCRIPT.json", help="the round's script")
    p.add_argument(
        "--port",
        default=argparse.SUPPRESS,
        help="the shoe's port URL (overrides the global --port; default: the emulator loaded with the script)",
    )
    p.set_defaults(func=cmd_play)
