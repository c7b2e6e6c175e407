"""``shoectl system install|files``: the udev rules and the systemd unit this installation ships.

``install [--root DIR] [--only rules|unit] [--dry-run]`` copies them into ``/etc/udev/rules.d`` and
``/etc/systemd/system`` (mode 0644, atomically) and says, per file, whether it was created, updated or
already the same, then the commands that make udev and systemd read what changed; it runs none of them.
``files`` prints where the shipped copies are (for a diff or a manual copy). docs/deploy.md, step 3.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from shoe.cli.exit_codes import Exit
from shoe.cli.output import Refused, emit
from shoe.system import FILES, InstallError, install, missing_program, next_steps, shipped_file

EPILOG = """\
exit codes: 0 installed (or nothing to change)   2 usage (a root that is not a directory, a directory in a
  file's place, no permission: run it as root)   1 a bug (traceback printed)
"""


def _human(data: dict[str, Any]) -> str:
    width = max(len(c["action"]) for c in data["changes"])
    verb = "would be " if data["dry_run"] else ""
    lines = [f"{verb}{c['action']:<{width}}  {data['root'].rstrip('/')}{c['path']}" for c in data["changes"]]
    if data["next"]:
        lines.append("next: " + " && ".join(data["next"]))
    lines += [f"note: {n}" for n in data["notes"]]
    return "\n".join(lines)


def cmd_install(args: argparse.Namespace) -> int:
    root = Path(args.root).expanduser()
    names = [args.only] if args.only else None
    try:
        changes = install(root, names, dry_run=args.dry_run)
    except InstallError as exc:
        raise Refused(str(exc), "give an existing --root, or remove what is in the file's place", Exit.USAGE) from None
    except PermissionError as exc:
        raise Refused(str(exc), "run it as root: sudo shoectl system install", Exit.USAGE) from None
    note = missing_program(root, changes)
    data = {
        "root": str(root),
        "dry_run": args.dry_run,
        "changes": [c.as_dict() for c in changes],
        # Commands for the running system; under another root there is none to tell.
        "next": next_steps(changes) if root.resolve() == Path("/") and not args.dry_run else [],
        "notes": [note] if note else [],
    }
    emit(data, as_json=args.json, human=_human)
    return int(Exit.OK)


def cmd_files(args: argparse.Namespace) -> int:
    data = {
        "files": {
            name: {"shipped": str(shipped_file(name)), "target": "/" + str(target)}
            for name, (_, target) in FILES.items()
        }
    }
    emit(
        data,
        as_json=args.json,
        human=lambda d: "\n".join(f"{n:<5}  {f['shipped']}  ->  {f['target']}" for n, f in d["files"].items()),
    )
    return int(Exit.OK)


def add_parsers(sub: Any) -> None:
    p = sub.add_parser(
        "system",
        help="install the shipped udev rules and systemd unit (system install), or show where they are",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = p.add_subparsers(dest="system_command", metavar="ACTION", required=True)
    i = actions.add_parser(
        "install",
        help="copy the udev rules and the unit into /etc; says what it changed",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    i.add_argument("--root", metavar="DIR", default="/", help="install under DIR instead of / (an image, a test)")
    i.add_argument("--only", choices=sorted(FILES), help="one file: rules (udev) or unit (systemd)")
    i.add_argument("--dry-run", action="store_true", help="say what would change, change nothing")
    i.set_defaults(func=cmd_install, needs_port=False)
    f = actions.add_parser("files", help="where the shipped rules and unit are in this installation")
    f.set_defaults(func=cmd_files, needs_port=False)
