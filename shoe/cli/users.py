"""``shoectl users``: the employees of a running shoed, over its HTTP API (docs/people.md).

``add ID --name NAME --roles dealer[,floorperson...] [--badge B]`` (the PIN is read from stdin or asked
for, never taken on the command line, where ``ps`` would show it), ``list``, ``disable ID``, ``enable
ID``, ``remove ID``, ``reset-pin ID``, ``tokens ID`` (list), ``tokens ID --issue LABEL`` (the token is
printed once), ``tokens --revoke TOKEN_ID``. Every call needs the credential of someone who may make
the change (docs/people.md, "Separation of duties"): ``--token`` or ``$SHOED_TOKEN`` (an employee's
token, a session, or the configuration's technician token).
Standard library only (http.client): the parser imports nothing heavy.
"""

from __future__ import annotations

import argparse
import getpass
import http.client
import json
import os
import sys
from typing import Any

from shoe.cli.exit_codes import Exit
from shoe.cli.output import Refused, emit

__all__ = ["add_parsers"]

TIMEOUT_S = 30.0


def add_parsers(sub: Any) -> None:
    p = sub.add_parser(
        "users",
        help="manage the employees of a running shoed (over its HTTP API)",
        description=(__doc__ or "").replace("``", ""),  # the docstring in plain text, no reST markup
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--http",
        default=os.environ.get("SHOED_HTTP", "127.0.0.1:8470"),
        metavar="HOST:PORT",
        help="shoed's API (default $SHOED_HTTP or 127.0.0.1:8470)",
    )
    p.add_argument("--token", default=None, help="the token of someone who may make the change (default $SHOED_TOKEN)")
    users = p.add_subparsers(dest="users_command", metavar="ACTION", required=True)
    add = users.add_parser("add", help="add an employee (a PIN with a badge: read from stdin, or asked for)")
    add.add_argument("id")
    add.add_argument("--name", required=True)
    add.add_argument("--roles", required=True, help="comma-separated: dealer, floorperson, technician, ...")
    add.add_argument("--badge", default=None, help="the badge number (then a PIN is read); none: a service account")
    users.add_parser("list", help="list the employees")
    for name, text in (
        ("disable", "disable (sessions end, tokens stop)"),
        ("enable", "enable again"),
        ("remove", "remove (the journal keeps their history)"),
        ("reset-pin", "set a new PIN (read from stdin, or asked for); lifts a lockout"),
    ):
        users.add_parser(name, help=text).add_argument("id")
    tokens = users.add_parser("tokens", help="an employee's API tokens: list, --issue LABEL, --revoke TOKEN_ID")
    tokens.add_argument("id", nargs="?")
    tokens.add_argument("--issue", metavar="LABEL", default=None)
    tokens.add_argument("--revoke", metavar="TOKEN_ID", default=None)
    p.set_defaults(func=cmd_users)


def _pin(prompt: str) -> str:
    if not sys.stdin.isatty():
        return sys.stdin.readline().strip()
    return getpass.getpass(prompt)


def _call(args: argparse.Namespace, method: str, path: str, body: object = None) -> Any:
    host, _, port = str(args.http).rpartition(":")
    if not host or not port.isdigit():
        raise Refused(f"--http {args.http!r} is not HOST:PORT", "use e.g. --http 127.0.0.1:8470", Exit.USAGE)
    token = args.token or os.environ.get("SHOED_TOKEN")
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    conn = http.client.HTTPConnection(host.strip("[]"), int(port), timeout=TIMEOUT_S)
    try:
        conn.request(
            method,
            path,
            body=json.dumps(body if body is not None else {}) if method == "POST" else None,
            headers=headers,
        )
        response = conn.getresponse()
        status, raw = response.status, response.read()
    except OSError as exc:
        raise Refused(
            f"shoed at {args.http} cannot be reached: {exc}", "is shoed running? check --http", Exit.UNAVAILABLE
        ) from None
    finally:
        conn.close()
    try:
        doc = json.loads(raw)
    except ValueError:
        doc = {}
    if status >= 400:
        error = doc.get("error", {}) if isinstance(doc, dict) else {}
        hint = error.get("hint") or (
            "give the token of someone who may make this change (docs/people.md, Separation of duties): "
            "--token or $SHOED_TOKEN"
            if status in (401, 403)
            else ""
        )
        code = Exit.UNAVAILABLE if status >= 500 else Exit.USAGE
        raise Refused(f"{error.get('code', status)}: {error.get('message', 'refused')}", hint, code)
    return doc


def _human_employee(e: dict[str, Any]) -> str:
    state = "enabled" if e["enabled"] else "disabled"
    locked = ", LOCKED" if e.get("locked") else ""
    badge = f"badge {e['badge']}" if e.get("badge") else "service account"
    return f"{e['id']:<12} {e['name']:<24} {','.join(e['roles']):<24} {badge}, {state}{locked}"


def cmd_users(args: argparse.Namespace) -> int:
    action = args.users_command
    if action == "add":
        body: dict[str, Any] = {"id": args.id, "name": args.name, "roles": [r.strip() for r in args.roles.split(",")]}
        if args.badge is not None:
            body.update(badge=args.badge, pin=_pin(f"PIN for {args.id}: "))
        data = _call(args, "POST", "/v1/people", body)
        emit(data, as_json=args.json, human=lambda d: "added " + _human_employee(d["employee"]))
    elif action == "list":
        data = _call(args, "GET", "/v1/people")
        emit(
            data,
            as_json=args.json,
            human=lambda d: "\n".join(_human_employee(e) for e in d["employees"]) or "no employees",
        )
    elif action in ("disable", "enable", "remove"):
        data = _call(args, "POST", f"/v1/people/{action}", {"id": args.id})
        done = {"disable": "disabled", "enable": "enabled", "remove": "removed"}[action]
        emit(data, as_json=args.json, human=lambda d: f"{done} {args.id}")
    elif action == "reset-pin":
        data = _call(args, "POST", "/v1/people/reset-pin", {"id": args.id, "pin": _pin(f"new PIN for {args.id}: ")})
        emit(data, as_json=args.json, human=lambda d: f"new PIN set for {args.id} (unlocked)")
    else:
        return _tokens(args)
    return Exit.OK


def _tokens(args: argparse.Namespace) -> int:
    if args.revoke is not None:
        data = _call(args, "POST", "/v1/people/tokens/revoke", {"token_id": args.revoke})
        emit(data, as_json=args.json, human=lambda d: f"revoked {d['revoked']}")
        return Exit.OK
    if args.id is None:
        raise Refused("tokens needs an employee id (or --revoke TOKEN_ID)", "shoectl users tokens ID", Exit.USAGE)
    if args.issue is not None:
        data = _call(args, "POST", "/v1/people/tokens", {"id": args.id, "label": args.issue})
        emit(data, as_json=args.json, human=lambda d: f"{d['token_id']}: {d['token']}\n(shown this once: store it now)")
        return Exit.OK
    data = _call(args, "GET", f"/v1/people/tokens?id={args.id}")
    emit(
        data,
        as_json=args.json,
        human=lambda d: (
            "\n".join(f"{t['token_id']}  {t['label']}{'  (revoked)' if t['revoked'] else ''}" for t in d["tokens"])
            or "no tokens"
        ),
    )
    return Exit.OK
