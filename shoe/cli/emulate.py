"""``shoectl emulate``: serve the software shoe on a pseudo-terminal or TCP until stopped.

A separate process (the HIL bench, a technician's second terminal) works the emulated shoe's hardware
through POSIX signals, as a person would work a real one:

- ``SIGUSR1``: pull the cable, then plug it back in ``--replug-after`` seconds later (a new pty; the
  ``--link`` symlink follows it, as the udev rule does for a real shoe);
- ``SIGUSR2``: open the door, or close it if it is open. Closing the door of an empty shoe (stub
  released, or every card dealt) loads a fresh deck, as the dealer does: the ``--deck`` order again, else
  a new shuffle (seeded from ``--seed`` and the reload number when given).

The dealer's load (SPEC §11) goes through ``--control PATH``, a Unix socket (``drivers/emulator/control.py``):
``shoectl load-deck --control PATH [--seed N --back B --short N ...]`` or, from Python,
``drivers.emulator.control.load_deck_at(PATH, DeckLoad(...))``; it answers one JSON line.

Each action is acknowledged on stdout once done: one JSON line with ``--json``
(``{"event": "unplugged"}``, ``{"event": "replugged", "port": ...}``, ``{"event": "door", "open": true}``,
``{"event": "door", "open": false, "loaded": 52}``), else one sentence. Signals that arrive during an
action are handled after it, in order (two of the same kind sent at once may merge into one, as POSIX
signals do: wait for the acknowledgement before sending the next).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import queue
import random
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from drivers.emulator import EmulatedShoe, EmulatorConfig, serve_pty, serve_tcp
from drivers.emulator.control import ControlServer
from protocols.cards import ALL_CODES


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


SIGUSR1, SIGUSR2 = getattr(signal, "SIGUSR1", -1), getattr(signal, "SIGUSR2", -2)  # absent on Windows


def _signals(*names: str) -> set[int]:
    return {getattr(signal, name) for name in names if hasattr(signal, name)}


class Controls:
    """The hardware a person works, for another process: SIGUSR1 unplugs and replugs, SIGUSR2 the door."""

    def __init__(self, shoe: EmulatedShoe, *, replug_after: float, as_json: bool, port: str | None) -> None:
        self.shoe = shoe
        self.replug_after = replug_after
        self.as_json = as_json
        self.port = port
        self._door_open = shoe.config.door_open
        self._reloads = 0
        self._actions: queue.Queue[Callable[[], None]] = queue.Queue()
        self._worker: threading.Thread | None = None

    def handle(self, number: int) -> None:
        """Queue the action of a control signal; one worker thread carries them out in order (an unplug sleeps)."""
        action = {SIGUSR1: self.unplug_replug, SIGUSR2: self.toggle_door}.get(number)
        if action is None:
            return
        if self._worker is None:
            self._worker = threading.Thread(target=self._work, name="emulate-control", daemon=True)
            self._worker.start()
        self._actions.put(action)

    def _work(self) -> None:
        while True:
            self._actions.get()()

    def unplug_replug(self) -> None:
        self.shoe.unplug()
        self._say({"event": "unplugged"}, "unplugged: the cable is out")
        time.sleep(self.replug_after)
        self.shoe.replug()
        self._say({"event": "replugged", "port": self.port}, f"replugged: {self.port or 'the shoe'} is back")

    def toggle_door(self) -> None:
        if not self._door_open:
            self.shoe.open_door()
            self._door_open = True
            self._say({"event": "door", "open": True}, "door opened")
            return
        loaded = self._reload()
        self.shoe.close_door()
        self._door_open = False
        text = f"door closed; a fresh deck of {loaded} cards loaded" if loaded else "door closed"
        self._say({"event": "door", "open": False, "loaded": loaded}, text)

    def _reload(self) -> int:
        """Load a fresh deck if the shoe is empty (stub out or every card dealt); the number loaded, else 0."""
        config = self.shoe.config
        if config.deck is not None:
            deck = list(config.deck)
        else:
            deck = list(ALL_CODES)
            seed = None if config.seed is None else f"{config.seed}-reload-{self._reloads + 1}"
            random.Random(seed).shuffle(deck)
        try:
            self.shoe.load(deck)
        except ValueError:  # the shoe still holds cards, or a dispense is running: nothing to load
            return 0
        self._reloads += 1
        return len(deck)

    def _say(self, record: dict[str, Any], text: str) -> None:
        with contextlib.suppress(OSError, ValueError):  # nobody reads stdout any more: the action still happened
            print(json.dumps(record) if self.as_json else text, flush=True)


def _emulator_key(path: Path) -> bytes:
    """The pairing key in ``path`` (made, mode 0600, when missing)."""
    from drivers.keyfile import create_key, load_key

    return load_key(path) if path.exists() else create_key(path)


def cmd_emulate(args: argparse.Namespace) -> int:
    if not args.pty and not args.tcp:
        raise ValueError("choose where to serve: --pty or --tcp HOST:PORT")
    if args.replug_after < 0:
        raise ValueError(f"--replug-after {args.replug_after}: seconds cannot be negative")
    config = build_config(args)
    stopping, control = _signals("SIGINT", "SIGTERM"), _signals("SIGUSR1", "SIGUSR2")
    # POSIX: block the signals before any thread starts, so that every thread inherits the mask and the main
    # thread takes each one with sigwait. A Python handler runs only on the main thread, and only once it
    # wakes: a signal the kernel hands to another thread could wait for ever.
    synchronous = bool(control) and hasattr(signal, "pthread_sigmask") and hasattr(signal, "sigwait")
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, stopping | control) if synchronous else None
    stop = threading.Event()
    if not synchronous:
        for sig in stopping:
            signal.signal(sig, lambda *_: stop.set())
    servers: list[Any] = []
    shoe: EmulatedShoe | None = None
    try:
        shoe = EmulatedShoe(config)
        if args.key_file:  # the technician's pairing at the shoe (SPEC §13.2): the key shoed reads too
            shoe.pair(_emulator_key(Path(args.key_file)))
        info: dict[str, Any] = {"serial": shoe.config.serial}
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
        if args.control:
            servers.append(ControlServer(shoe, args.control))
            info["control"] = args.control
        controls = Controls(shoe, replug_after=args.replug_after, as_json=args.json, port=info["port"])
        if args.json:
            print(json.dumps(info), flush=True)
        else:
            print(f"emulated shoe {info['serial']} serving; connect with: shoectl --port {info['port']} identify")
            for key in ("pty", "tcp", "control"):
                if key in info:
                    print(f"  {key}: {info[key]}")
            print("stop with Ctrl-C", flush=True)
        sys.stdout.flush()
        if synchronous:
            while (number := signal.sigwait(stopping | control)) not in stopping:
                controls.handle(number)
        else:
            stop.wait()
    finally:
        for server in servers:
            server.close()
        if shoe is not None:
            shoe.close()
        if old_mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
    return 0


def add_parsers(sub: Any) -> None:
    p = sub.add_parser(
        "emulate",
        help="serve the software shoe on a pseudo-terminal (--pty) or TCP (--tcp HOST:PORT)",
        description="Run the software shoe emulator so another process can use it as a real port. "
        "--pty prints a /dev/pts/N path; --tcp serves socket://HOST:PORT. Faults and line impairments are set "
        "with --set KEY=VALUE (seed, deck, unreadable_at, unreadable_rate, jam_at, double_feed_at, misfeed_at, "
        "door_open, corrupt_rate, drop_rate, latency_ms, timing, auto_take, take_delay_s, back, autoload). "
        "--control PATH lets another process load decks (shoectl load-deck --control PATH). "
        "Signals (POSIX), for a test bench in another process: SIGUSR1 pulls the cable and plugs it back in "
        "after --replug-after seconds; SIGUSR2 opens the door, or closes it (closing the door of an empty shoe "
        "loads a fresh deck, as a dealer does). Each is acknowledged on stdout once done (a JSON line with "
        "--json); wait for it before sending the next signal.",
    )
    p.add_argument("--pty", action="store_true", help="serve on a new pseudo-terminal and print its path")
    p.add_argument("--link", metavar="PATH", help="with --pty: keep a stable symlink at PATH (like the udev rule)")
    p.add_argument("--tcp", metavar="HOST:PORT", help="serve on TCP, e.g. 127.0.0.1:7000 (port 0 = any free)")
    p.add_argument(
        "--control",
        metavar="PATH",
        help="serve the dealer's deck loading on a Unix socket at PATH (shoectl load-deck --control PATH)",
    )
    p.add_argument("--key-file", metavar="PATH",
                   help="pair the emulator with the key in PATH (made, mode 0600, if missing): give shoed the same "
                   "[shoe] key_file")  # fmt: skip
    p.add_argument("--seed", type=int, help="seeded shuffle of one 52-card deck")
    p.add_argument("--deck", help="explicit card order, top first, e.g. AsKd7c...")
    p.add_argument("--timing", choices=["instant", "realistic"], help="mechanical timing model (default instant)")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="a fault or impairment option (repeatable)")
    p.add_argument(
        "--replug-after",
        type=float,
        default=0.5,
        metavar="S",
        help="after SIGUSR1 unplugs the shoe, plug it back in this many seconds later (default 0.5)",
    )
    p.set_defaults(func=cmd_emulate, needs_port=False)
