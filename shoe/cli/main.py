"""``shoectl``: the technician's command line for the card shoe.

Device and input faults end with a short message, a hint and a documented exit code; only a bug
prints a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from collections.abc import Sequence
from typing import NoReturn

from drivers.errors import ShoeError
from shoe import logsetup
from shoe.cli import deck, devices, doctor, emulate, journal, math, play, report, shoe_commands, users
from shoe.cli.exit_codes import EPILOG, Exit, exit_code_for
from shoe.cli.output import Refused, error_dict, error_message

COMMAND_MODULES = [devices, shoe_commands, deck, emulate, play, journal, doctor, math, report, users]


class _Parser(argparse.ArgumentParser):
    """argparse, whose usage errors under ``--json`` are also the one ``{"error": ...}`` document."""

    json_errors = False

    def error(self, message: str) -> NoReturn:
        if _Parser.json_errors:
            hint = f"see {self.prog} --help"
            sys.stdout.write(json.dumps({"error": error_dict(message, hint, code=Exit.USAGE, kind="usage")}) + "\n")
            sys.stdout.flush()
        super().error(message)


def build_parser() -> argparse.ArgumentParser:
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
    for module in COMMAND_MODULES:
        module.add_parsers(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    _Parser.json_errors = "--json" in argv
    parser = build_parser()
    args = parser.parse_args(argv)
    logsetup.configure(args.log_level)
    try:
        return int(args.func(args))
    except Refused as exc:  # a command's own refusal: its message, hint and exit code
        error_message(str(exc), exc.hint, as_json=args.json, code=exc.code, kind=args.command)
        return exc.code
    except ShoeError as exc:
        code = exit_code_for(exc)
        error_message(str(exc), exc.hint, as_json=args.json, code=code, kind=type(exc).__name__)
        return code
    except ValueError as exc:  # bad option values found after parsing (emulator options, ...)
        error_message(str(exc), "see shoectl COMMAND --help", as_json=args.json, code=Exit.USAGE, kind="usage")
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
