"""``shoectl`` commands that talk to a shoe: identify, status, selftest, dispense, scan, counters, events,
clear-fault, reset (the deck cycle's commands are in ``shoe/cli/deck.py``). Each opens the port named by
``--port``, does one job and closes it."""

from __future__ import annotations

import argparse
import contextlib
import threading
from typing import Any

from drivers.client import ShoeClient
from drivers.errors import ShoeError
from drivers.keyfile import key_from_env
from drivers.notices import Notice
from protocols import messages as m
from protocols.codes import FaultCode
from shoe.cli import render
from shoe.cli.exit_codes import exit_code_for
from shoe.cli.output import emit, emit_line, error_message, key_values


def _open(args: argparse.Namespace) -> ShoeClient:
    return ShoeClient.open(args.port, key=key_from_env())


def cmd_identify(args: argparse.Namespace) -> int:
    with _open(args) as client:
        assert client.identity is not None
        data = render.identity(client.identity)
    emit(data, as_json=args.json, human=lambda d: key_values({**d, "capabilities": ", ".join(d["capabilities"])}))
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    with _open(args) as client:
        data = render.status(client.status())
    emit(data, as_json=args.json, human=render.status_text)
    return 0


def cmd_counters(args: argparse.Namespace) -> int:
    with _open(args) as client:
        data = render.counters(client.counters())
    emit(data, as_json=args.json, human=key_values)
    return 0


def cmd_selftest(args: argparse.Namespace) -> int:
    with _open(args) as client:
        data = render.self_test(client.self_test())
    emit(
        data,
        as_json=args.json,
        human=lambda d: key_values(d["components"]) + f"\nresult  {'PASSED' if d['passed'] else 'FAILED'}",
    )
    return 0 if data["passed"] else 8


def cmd_dispense(args: argparse.Namespace) -> int:
    if args.stacks < 1:
        raise ValueError(f"--stacks {args.stacks}: dispense at least 1 stack")
    stacks: list[dict[str, Any]] = []
    try:
        with _open(args) as client:
            for _ in range(args.stacks):
                stacks.append(render.stack(client.dispense(args.size)))
    except ShoeError as exc:  # every stack dealt before the error is printed, then the error
        if args.json:
            code = exit_code_for(exc)
            error = {"kind": type(exc).__name__, "message": str(exc), "hint": exc.hint, "exit": int(code)}
            emit({"stacks": stacks, "error": error}, as_json=True, human=str)
            error_message(str(exc), exc.hint, as_json=False, code=code, kind=type(exc).__name__)
            return code
        if stacks:
            emit({"stacks": stacks}, as_json=False, human=_stacks_text)
        raise
    emit({"stacks": stacks}, as_json=args.json, human=_stacks_text)
    return 0


def _stacks_text(d: dict[str, Any]) -> str:
    return "\n".join(
        f"stack {s['dispense_id']}: "
        + " ".join(c or "??" for c in s["cards"])
        + (f"  (unreadable at {s['unreadable_positions']})" if s["unreadable_positions"] else "")
        for s in d["stacks"]
    )


def cmd_scan(args: argparse.Namespace) -> int:
    with _open(args) as client:
        read = client.scan(args.timeout)
    emit(render.read_dict(read), as_json=args.json, human=lambda d: f"scanned: {render.read_text(read)}")
    return 0 if read.card is not None else 8


def cmd_clear_fault(args: argparse.Namespace) -> int:
    code = FaultCode[args.fault.upper().replace("-", "_")] if args.fault else None
    with _open(args) as client:
        client.clear_fault(code)
        data = render.status(client.status())
    emit(data, as_json=args.json, human=render.status_text)
    return 0


def cmd_reset(args: argparse.Namespace) -> int:
    with _open(args) as client:
        client.reset()
        data = render.status(client.status())
    emit(data, as_json=args.json, human=render.status_text)
    return 0


def cmd_events(args: argparse.Namespace) -> int:
    with _open(args) as client:
        if not args.follow:
            _boot, events, _more = client.event_log(args.first, args.max)
            if not events:
                emit_line(
                    {"events": 0}, as_json=args.json, text=f"no events in the shoe's log from event {args.first} on"
                )
            for event in events:
                data = render.event(event)
                emit_line(data, as_json=args.json, text=render.event_text(data))
            return 0
        stop = threading.Event()

        def show(item: m.Event | Notice) -> None:
            data = render.event(item)
            emit_line(data, as_json=args.json, text=render.event_text(data))

        client.subscribe(show)
        with contextlib.suppress(KeyboardInterrupt):
            stop.wait(args.duration if args.duration else None)
    return 0


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("identify", help="model, serial number, firmware, protocol version, capabilities")
    p.set_defaults(func=cmd_identify)
    p = sub.add_parser("status", help="state, faults with their fixes, cards remaining, last dispense id")
    p.set_defaults(func=cmd_status)
    p = sub.add_parser("counters", help="lifetime counters: cards, stacks, jams, misreads, power cycles")
    p.set_defaults(func=cmd_counters)
    p = sub.add_parser("selftest", help="run the shoe's self test (exit 8 if a component fails)")
    p.set_defaults(func=cmd_selftest)
    p = sub.add_parser(
        "dispense",
        help="test dispense outside a live round",
        description="Dispense test stacks and print their cards. Never use during a live round: the cards "
        "leave the shoe. Mississippi stud stacks are 2 cards, seven-card stud 1.",
    )
    p.add_argument("--stacks", type=int, default=1, metavar="N", help="how many stacks (default 1)")
    p.add_argument("--size", type=int, default=2, choices=range(1, 5), metavar="K", help="cards per stack, 1-4")
    p.set_defaults(func=cmd_dispense)
    p = sub.add_parser(
        "scan",
        help="read one card the dealer passes across the reader (needs a released stub: shoectl release-stub)",
        description="Read one card of the released stub as the dealer passes it across the reader. SCAN needs "
        "the stub released first (shoectl release-stub, outside a live round); otherwise the shoe refuses it.",
    )
    p.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for the card (default 30)")
    p.set_defaults(func=cmd_scan)
    p = sub.add_parser("events", help="the shoe's event log, or --follow to watch events live")
    p.add_argument("--follow", "-f", action="store_true", help="print events as they happen until Ctrl-C")
    p.add_argument("--duration", type=float, default=0, help=argparse.SUPPRESS)
    p.add_argument("--first", type=int, default=1, help="first event number to read back (default 1)")
    p.add_argument("--max", type=int, default=64, help="how many events to read back (default 64)")
    p.set_defaults(func=cmd_events)
    p = sub.add_parser("clear-fault", help="clear a fault after fixing its cause (all clearable if none named)")
    p.add_argument("fault", nargs="?", choices=[f.name.lower().replace("_", "-") for f in FaultCode])
    p.set_defaults(func=cmd_clear_fault)
    p = sub.add_parser("reset", help="reboot the shoe's controller and resynchronise")
    p.set_defaults(func=cmd_reset)
