#!/usr/bin/env python3
"""The long fuzz run of the deframer and the codec; CI runs the short one (tests/fuzz).

With atheris installed (``pip install atheris``) the run is coverage-guided by libFuzzer; otherwise it
runs the hypothesis properties of tests/fuzz/test_fuzz_deframer.py in rounds of ``--batch`` examples
until ``--seconds`` are spent. Either way it prints examples per second, the peak RSS and the number of
crashes, and exits 1 on a crash or when the peak RSS passes ``--max-rss-mib``. See docs/fuzzing.md.

    bench/fuzz.py --seconds 3600                   # an hour, every property
    bench/fuzz.py --seconds 600 --target codec     # one property
    bench/fuzz.py --engine atheris --seconds 3600 -- -dict=...   # extra libFuzzer flags after --
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import os
import resource
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def report(engine: str, counts: dict[str, int], seconds: float, crashes: int) -> None:
    total = sum(counts.values())
    for name, n in counts.items():
        print(f"fuzz {engine} {name}: {n} examples")
    print(
        f"fuzz {engine}: {total} examples in {seconds:.1f} s ({total / max(seconds, 1e-9):.0f} examples/s), "
        f"peak RSS {peak_rss_mib():.1f} MiB, {crashes} crash{'es' if crashes != 1 else ''}"
    )


def run_hypothesis(names: list[str], seconds: float, batch: int) -> tuple[dict[str, int], int]:
    """Round-robin over the properties, ``batch`` examples at a time, each round freshly seeded."""
    from hypothesis import HealthCheck, Phase, given, settings

    from tests.fuzz.test_fuzz_deframer import FUZZ_TARGETS

    assert set(FUZZ_TARGETS) == set(TARGETS), "bench/fuzz.py TARGETS is out of date"
    counts = dict.fromkeys(names, 0)
    long_run = settings(
        max_examples=batch,
        deadline=None,
        database=None,
        phases=[Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
    )
    crashes, end = 0, time.monotonic() + seconds
    live = list(names)
    while live and time.monotonic() < end:
        for name in list(live):
            test, strategies = FUZZ_TARGETS[name]
            inner: Callable[..., None] = test.hypothesis.inner_test  # type: ignore[attr-defined]

            @functools.wraps(inner)
            def counted(*args: Any, _inner: Callable[..., None] = inner, _name: str = name, **kwargs: Any) -> None:
                counts[_name] += 1
                _inner(*args, **kwargs)

            try:
                long_run(given(**strategies)(counted))()
            except Exception:
                traceback.print_exc()
                print(f"fuzz: CRASH in {name}: the falsifying example is printed above", file=sys.stderr)
                crashes += 1
                live.remove(name)  # one report per property; the others go on
            if time.monotonic() >= end:
                break
    return counts, crashes


def run_atheris(seconds: float, max_rss_mib: float, extra: list[str]) -> None:
    """libFuzzer drives one input function covering all properties. It never returns: the function itself
    prints the summary and ends the process when the budget is spent; a crash is libFuzzer's to report."""
    import atheris  # type: ignore[import-untyped,import-not-found,unused-ignore]

    with atheris.instrument_imports(include=["protocols"]):  # coverage of our code only
        from protocols.framing import MAX_PAYLOAD, Frame
        from tests.fuzz.test_fuzz_deframer import check_codec, check_stream, raw_frame

    counts = {"all": 0}
    start = time.monotonic()

    def one_input(data: bytes) -> None:
        counts["all"] += 1
        if counts["all"] % 1000 == 0 and time.monotonic() - start >= seconds:
            report("atheris", counts, time.monotonic() - start, 0)
            sys.stdout.flush()
            os._exit(1 if peak_rss_mib() > max_rss_mib else 0)
        fdp = atheris.FuzzedDataProvider(data)
        kind = fdp.ConsumeIntInRange(0, 2)
        cuts = [fdp.ConsumeIntInRange(0, 8192) for _ in range(fdp.ConsumeIntInRange(0, 8))]
        fields = (fdp.ConsumeIntInRange(0, 255), fdp.ConsumeIntInRange(0, 255), fdp.ConsumeIntInRange(0, 65535))
        if kind == 0:  # any stream, any chunks
            check_stream(fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 8192)), cuts)
        elif kind == 1:  # any frame through the codec
            check_codec(Frame(*fields, fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 1100))))
        else:  # a valid frame between two runs of noise is recovered
            payload = fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, MAX_PAYLOAD))
            before, after = fdp.ConsumeBytes(200), fdp.ConsumeBytes(200)
            wire = before + b"\x00" + raw_frame(*fields, payload) + after + b"\x00"
            assert check_stream(wire, cuts) == [Frame(*fields, payload)]

    backstop = f"-max_total_time={int(seconds) + 60}"
    atheris.Setup([sys.argv[0], backstop, f"-rss_limit_mb={int(max_rss_mib)}", "-max_len=9000", *extra], one_input)
    atheris.Fuzz()


TARGETS = ("stream", "frames-in-noise", "endless-run", "codec", "codec-mutated")  # FUZZ_TARGETS' keys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60, help="time budget (default 60)")
    parser.add_argument("--engine", choices=("auto", "atheris", "hypothesis"), default="auto")
    parser.add_argument("--target", action="append", choices=TARGETS, help="hypothesis: only these")
    parser.add_argument("--batch", type=int, default=2000, help="hypothesis: examples per round (default 2000)")
    parser.add_argument("--max-rss-mib", type=float, default=1024, help="fail above this peak RSS (default 1024)")
    parser.add_argument("libfuzzer", nargs="*", help="atheris: extra libFuzzer flags, after --")
    args = parser.parse_args(argv)
    engine = args.engine
    if engine == "auto":
        engine = "atheris" if importlib.util.find_spec("atheris") else "hypothesis"
    if engine == "atheris":
        run_atheris(args.seconds, args.max_rss_mib, args.libfuzzer)
        return 0  # not reached: libFuzzer exits the process
    start = time.monotonic()
    counts, crashes = run_hypothesis(args.target or list(TARGETS), args.seconds, args.batch)
    report("hypothesis", counts, time.monotonic() - start, crashes)
    if peak_rss_mib() > args.max_rss_mib:
        print(f"fuzz: peak RSS {peak_rss_mib():.1f} MiB exceeds --max-rss-mib {args.max_rss_mib}", file=sys.stderr)
        return 1
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
