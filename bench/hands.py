#!/usr/bin/env python3
"""Hand-evaluator benchmark: ours (shoe.hands.fast) against treys, phevaluator and pokerkit.

Figures, one line each: evaluations per second over all 2,598,960 five-card hands (``--quick``: every
26th of them in lexicographic order, 99,960 hands) and over a fixed seeded sample of 100,000
seven-card hands (``--quick``: the first 10,000 of it).  Every evaluator gets the same cards,
converted to its own card form before the clock starts; each timed loop is a plain ``for`` loop
over the prepared hands calling the evaluator's public entry point once per hand:

* ours         ``rank5(*idx)`` / ``rank7(*idx)``  (shoe.hands.fast, pure Python)
* treys        ``Evaluator().evaluate(hole, board)``  (pure Python; 7 cards = best of 21 fives)
* phevaluator  ``evaluate_cards(*ids)``  (0.6+ is a C extension behind a Python wrapper: listed as
  native and not counted as a pure-Python reference; ``--phevaluator-py WHEEL_OR_DIR`` adds the
  pure-Python 0.5.x package, loaded under another name, as the reference "phevaluator-py")
* pokerkit     ``StandardLookup().get_entry(cards)`` for 5 cards and
  ``StandardHighHand.from_game(hole, board)`` for 7 (pure Python)

The hands are timed in chunks of 20,000, every evaluator in turn on each chunk, so that load from
other processes hits all evaluators alike; ``--repeat N`` times each chunk N times and keeps the
best (default 1; 2 with ``--quick``).  Rates are hands / summed chunk times.  Before timing, each
evaluator's results are checked against ours on the first 2,000 hands.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.metadata
import random
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Sequence
from itertools import combinations, islice
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import _report as report
from shoe.cards import FULL_DECK
from shoe.hands import tables
from shoe.hands.fast import rank5, rank7

CODES = [c.code for c in FULL_DECK]
SEED = 5324_38  # NY 5324.38
CHECK = 2000
CHUNK = 20_000

Hand = tuple[int, ...]
Convert = Callable[[Sequence[Hand]], list[Any]]
Run = Callable[[list[Any]], None]
Value = Callable[[Any], int]
# An evaluator: make(n) -> (convert hands to its card form, timed loop over converted hands,
# one converted hand -> our rank number 1..7462 for the agreement check).
Make = Callable[[int], tuple[Convert, Run, Value]]


def five_card_hands(quick: bool) -> list[Hand]:
    allhands = combinations(range(52), 5)
    return list(islice(allhands, 0, None, 26)) if quick else list(allhands)


def hand_set(n: int, count: int, quick: bool) -> str:
    """What the ``N-card`` label stands for: which hands, how many."""
    if n == 5:
        which = "every 26th of all 2,598,960 in lexicographic order (--quick)" if quick else "all of them"
        return f"{count:,} five-card hands: {which}"
    which = "the first 10,000 of" if quick else "all of"
    return f"{count:,} seven-card hands: {which} a sample of 100,000 drawn with random.Random({SEED})"


def seven_card_hands(quick: bool) -> list[Hand]:
    rng = random.Random(SEED)
    hands = [tuple(rng.sample(range(52), 7)) for _ in range(100_000)]
    return hands[:10_000] if quick else hands


def ours(n: int) -> tuple[Convert, Run, Value]:
    fn = rank5 if n == 5 else rank7

    def run(data: list[Any]) -> None:
        for h in data:
            fn(*h)

    return list, run, lambda h: fn(*h)


def treys_make(n: int) -> tuple[Convert, Run, Value]:
    import treys

    evaluate = treys.Evaluator().evaluate
    ids = [treys.Card.new(c) for c in CODES]

    def convert(hands: Sequence[Hand]) -> list[Any]:
        return [([ids[i] for i in h[:2]], [ids[i] for i in h[2:]]) for h in hands]

    def run(data: list[Any]) -> None:
        for hole, board in data:
            evaluate(hole, board)

    return convert, run, lambda x: 7463 - evaluate(*x)


def phevaluator_make(module: Any) -> Make:
    def make(n: int) -> tuple[Convert, Run, Value]:
        evaluate_cards = module.evaluate_cards

        def run(data: list[Any]) -> None:
            for h in data:
                evaluate_cards(*h)

        return list, run, lambda h: 7463 - evaluate_cards(*h)

    return make


def pokerkit_make(n: int) -> tuple[Convert, Run, Value]:
    import pokerkit

    cards = [next(pokerkit.Card.parse(c)) for c in CODES]
    if n == 5:
        get_entry = pokerkit.StandardLookup().get_entry

        def convert(hands: Sequence[Hand]) -> list[Any]:
            return [tuple(cards[i] for i in h) for h in hands]

        def run(data: list[Any]) -> None:
            for h in data:
                get_entry(h)

        return convert, run, lambda h: get_entry(h).index + 1
    from_game = pokerkit.StandardHighHand.from_game

    def convert7(hands: Sequence[Hand]) -> list[Any]:
        return [(tuple(cards[i] for i in h[:2]), tuple(cards[i] for i in h[2:])) for h in hands]

    def run7(data: list[Any]) -> None:
        for hole, board in data:
            from_game(hole, board)

    return convert7, run7, lambda x: from_game(*x).entry.index + 1


def load_phevaluator_py(path: str) -> Any:
    """Import a pure-Python phevaluator (0.5.x wheel or unpacked directory) beside the installed one.

    Its tables import themselves by absolute name, so it is imported as ``phevaluator`` with the
    installed package's modules set aside, then those are put back.
    """
    root = Path(path)
    if root.is_file():
        tmp = Path(tempfile.mkdtemp(prefix="phevaluator_py_"))
        with zipfile.ZipFile(root) as zf:
            zf.extractall(tmp)
        root = tmp
    if not (root / "phevaluator").is_dir():
        raise ImportError(f"no phevaluator package under {path}")
    saved = {k: sys.modules.pop(k) for k in list(sys.modules) if k.split(".")[0] == "phevaluator"}
    sys.path.insert(0, str(root))
    try:
        module = importlib.import_module("phevaluator.evaluator")
        if any(p.suffix in (".so", ".pyd") for p in Path(module.__file__ or "").parent.iterdir()):
            raise ImportError(f"{path} is not a pure-Python phevaluator")
    finally:
        sys.path.remove(str(root))
        for k in [k for k in sys.modules if k.split(".")[0] == "phevaluator"]:
            del sys.modules[k]
        sys.modules.update(saved)
    return module


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller fixed samples (well under a minute)")
    parser.add_argument(
        "--repeat", type=int, default=0, help="time each chunk N times, keep the best (default 1, --quick 2)"
    )
    parser.add_argument("--phevaluator-py", metavar="WHEEL_OR_DIR", help="pure-Python phevaluator 0.5.x to add")
    args = parser.parse_args(argv)

    t0 = time.perf_counter()
    tables.build()
    report.define("ours", "shoe.hands.fast rank5/rank7, pure Python; a ratio ours/X is our rate over X's")
    report.figure("tables build (ours, once per process)", time.perf_counter() - t0, "s")

    evaluators: list[tuple[str, Make | None, str]] = [("ours", ours, "pure")]
    pure_refs: tuple[tuple[str, Make], ...] = (("treys", treys_make), ("pokerkit", pokerkit_make))
    for name, make in pure_refs:
        try:
            importlib.import_module(name)
            evaluators.append((name, make, "pure"))
        except ImportError:
            evaluators.append((name, None, "not installed"))
    try:
        import phevaluator
        import phevaluator.evaluator as phe  # type: ignore[import-untyped]

        native = any(p.suffix in (".so", ".pyd") for p in Path(phevaluator.__file__).parent.iterdir())
        kind = f"native (C extension, {importlib.metadata.version('phevaluator')})" if native else "pure"
        evaluators.append(("phevaluator", phevaluator_make(phe), kind))
    except ImportError:
        evaluators.append(("phevaluator", None, "not installed"))
    if args.phevaluator_py:
        evaluators.append(("phevaluator-py", phevaluator_make(load_phevaluator_py(args.phevaluator_py)), "pure"))
    for name, maybe, kind in evaluators:
        if maybe is None:
            report.skipped(name, kind)
    present = [(name, make, kind) for name, make, kind in evaluators if make is not None]
    repeat = args.repeat or (2 if args.quick else 1)

    gc.disable()
    for n, hands in ((5, five_card_hands(args.quick)), (7, seven_card_hands(args.quick))):
        label = f"{n}-card"
        report.define(f"{label} set", hand_set(n, len(hands), args.quick))
        ref = rank5 if n == 5 else rank7
        setups = {name: make(n) for name, make, _ in present}
        seconds = dict.fromkeys(setups, 0.0)
        disagree = dict.fromkeys(setups, 0)
        for i in range(0, len(hands), CHUNK):  # interleaved, so machine load hits everyone alike
            chunk = hands[i : i + CHUNK]
            for name, (convert, run, value) in setups.items():
                data = convert(chunk)
                if i == 0:
                    disagree[name] = sum(value(x) != ref(*h) for x, h in zip(data[:CHECK], chunk, strict=False))
                best = float("inf")
                for _ in range(repeat):
                    start = time.perf_counter()
                    run(data)
                    best = min(best, time.perf_counter() - start)
                seconds[name] += best
        rates = {name: len(hands) / t for name, t in seconds.items()}
        for name, _, kind in present:
            notes = [] if kind == "pure" else [f"{kind}; not a pure-Python reference"]
            if disagree[name]:
                notes.append(f"DISAGREES with ours on {disagree[name]} of the first {CHECK} hands")
            report.figure(f"{label} {name}", rates[name], "evals/s", note="; ".join(notes))
        refs = {name: rates[name] for name, _, kind in present if kind == "pure" and name != "ours"}
        if refs:
            top = max(refs, key=refs.__getitem__)
            report.ratio(f"{label} ours/{top}", rates["ours"] / refs[top], f"{top}, the fastest pure-Python reference")
        for name, _, kind in present:
            if kind != "pure":
                report.ratio(f"{label} ours/{name}", rates["ours"] / rates[name], f"{name}, native code")
    gc.enable()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
