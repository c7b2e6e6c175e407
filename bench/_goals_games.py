"""Rows 6, 7 and 10 of the performance goals' table (``bench/goals.py``), each against its reference in the same run.

- seven-card stud, 6 players calling to showdown: our ``shoe.rules.stud.play`` (the service's engine,
  fed one shuffled 52-card shoe per hand) vs pokerkit's ``FixedLimitSevenCardStud`` with its own
  dealing automated, hands timed in interleaved blocks;
- hand evaluation: ``rank5``/``rank7`` vs the fastest of treys and phevaluator on the same hands
  (``bench/hands.py``'s evaluators and samples, interleaved chunks);
- ``shoectl --help`` in a fresh process vs ``esptool --help`` (or, without esptool, ``python -m
  json.tool --help``), paired: the two alternate, median of each.
"""

from __future__ import annotations

import importlib
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from bench import _report as report
from bench import hands as hands_bench
from shoe.cards import FULL_DECK
from shoe.hands import tables
from shoe.rules.stud import StudTableConfig, play

SEATS = (1, 2, 3, 4, 5, 6)
CONFIG = StudTableConfig(ante=0, bring_in=100, small_bet=200, big_bet=400)


def _pokerkit_hand() -> Callable[[], None]:
    import pokerkit

    automations = tuple(a for a in pokerkit.Automation if a.name not in ("BRING_IN_POSTING",))

    def one() -> None:
        state = pokerkit.FixedLimitSevenCardStud.create_state(automations, True, 0, 100, 200, 400, 10**9, len(SEATS))
        for _ in range(1000):
            if not state.status:
                return
            if state.can_post_bring_in():
                state.post_bring_in()
            elif state.can_check_or_call():
                state.check_or_call()
            else:
                raise RuntimeError("pokerkit's hand waits for something this loop does not do")

    return one


def stud_row(*, blocks: int, hands: int) -> None:
    try:
        pokerkit_hand = _pokerkit_hand()
    except ImportError:
        report.skipped("stud vs pokerkit", "not installed")
        return
    rng = random.Random(20_35)
    deck = list(FULL_DECK)

    def ours() -> None:
        hand = play(CONFIG, SEATS, rng.sample(deck, 52))
        if not hand.finished:
            raise RuntimeError("our stud hand did not finish")

    rates: dict[str, list[float]] = {"ours": [], "pokerkit": []}
    for _ in range(blocks):
        for name, one in (("ours", ours), ("pokerkit", pokerkit_hand)):
            start = time.perf_counter()
            for _ in range(hands):
                one()
            rates[name].append(hands / (time.perf_counter() - start))
    rate = {k: statistics.median(v) for k, v in rates.items()}
    report.figure("seven-card stud, 6 players calling to showdown", rate["ours"], "hands/s",
                  vs=(rate["ours"] / rate["pokerkit"], f"pokerkit in the same loop ({rate['pokerkit']:,.0f} hands/s)"),
                  note=f"goal >= 10x; median of {blocks} interleaved blocks of {hands}")  # fmt: skip


def hand_rows(*, quick: bool) -> None:
    tables.build()
    makers: dict[str, hands_bench.Make] = {}
    for name, make in (("treys", hands_bench.treys_make),):
        try:
            importlib.import_module(name)
            makers[name] = make
        except ImportError:
            report.skipped(f"hand evaluation vs {name}", "not installed")
    try:
        import phevaluator.evaluator as phe  # type: ignore[import-untyped]

        makers["phevaluator (C)"] = hands_bench.phevaluator_make(phe)
    except ImportError:
        report.skipped("hand evaluation vs phevaluator", "not installed")
    if not makers:
        return
    for n, every in ((5, hands_bench.five_card_hands(True)), (7, hands_bench.seven_card_hands(True))):
        sample = every[: 20_000 if quick else 100_000]
        setups = {"ours": hands_bench.ours(n), "ours, batch": _batch(n), **{k: make(n) for k, make in makers.items()}}
        seconds = dict.fromkeys(setups, 0.0)
        for i in range(0, len(sample), 5_000):
            chunk = sample[i : i + 5_000]
            for name, (convert, run, _value) in setups.items():
                data = convert(chunk)
                start = time.perf_counter()
                run(data)
                seconds[name] += time.perf_counter() - start
        rates = {name: len(sample) / s for name, s in seconds.items()}
        best = max((name for name in rates if name not in ("ours", "ours, batch")), key=rates.__getitem__)
        reference = f"the fastest reference, {best} ({rates[best]:,.0f} evals/s)"
        how = f"{len(sample):,} hands in interleaved chunks of 5,000"
        report.figure(f"hand evaluation, {n} cards, one call a hand", rates["ours"], "evals/s",
                      vs=(rates["ours"] / rates[best], reference), note=f"goal >= 2x; {how}")  # fmt: skip
        report.figure(f"hand evaluation, {n} cards, batch (numpy)", rates["ours, batch"], "evals/s",
                      vs=(rates["ours, batch"] / rates[best], reference),
                      note=f"goal >= 2x; shoe.hands.batch.rank_batch, (N, {n}) array in, (N,) out; {how}")  # fmt: skip


def _batch(n: int) -> tuple[hands_bench.Convert, hands_bench.Run, hands_bench.Value]:
    import numpy as np

    from shoe.hands.batch import rank_batch

    rank_batch(np.zeros((0, n), dtype=np.int8))  # its arrays, built once, before the clock

    def convert(hands: list[tuple[int, ...]]) -> list[object]:
        return [np.array(hands, dtype=np.int8)]

    def run(data: list[object]) -> None:
        rank_batch(data[0])

    return convert, run, lambda x: 0  # type: ignore[arg-type,return-value]


def _run_ms(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, timeout=60)
    return (time.perf_counter() - start) * 1000


def help_row(*, pairs: int) -> None:
    bindir = Path(sys.executable).parent
    shoectl = [str(bindir / "shoectl"), "--help"]
    esptool = shutil.which("esptool", path=str(bindir)) or shutil.which("esptool.py", path=str(bindir))
    reference, name = (
        ([esptool, "--help"], "esptool --help")
        if esptool
        else ([sys.executable, "-m", "json.tool", "--help"], "python -m json.tool --help (esptool is not installed)")
    )
    times: dict[str, list[float]] = {"ours": [], "ref": []}
    _run_ms(shoectl), _run_ms(reference)  # page caches warm for both
    for _ in range(pairs):
        times["ours"].append(_run_ms(shoectl))
        times["ref"].append(_run_ms(reference))
    ours, ref = statistics.median(times["ours"]), statistics.median(times["ref"])
    report.figure("shoectl --help", ours, "ms", vs=(ours / ref, f"{name} ({ref:.0f} ms), paired"),
                  note=f"goal <= 1x; median of {pairs} pairs")  # fmt: skip
