#!/usr/bin/env python3
"""The reference peer of ``bench/goals.py``'s dispense rows: a pty that answers each frame with fixed bytes.

Run as ``bench/_echo.py LEN:HEX[,LEN:HEX...]``: it opens a pty pair (the slave in raw mode, as the
emulator's), prints the slave's path on one line, then, each time it has read the next ``LEN`` bytes on
the master (one write of the caller: a request, an EVENT_ACK riding with it, or an ack alone), answers
with that entry's ``HEX`` (cyclically: the bytes a real dispense's writes were answered with, recorded
by the caller; an empty ``HEX`` answers nothing), until its stdin closes. It decodes nothing: its time
is the pty's and pyserial's.
"""

from __future__ import annotations

import os
import select
import sys
import threading
import tty


def main() -> None:
    entries = [item.split(":") for item in sys.argv[1].split(",")]
    sizes = [int(size) for size, _ in entries]
    replies = [bytes.fromhex(reply) for _, reply in entries]
    count = 0
    received = 0  # bytes of the current write read so far
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
        received += len(data)
        while received >= sizes[count % len(sizes)]:
            received -= sizes[count % len(sizes)]
            if replies[count % len(replies)]:
                os.write(master, replies[count % len(replies)])
            count += 1


if __name__ == "__main__":
    main()
