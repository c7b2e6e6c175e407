"""``shoectl emulate``: serve the software shoe on a pseudo-terminal or TCP until stopped."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from typing import Any
from urllib.parse import urlencode

from drivers.emulator import EmulatedShoe, EmulatorConfig, serve_pty, serve_tcp


def build_config(args: argparse.Namespace) -> EmulatorConfig:
    pairs: list[tuple[str, str]] = []
    if args.seed is not None:
        pairs.append(("seed", str(args.seed)))
    if args.deck:
        pairs.append(("deck", args.deck))
    if args.timing:
        pairs.append(("timing", args.timing))
    for item in args.set or []:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"--set {item!r}: write KEY=VALUE, e.g. --set jam_at=5")
        pairs.append((key, value))
    return EmulatorConfig.from_query(urlencode(pairs))


def cmd_emulate(args: argparse.Namespace) -> int:
    if not args.pty and not args.tcp:
        raise ValueError("choose where to serve: --pty or --tcp HOST:PORT")
    shoe = EmulatedShoe(build_config(args))
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    servers: list[Any] = []
    info: dict[str, Any] = {"serial": shoe.config.serial}
    try:
        if args.pty:
            pty = serve_pty(shoe, link=args.link)
            servers.append(pty)
            info["pty"] = pty.path
            info["port"] = args.link or pty.path
        if args.tcp:
            host, _, port = args.tcp.rpartition(":")
            tcp = serve_tcp(shoe, host or "127.0.0.1", int(port))
            servers.append(tcp)
            info["tcp"] = f"socket://{tcp.address[0]}:{tcp.address[1]}"
            info.setdefault("port", info["tcp"])
        if args.json:
            print(json.dumps(info), flush=True)
        else:
            print(f"emulated shoe {info['serial']} serving; connect with: shoectl --port {info['port']} identify")
            for key in ("pty", "tcp"):
                if key in info:
                    print(f"  {key}: {info[key]}")
            print("stop with Ctrl-C", flush=True)
        sys.stdout.flush()
        stop.wait()
    finally:
        for server in servers:
            server.close()
        shoe.close()
    return 0


def add_parsers(sub: Any) -> None:
    p = sub.add_parser(
        "emulate",
        help="serve the software shoe on a pseudo-terminal (--pty) or TCP (--tcp HOST:PORT)",
        description="Run the software shoe emulator so another process can use it as a real port. "
        "--pty prints a /dev/pts/N path; --tcp serves socket://HOST:PORT. Faults and line impairments are set "
        "with --set KEY=VALUE (seed, deck, unreadable_at, unreadable_rate, jam_at, double_feed_at, misfeed_at, "
        "door_open, corrupt_rate, drop_rate, latency_ms, timing, auto_take, take_delay_s).",
    )
    p.add_argument("--pty", action="store_true", help="serve on a new pseudo-terminal and print its path")
    p.add_argument("--link", metavar="PATH", help="with --pty: keep a stable symlink at PATH (like the udev rule)")
    p.add_argument("--tcp", metavar="HOST:PORT", help="serve on TCP, e.g. 127.0.0.1:7000 (port 0 = any free)")
    p.add_argument("--seed", type=int, help="seeded shuffle of one 52-card deck")
    p.add_argument("--deck", help="explicit card order, top first, e.g. AsKd7c...")
    p.add_argument("--timing", choices=["instant", "realistic"], help="mechanical timing model (default instant)")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="a fault or impairment option (repeatable)")
    p.set_defaults(func=cmd_emulate, needs_port=False)
