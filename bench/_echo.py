#!/usr/bin/env python3
"""The reference peer of ``bench/goals.py``'s dispense rows: a pty that answers each frame with fixed bytes.

Run as ``bench/_echo.py HEX[,HEX...]``: it opens a pty pair (the slave in raw mode, as the emulator's),
prints the slave's path on one line, then answers the i-th ``0x00``-terminated frame it reads on the
master with the i-th ``HEX`` (cyclically: the bytes a real dispense's requests were answered with,
recorded by the caller), until its stdin closes. It decodes nothing: its time is the pty's and pyserial's.
"""

from __future__ import annotations

import os
import select
import sys
import threading
import tty


def main() -> None:
    replies = [bytes.fromhex(h) for h in sys.argv[1].split(",")]
    count = 0
    master, slave = os.openpty()
    tty.setraw(slave)
    sys.stdout.write(os.ttyname(slave) + "\n")
    sys.stdout.flush()
    done = threading.Event()

    def watch_stdin() -> None:
        sys.stdin.read()
        done.set()

    threading.Thread(target=watch_stdin, daemon=True).start()
    while not done.is_set():
        ready, _, _ = select.select([master], [], [], 0.5)
        if not ready:
            continue
        try:
            data = os.read(master, 4096)
        except OSError:
            return
        for _ in range(data.count(0)):
            os.write(master, replies[count % len(replies)])
            count += 1


if __name__ == "__main__":
    main()
