"""``shoectl``: the technician's command line for the card shoe.

Device and input faults end with a short message, a hint and a documented exit code; only a bug
prints a traceback.

Commands are imported only when they run. :data:`COMMANDS` maps each subcommand to the module of
``shoe.cli`` that defines it (its ``add_parsers(sub)`` adds that command, and the module's other
commands, with their options) and to its one-line help for ``shoectl --help``. ``shoectl --help``
and a usage error import none of them; ``shoectl status`` imports ``shoe.cli.shoe_commands`` alone.
To add a command: add its module's ``add_parsers`` and one row here, in the order ``--help`` lists
it; ``tests/cli/test_cli_imports.py`` checks that the rows and the modules agree (name, help).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import traceback
from collections.abc import Sequence
from typing import NoReturn

from shoe.cli.exit_codes import EPILOG, Exit
from shoe.cli.output import Refused, error_dict, error_message

COMMANDS: dict[str, tuple[str, str]] = {
    "devices": ("devices", "list candidate shoes on serial ports and USB, with their port URLs"),
    "identify": ("shoe_commands", "model, serial number, firmware, protocol version, capabilities"),
    "status": ("shoe_commands", "state, faults with their fixes, cards remaining, last dispense id"),
    "counters": ("shoe_commands", "lifetime counters: cards, stacks, jams, misreads, power cycles"),
    "selftest": ("shoe_commands", "run the shoe's self test (exit 8 if a component fails)"),
    "dispense": ("shoe_commands", "test dispense outside a live round"),
    "scan": (
        "shoe_commands",
        "read one card the dealer passes across the reader (needs a released stub: shoectl release-stub)",
    ),
    "events": ("shoe_commands", "the shoe's event log, or --follow to watch events live"),
    "clear-fault": ("shoe_commands", "clear a fault after fixing its cause (all clearable if none named)"),
    "reset": ("shoe_commands", "reboot the shoe's controller and resynchronise"),
    "deck-check": ("deck", "count and identify the loaded cards (exit 8 if not one whole deck of the expected back)"),
    "release-stub": ("deck", "present the cards left in the shoe (outside a live round), e.g. before shoectl scan"),
    "load-deck": ("deck", "the dealer loads a shuffled deck into an emulator (--control PATH, or emu://)"),
    "pair": ("pair", "pair the shoe with this table: a new key, rotated or set (stop shoed first)"),
    "emulate": ("emulate", "serve the software shoe on a pseudo-terminal (--pty) or TCP (--tcp HOST:PORT)"),
    "play": ("play", "play one scripted round (Mississippi stud or seven-card stud) and print its JSON record"),
    "journal": ("journal", "verify, show and export the table service's journal"),
    "doctor": ("doctor", "check udev rules, group, device permissions, ModemManager, latency, journal and service"),
    "math": ("math", "PAR sheet: exact house edge, average wager, variance and optimal strategy of a paytable"),
    "report": ("report", "theoretical against actual hold, and each seat's decision quality, from the journal"),
    "floor": ("floor", "the casino floor's central copy of every journal (PostgreSQL)"),
    "release": ("release", "make a release key pair, write (and sign) a release manifest"),
    "verify": ("verify", "the installed program against its signed manifest; the seeded digest; --shoe"),
    "users": ("users", "manage the employees of a running shoed (over its HTTP API)"),
    "system": ("system", "install the shipped udev rules and systemd unit (system install), or show where they are"),
}
"""subcommand -> (module under ``shoe.cli`` defining it, its help line in ``shoectl --help``)."""


class _Parser(argparse.ArgumentParser):
    """argparse, whose usage errors under ``--json`` are also the one ``{"error": ...}`` document."""

    json_errors = False

    def error(self, message: str) -> NoReturn:
        if _Parser.json_errors:
            hint = f"see {self.prog} --help"
            sys.stdout.write(json.dumps({"error": error_dict(message, hint, code=Exit.USAGE, kind="usage")}) + "\n")
            sys.stdout.flush()
        super().error(message)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser with ``command``'s module loaded (every module when ``"*"``); the others are placeholders
    (their name and help line, no options), enough for ``--help`` and to find which command was asked for."""
    parser = _Parser(
        prog="shoectl",
        description="Diagnose and exercise an automated card dealing shoe. Every command works on the built-in "
        "emulator (the default port) exactly as on hardware.",
        epilog=EPILOG + "\nports: /dev/ttyUSB0, serial:///dev/ttyACM0?baud=115200, socket://127.0.0.1:7000, "
        "usb://1209:0001[/SERIAL], emu://?seed=7 (see docs/shoectl.md)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--port", default="emu://", help="the shoe's port URL (default emu://, the emulator)")
    parser.add_argument("--json", action="store_true", help="machine-readable JSON output")
    parser.add_argument("--log-level", default="warning", help="operational log level on stderr (default warning)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    wanted = {module for module, _ in COMMANDS.values()} if command == "*" else {COMMANDS.get(command or "", ("",))[0]}
    loaded: set[str] = set()
    for name, (module, help_line) in COMMANDS.items():
        if module in wanted:
            if module not in loaded:
                importlib.import_module(f"shoe.cli.{module}").add_parsers(sub)
                loaded.add(module)
        else:
            sub.add_parser(name, help=help_line, add_help=False)
    _json_after_any_command(parser)
    return parser


def _json_after_any_command(parser: argparse.ArgumentParser) -> None:
    """``--json`` is accepted after every (sub)command too, as before it: ``shoectl dispense --json``.

    Its default is suppressed below the top level, so the top level's ``--json`` is not reset by a
    subcommand that was given without it.
    """
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                if "--json" not in child._option_string_actions:
                    child.add_argument(
                        "--json", action="store_true", default=argparse.SUPPRESS, help="machine-readable JSON output"
                    )
                _json_after_any_command(child)


def _shown(message: str, args: argparse.Namespace) -> str:
    """An error about the shoe's port without its credentials or card-predicting options (docs/service.md)."""
    port = getattr(args, "port", None)
    if not isinstance(port, str) or not port:
        return message
    from shoe.service.config.redact import scrub

    return scrub(message, port)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    _Parser.json_errors = "--json" in argv
    # First pass with placeholders only: --help and usage errors end here; otherwise it names the command.
    first, _ = build_parser().parse_known_args(argv)
    args = build_parser(first.command).parse_args(argv)
    from drivers.errors import ShoeError
    from shoe import logsetup
    from shoe.cli.exit_codes import exit_code_for

    logsetup.configure(args.log_level)
    try:
        return int(args.func(args))
    except Refused as exc:  # a command's own refusal: its message, hint and exit code
        error_message(str(exc), exc.hint, as_json=args.json, code=exc.code, kind=args.command)
        return exc.code
    except ShoeError as exc:
        code = exit_code_for(exc)
        error_message(_shown(str(exc), args), exc.hint, as_json=args.json, code=code, kind=type(exc).__name__)
        return code
    except ValueError as exc:  # bad option values found after parsing (emulator options, ...)
        message = _shown(str(exc), args)
        error_message(message, "see shoectl COMMAND --help", as_json=args.json, code=Exit.USAGE, kind="usage")
        return Exit.USAGE
    except KeyboardInterrupt:
        if args.json:
            sys.stdout.write(json.dumps({"error": error_dict("interrupted", "", code=130, kind="interrupted")}) + "\n")
        return 130
    except Exception as exc:
        traceback.print_exc()
        sys.stderr.write("shoectl: this is a bug; please report it with the traceback above\n")
        if args.json:
            hint = "report it with the traceback printed on stderr"
            sys.stdout.write(json.dumps({"error": error_dict(repr(exc), hint, code=Exit.BUG, kind="bug")}) + "\n")
        return Exit.BUG


if __name__ == "__main__":
    sys.exit(main())
