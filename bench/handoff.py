#!/usr/bin/env python3
"""CPU of one command's hand-off: a sender thread puts a command on the owner's inbox and waits for its
answer; the owner thread takes it and answers at once (no work), as ``TableService._on_owner`` and the
owner loop do.

Two ways, interleaved in the same run: the reference is ``queue.Queue`` with a
``concurrent.futures.Future`` per command (what the service used); ours is ``queue.SimpleQueue`` with
``shoe.service.answer.Answer``. The figure is process CPU (both threads) per command, and the ratio
ours / reference (lower is better). Every action over HTTP and every approval crosses one such hand-off.

    bench/handoff.py                 # 5 interleaved runs of 20,000 commands each
    bench/handoff.py --runs 9 --commands 50000 --json
"""

from __future__ import annotations

import argparse
import json
import queue
import statistics
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Protocol

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shoe.service.answer import Answer


class _Inbox(Protocol):
    def put(self, item: Any) -> None: ...
    def get(self, block: bool = True, timeout: float | None = None) -> Any: ...


class _Reply(Protocol):
    def set_running_or_notify_cancel(self) -> bool: ...
    def set_result(self, value: dict[str, Any]) -> None: ...
    def result(self, timeout: float) -> dict[str, Any]: ...


def cpu_per_command(inbox: _Inbox, reply: Callable[[], _Reply], commands: int) -> float:
    """Process CPU seconds per command sent, answered and received."""

    def owner() -> None:
        while True:
            item = inbox.get(timeout=5.0)
            if item is None:
                return
            if item.set_running_or_notify_cancel():
                item.set_result({})

    thread = threading.Thread(target=owner, name="bench-owner")
    thread.start()
    start = time.process_time()
    for _ in range(commands):
        answer = reply()
        inbox.put(answer)
        answer.result(timeout=5.0)
    spent = time.process_time() - start
    inbox.put(None)
    thread.join()
    return spent / commands


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="interleaved runs of each (default 5)")
    parser.add_argument("--commands", type=int, default=20_000, help="commands per run (default 20,000)")
    parser.add_argument("--json", action="store_true", help="the figures as JSON on stdout")
    args = parser.parse_args(argv)
    reference: list[float] = []
    ours: list[float] = []
    for _ in range(args.runs):
        reference.append(cpu_per_command(queue.Queue(), Future, args.commands))
        ours.append(cpu_per_command(queue.SimpleQueue(), Answer, args.commands))
    ref_us, ours_us = statistics.median(reference) * 1e6, statistics.median(ours) * 1e6
    figures = {"reference_us": round(ref_us, 1), "ours_us": round(ours_us, 1), "ratio": round(ours_us / ref_us, 2),
               "runs": args.runs, "commands": args.commands}  # fmt: skip
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"Queue + Future (reference): {ref_us:.1f} µs CPU per command (median of {args.runs} runs)")
        print(f"SimpleQueue + Answer (ours): {ours_us:.1f} µs CPU per command: {ours_us / ref_us:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
