"""``shoectl doctor``: check this machine's set-up for a card shoe and print the fix for each failed check.

Checks (in order): the udev rules installed and equal to the shipped ones; the ``cardshoe`` group and
the current user's membership; ``/dev/cardshoe*`` mode 0660 group cardshoe; ModemManager kept off the
shoe; the FTDI latency timer; the journal's permissions; ``shoed`` answering ``GET /v1/status``.
A facility this machine does not have (udev, USB, ``/proc``) makes its check *skipped*, not failed.

Exit codes: 0 when no check failed (skipped ones included), ``DOCTOR_FAILED`` (11) when one or more
failed, 2 for a bad option. See docs/shoectl.md.
"""

from __future__ import annotations

import argparse
import os
import urllib.parse
from pathlib import Path
from typing import Any

from shoe.cli.exit_codes import Exit
from shoe.cli.output import emit
from shoe.doctor import DEFAULT_RULES_DIR, DEFAULT_SERVICE_URL, Context, Status, run_checks

DOCTOR_FAILED = int(Exit.DOCTOR_FAILED)
"""At least one check failed; each failed check printed the command that fixes it."""

DESCRIPTION = """\
Checks, in order: the udev rules installed and equal to the shipped ones; the cardshoe group and your
membership; /dev/cardshoe* mode 0660 group cardshoe; ModemManager kept off the shoe; the FTDI latency
timer; the journal's permissions; shoed answering GET /v1/status. A facility this machine lacks (udev,
USB, /proc) makes its check "skipped", not failed. Each failed check prints the command that fixes it.
"""

EPILOG = f"""\
exit codes: 0 every check passed or was skipped (the facility is absent here)
  {DOCTOR_FAILED} one or more checks failed: each printed its fix   2 usage   1 a bug (traceback printed)
"""


HTTP_ENV = "SHOED_HTTP"


def default_service_url(environ: dict[str, str] | None = None) -> str:
    """``http://$SHOED_HTTP`` when it is set (HOST:PORT, the variable ``shoed`` listens on and ``shoectl users``
    reads), else shoed's own default: every tool finds the service the way the README says to move it."""
    where = (os.environ if environ is None else environ).get(HTTP_ENV, "").strip()
    return f"http://{where}" if where else DEFAULT_SERVICE_URL


def context_from(args: argparse.Namespace) -> Context:
    if args.service is None:
        args.service = default_service_url()
    scheme = urllib.parse.urlsplit(args.service).scheme
    if scheme not in ("http", "https"):
        raise ValueError(f"--service {args.service!r} is not an http:// URL")
    roots: dict[str, Any] = {
        name: Path(value)
        for name in ("sysfs_root", "dev_root", "proc_root", "group_file")
        if (value := getattr(args, name))
    }
    if args.journal:
        roots["journal"] = Path(args.journal).expanduser()
    return Context(rules_dir=Path(args.rules_dir), service_url=args.service, **roots)


def human(data: dict[str, Any]) -> str:
    width = max((len(c["name"]) for c in data["checks"]), default=0)
    lines = []
    for c in data["checks"]:
        lines.append(
            f"{c['status'].upper() if c['status'] == 'failed' else c['status']:<8} {c['name']:<{width}}  {c['detail']}"
        )
        if c["fix"]:
            lines.append(f"{'':<8} {'':<{width}}  fix: {c['fix']}")
    counts = data["counts"]
    lines.append(f"{counts['ok']} ok, {counts['failed']} failed, {counts['skipped']} skipped")
    return "\n".join(lines)


def cmd_doctor(args: argparse.Namespace) -> int:
    results = run_checks(context_from(args))
    counts = {s.value: sum(r.status is s for r in results) for s in Status}
    data = {"ok": counts["failed"] == 0, "counts": counts, "checks": [r.as_dict() for r in results]}
    emit(data, as_json=args.json, human=human)
    return int(Exit.OK) if data["ok"] else DOCTOR_FAILED


def add_parsers(sub: Any) -> None:
    p = sub.add_parser(
        "doctor",
        help="check udev rules, group, device permissions, ModemManager, latency, journal and service",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--journal", metavar="PATH", help="the journal file (default: $SHOED_JOURNAL or the XDG path)")
    p.add_argument(
        "--service",
        metavar="URL",
        default=None,
        help=f"shoed's API (default http://$SHOED_HTTP, else {DEFAULT_SERVICE_URL})",
    )
    p.add_argument(
        "--rules-dir",
        metavar="DIR",
        default=str(DEFAULT_RULES_DIR),
        help=f"installed udev rules (default {DEFAULT_RULES_DIR})",
    )
    p.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="machine-readable output")
    # Other roots, for a chroot or a test's fake tree.
    for option in ("--sysfs-root", "--dev-root", "--proc-root", "--group-file"):
        p.add_argument(option, metavar="PATH", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_doctor, needs_port=False)
