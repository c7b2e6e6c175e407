#!/usr/bin/env python3
"""The performance goals' table (docs/performance.md), one line per row, each a ratio against its reference
measured in this run.

The references (what the same work costs without our Python bookkeeping) and how each is measured are
in ``bench/_goals_link.py`` (dispense round trip, client CPU, frame decode), ``bench/_goals_games.py``
(stud vs pokerkit, hand evaluation, ``shoectl --help``) and ``bench/_goals_service.py`` (rounds/s
against the disk's commit rate, CPU per round, idle wake-ups, RSS, start to first 200). Every row is
the median of at least three runs interleaved with its reference, so that load from other processes
hits both alike; each line names its goal. ``--quick`` keeps the whole under about a minute.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import _report as report
from bench._goals_games import hand_rows, help_row, stud_row
from bench._goals_link import decode_row, dispense_rows, encode_and_mac_rows
from bench._goals_service import service_rows
from shoe import logsetup


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer blocks and rounds (about a minute)")
    parser.add_argument("--only", choices=("link", "games", "service"), help="one group of rows")
    args = parser.parse_args()
    logsetup.configure("warning")
    quick = args.quick
    load = os.getloadavg()[0]
    tmp = Path(tempfile.mkdtemp(prefix="goals-bench-"))
    try:
        if args.only in (None, "link"):
            dispense_rows(tmp, blocks=3 if quick else 7)
            decode_row(rounds=5 if quick else 21)
            encode_and_mac_rows(rounds=5 if quick else 21)
        if args.only in (None, "service"):
            service_rows(tmp, blocks=3, rounds=5 if quick else 30, idle_s=5.0 if quick else 10.0,
                         big_entries=5_000 if quick else 50_000)  # fmt: skip
        if args.only in (None, "games"):
            stud_row(blocks=3 if quick else 7, hands=20 if quick else 100)
            hand_rows(quick=quick)
            help_row(pairs=3 if quick else 7)
        report.say(f"goals context: {os.cpu_count()} CPUs; load average (1 min) {load:.2f} at the start, "
                   f"{os.getloadavg()[0]:.2f} at the end")  # fmt: skip
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
