"""The emulator host of the end-to-end crash loop, run as a module:
``python -m tests.e2e.emulator_host --link TMP/shoe0 --deck ...`` (started by ``tests.e2e.support.EmuHost``)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any


def host_main(argv: Sequence[str] | None = None, stdin: IO[str] | None = None) -> int:
    """Serve an emulated shoe on a pseudo-terminal; one JSON command a line on stdin, one reply each.

    ``{"load": [codes]}`` loads a new deck into the emptied shoe; ``{"stats": true}`` answers the
    emulator's statistics (``cards_moved``, ``dispenses_started``). EOF or SIGTERM stops it.
    """
    from drivers.emulator import EmulatedShoe, EmulatorConfig, serve_pty
    from drivers.emulator.config import parse_deck
    from shoe import logsetup

    parser = argparse.ArgumentParser(prog="python -m tests.e2e.emulator_host")
    parser.add_argument("--link", required=True)
    parser.add_argument("--deck", required=True, type=parse_deck)
    parser.add_argument("--key-file", help="pair the emulator with this key file (SPEC §13)")
    args = parser.parse_args(argv)
    logsetup.configure("warning")  # to stderr: stdout carries the replies
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    shoe = EmulatedShoe(EmulatorConfig(deck=args.deck))
    if args.key_file:
        from drivers.keyfile import load_key

        shoe.pair(load_key(Path(args.key_file)))
    server = serve_pty(shoe, link=args.link)
    try:
        print(json.dumps({"pty": server.path, "port": args.link, "serial": shoe.config.serial}), flush=True)
        for line in stdin or sys.stdin:
            cmd = json.loads(line)
            reply: dict[str, Any]
            try:
                if "load" in cmd:
                    shoe.load(cmd["load"])
                    reply = {"ok": True}
                elif "smudge" in cmd:  # cards (1-based, of the loaded deck) become unreadable, after its check
                    with shoe._cond:
                        mech = shoe._mech
                        for i, card in enumerate(mech.deck):
                            if card.number in cmd["smudge"]:
                                mech.deck[i] = dataclasses.replace(card, unreadable=True)
                    reply = {"ok": True}
                else:
                    stats = shoe.stats
                    reply = {"cards_moved": stats.cards_moved, "dispenses_started": stats.dispenses_started}
            except ValueError as exc:
                reply = {"error": str(exc)}
            print(json.dumps(reply), flush=True)
    finally:
        server.close()
        shoe.close()
    return 0


if __name__ == "__main__":
    sys.exit(host_main())
