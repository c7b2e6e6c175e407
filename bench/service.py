#!/usr/bin/env python3
"""Table-service benchmarks: ``shoed`` as a real process, over HTTP. One line per figure.

The shoe is the instant emulator (no mechanical time) on a pseudo-terminal in its own process
(``bench/_shoed.py emulate``), so what is measured is the service: the link, the owner thread, the
journal (SQLite WAL, ``synchronous=FULL``: one fsync'd commit per record), the HTTP layer and the
event stream. A round is a full New York Mississippi Stud round for ``--seats`` seats, every seat
playing 1x on each street: open, no more bets, deal, release the stub, three streets of decisions
and reveals (scanned by the shoe's reader), settle. Between rounds the bench loads a fresh shuffled
deck into the emulator (the dealer's job: after the stub is released the shoe is empty), untimed.

Printed through ``bench/_report.py``: one short line per figure, each with its unit and what a ratio
is against; a ``label = meaning`` line explains each label before the figures that use it. In order:
idle CPU, wake-ups and RSS (no client, then one event stream open); the latency of a card-read frame
-> its event on the stream (keep-alive rounds paced by the HTTP layer's ~40 ms stall, then
connection-per-request rounds back to back), the service's own ``shoe_event_latency_seconds``
histogram over the same cards (median and p99 as Prometheus' ``histogram_quantile``, exact mean),
and the client's view (deal POST -> each stack-dealt); rounds per second end to end (after one
untimed warm-up round) for shoed on the pty and for the service with the emulator in its process
(``emu://``; ``bench/_shoed.py serve-emu``), each with CPU per round, journal commits per second and
the ratio against the rate the mechanism alone allows with the emulator's ``realistic`` timing; the
journal's records per round and fsync cost; shoed's RSS after the warm-up and the timed rounds; the
event stream's CPU cost (alternating blocks with and without one open); the host's CPUs and load.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import _report as report
from bench._proc import CLK_TCK, cpu_seconds, idle_cpu, rss_kib
from bench._shoed import EmulatorProcess, Http, InprocServer, ShoedProcess, SseReader
from drivers.emulator.timing import REALISTIC

BUDGET_MS = 100.0  # what a person at the table perceives as instant
ANTE = 1000


def p99(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


ms, dist = report.ms, report.distribution


# -- a round --------------------------------------------------------------------------------------------


@dataclass
class Played:
    seconds: list[float] = field(default_factory=list)  # each round, open .. settle answered
    deals: list[tuple[float, list[int]]] = field(default_factory=list)  # deal POST sent, its dispense ids


def play_round(http: Http, seats: Sequence[int], played: Played) -> None:
    start = time.monotonic()
    http.post("/v1/rounds", {"game": "mississippi-stud", "jurisdiction": "NY",
                             "seats": [{"seat": s, "ante": ANTE} for s in seats]})  # fmt: skip
    http.post("/v1/round/no-more-bets")
    sent = time.monotonic()
    deal = http.post("/v1/round/deal")
    ids = [int(stack["dispense_id"]) for stack in deal["stacks"]]
    if deal["paused"] or len(ids) != len(seats):
        raise RuntimeError(f"the deal did not complete: {deal}")
    http.post("/v1/round/release-stub")
    for index in (1, 2, 3):
        for seat in seats:
            http.post("/v1/round/decisions", {"seat": seat, "multiple": 1})
        http.post("/v1/round/reveal", {"index": index})
    settled = http.post("/v1/round/settle")
    if settled["state"] != "complete" or len(settled["lines"]) != len(seats):
        raise RuntimeError(f"the round did not settle: {settled['state']}")
    played.seconds.append(time.monotonic() - start)
    played.deals.append((sent, ids))


def play(http: Http, load: Callable[[], None], rounds: int, seats: Sequence[int]) -> Played:
    played = Played()
    for _ in range(rounds):
        play_round(http, seats, played)
        load()  # untimed: the dealer loads a fresh deck
    return played


def journal_seq(http: Http) -> int:
    return int(http.get_json("/v1/status")["service"]["journal_seq"])


# -- the service's histogram ----------------------------------------------------------------------------


def latency_histogram(http: Http) -> tuple[list[tuple[float, int]], float, int]:
    """``shoe_event_latency_seconds`` from ``/metrics``: cumulative buckets, sum, count."""
    buckets: list[tuple[float, int]] = []
    total, count = 0.0, 0
    for line in http.get("/metrics").decode().splitlines():
        if line.startswith("shoe_event_latency_seconds_bucket{"):
            bound = line.split('le="', 1)[1].split('"', 1)[0]
            buckets.append((float(bound), int(float(line.rsplit(" ", 1)[1]))))
        elif line.startswith("shoe_event_latency_seconds_sum "):
            total = float(line.split()[1])
        elif line.startswith("shoe_event_latency_seconds_count "):
            count = int(float(line.split()[1]))
    return buckets, total, count


def bucket_quantile(q: float, buckets: Sequence[tuple[float, int]]) -> float:
    """Prometheus ``histogram_quantile``: linear within the bucket holding the q-th observation."""
    total = buckets[-1][1]
    rank = q * total
    lower, below = 0.0, 0
    for bound, cumulative in buckets:
        if cumulative >= rank:
            if bound == float("inf"):
                return lower
            inside = cumulative - below
            return lower + (bound - lower) * ((rank - below) / inside if inside else 0.0)
        lower, below = bound, cumulative
    return lower


# -- figures --------------------------------------------------------------------------------------------


def fsync_ms(folder: Path, n: int = 200) -> tuple[float, float]:
    """Median and p99 of fsync after a 4 KiB append, in ``folder``: what each journal commit pays."""
    path = folder / "fsync.probe"
    times = []
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        for _ in range(n):
            os.write(fd, b"\0" * 4096)
            start = time.perf_counter()
            os.fsync(fd)
            times.append(time.perf_counter() - start)
    finally:
        os.close(fd)
        path.unlink()
    return statistics.median(times) * 1000, p99(times) * 1000


def rounds_lines(tag: str, played: Played, *, seats: int, records: float, cpu_s: float, cpu_who: str) -> None:
    """Four figures of the rounds ``tag`` (a label :data:`TAGS` explains): rate, CPU, commits, vs the mechanism."""
    n, total = len(played.seconds), sum(played.seconds)
    rate = n / total
    mech_s = 2 * seats * REALISTIC.card_s + 3 * REALISTIC.scan_s
    report.say(f"rounds {tag}: {rate:.2f} rounds/s = {total / n * 1000:.0f} ms/round ({n} rounds of {seats} seats; "
               f"{dist(played.seconds)})")  # fmt: skip
    report.figure(f"rounds {tag}, CPU", cpu_s / n * 1000, "ms/round", note=cpu_who)
    report.figure(f"rounds {tag}, journal", records * rate, "commits/s", note=f"{records:.0f} fsync'd records a round")
    report.ratio(f"rounds {tag}, vs the mechanism", rate * mech_s, f"the mechanism's own {1 / mech_s:.2f} rounds/s "
                 f"({mech_s:.1f} s/round of '{REALISTIC.name}' card and scan time)")  # fmt: skip


TAGS = {
    "pty+stream/keep-alive": "shoed on the emulator's pty, one event stream open, one keep-alive HTTP connection "
    "(each request there stalls ~40 ms: Nagle's algorithm against the client's delayed ACK)",
    "pty/per-request": "shoed on the emulator's pty, no event stream, one HTTP connection per request",
    "emu/keep-alive": "the service with the emulator in its process (emu://), no stream, one keep-alive connection",
    "emu/per-request": "the service with the emulator in its process (emu://), no stream, one connection per request",
}


def bench_shoed(tmp: Path, *, rounds: int, slow: int, seats: list[int], idle_s: float) -> None:
    """Everything against the real ``shoed`` on the emulator's pty."""
    with (
        EmulatorProcess(tmp / "shoe0", tmp / "emulator.log") as emulator,
        ShoedProcess(str(emulator.link), tmp / "journal.sqlite", tmp / "shoed.log") as shoed,
    ):
        http = Http(shoed.url)
        try:
            if http.get_json("/v1/status")["shoe"]["link"] != "up":
                raise RuntimeError("shoed is up but its shoe link is not")
            http.close()  # no client at all while idle (the next request reconnects)
            time.sleep(min(1.0, idle_s / 5))  # let the start's last work (status refresh, logs) pass
            cpu_alone = idle_cpu(shoed.pid, idle_s)
            rss_idle = rss_kib(shoed.pid)
            with SseReader(shoed.url, journal_seq(http)) as sse:
                time.sleep(0.5)
                cpu_stream = idle_cpu(shoed.pid, idle_s)
                report.define("idle", f"shoed with its shoe connected (pty) and no request for {idle_s:.0f} s; CPU "
                              f"from /proc utime+stime at {CLK_TCK} ticks/s")  # fmt: skip
                report.say(f"idle, no client: {cpu_alone}")
                report.say(f"idle, one event stream open: {cpu_stream}")
                report.figure("idle, RSS", rss_idle / 1024, "MiB")
                warm = play(http, emulator.load, 1, seats)
                rss_warm = rss_kib(shoed.pid)
                latency_rounds(http, shoed, emulator, sse, slow=slow, packed=max(5, rounds // 4), seats=seats,
                               warm_s=warm.seconds[0])  # fmt: skip
            throughput_rounds(tmp, shoed, emulator, rounds=rounds, seats=seats)
            rss_after = rss_kib(shoed.pid)
            report.figure("shoed RSS after the warm-up round", rss_warm / 1024, "MiB", note="the hand tables built")
            report.figure("shoed RSS after the timed rounds", rss_after / 1024, "MiB",
                          note=f"{(rss_after - rss_warm) / 1024:+.1f} MiB; journal at seq {journal_seq(http)}, the "
                          "feed keeps the last 10,000 events")  # fmt: skip
            stream_cost(shoed, emulator, rounds=max(5, rounds // 10), seats=seats)
        finally:
            http.close()


def latency_rounds(
    http: Http,
    shoed: ShoedProcess,
    emulator: EmulatorProcess,
    sse: SseReader,
    *,
    slow: int,
    packed: int,
    seats: list[int],
    warm_s: float,
) -> None:
    """Rounds with one event stream open: keep-alive (paced), then one connection per request (back to back)."""
    hist0, sum0, count0 = latency_histogram(http)
    seq0, cpu0 = journal_seq(http), cpu_seconds(shoed.pid)
    keep = play(http, emulator.load, slow, seats)
    seq1, cpu1 = journal_seq(http), cpu_seconds(shoed.pid)
    fresh = play(Http(shoed.url, fresh=True), emulator.load, packed, seats)
    hist1, sum1, count1 = latency_histogram(http)

    # every card of these rounds: its frame written into the pty -> its stack's event received
    wanted = {d for _, ids in keep.deals + fresh.deals for d in ids}
    sse.wait_for(lambda events: wanted <= {e.get("dispense_id") for _, e in events if e["type"] == "stack-dealt"})
    received = {int(e["dispense_id"]): t for t, e in sse.events if e["type"] == "stack-dealt"}
    stamps = emulator.stamps()

    def frame_to_event(played: Played) -> list[float]:
        return [received[d] - t for _, ids in played.deals for d in ids for t in stamps[d]]

    paced, back_to_back = frame_to_event(keep), frame_to_event(fresh)
    every = paced + back_to_back
    if len(every) != 2 * len(wanted):
        raise RuntimeError(f"{len(every)} card-read frames stamped for {len(wanted)} stacks")
    high = p99(every)
    report.define("frame -> event", "the emulator wrote a CARD_READ frame into the pty -> a raw-socket GET "
                  "/v1/events client got its stack's stack-dealt event (one CLOCK_MONOTONIC; both hops)")  # fmt: skip
    which = "p99" if len(every) >= report.MIN_FOR_P99 else "max"
    high = high if which == "p99" else max(every)
    verdict = f"{which} {'within' if high * 1000 <= BUDGET_MS else 'OVER'} the {BUDGET_MS:.0f} ms a person perceives"
    report.say(f"frame -> event, every card: {dist(every)}; {verdict}")
    report.say(f"frame -> event, {slow} keep-alive rounds: {dist(paced)}")
    report.say(f"frame -> event, {packed} connection-per-request rounds, requests back to back: {dist(back_to_back)}")

    buckets = [(b, c1 - c0) for (b, c0), (_, c1) in zip(hist0, hist1, strict=True)]
    observed = count1 - count0
    if observed:
        report.define("frame -> feed", "shoe_event_latency_seconds of /metrics: the link thread hands over the "
                      "decoded frame -> the card's journal entry committed and published to the feed")  # fmt: skip
        bounds = ", ".join(f"{b * 1000:g}" for b, _ in buckets[:4])
        report.say(f"frame -> feed, the same {observed} cards: median ~{ms(bucket_quantile(0.5, buckets))}, p99 "
                   f"~{ms(bucket_quantile(0.99, buckets))} (interpolated in buckets {bounds}.. ms), mean "
                   f"{ms((sum1 - sum0) / observed)} exact")  # fmt: skip

    def deal_to_event(played: Played, stack: int | None = None) -> list[float]:
        return [
            received[d] - sent for sent, ids in played.deals for d in (ids if stack is None else ids[stack : stack + 1])
        ]

    report.define("deal -> stack", f"the deal POST sent -> each stack-dealt event received ({len(seats)} a deal)")
    for how, played in (("keep-alive", keep), ("connection-per-request", fresh)):
        report.say(f"deal -> stack, {how} rounds: {dist(deal_to_event(played))}")
        report.say(f"deal -> first stack, {how} rounds: {dist(deal_to_event(played, 0))}")
    for tag, meaning in TAGS.items():
        report.define(f"rounds {tag}", meaning)
    report.figure("warm-up round, not counted", warm_s * 1000, "ms")
    rounds_lines("pty+stream/keep-alive", keep, seats=len(seats), records=(seq1 - seq0) / slow, cpu_s=cpu1 - cpu0,
                 cpu_who="shoed")  # fmt: skip


def throughput_rounds(
    tmp: Path, shoed: ShoedProcess, emulator: EmulatorProcess, *, rounds: int, seats: list[int]
) -> None:
    """Rounds back to back, one connection per request, no event stream open."""
    http = Http(shoed.url, fresh=True)
    seq0, cpu0 = journal_seq(http), cpu_seconds(shoed.pid)
    played = play(http, emulator.load, rounds, seats)
    seq1, cpu1 = journal_seq(http), cpu_seconds(shoed.pid)
    per_round = (seq1 - seq0) / rounds
    rounds_lines("pty/per-request", played, seats=len(seats), records=per_round, cpu_s=cpu1 - cpu0, cpu_who="shoed")
    fsync_median, fsync_high = fsync_ms(tmp)
    report.figure("journal, per round", per_round, "records", note=f"{len(seats)} seats; one fsync'd commit each")
    report.say(f"fsync after a 4 KiB append on the journal's file system: median {fsync_median:.2f} ms, p99 "
               f"{fsync_high:.2f} ms (n 200)")  # fmt: skip
    report.figure("fsync per round", per_round * fsync_median, "ms/round", note="records a round x the median fsync")


def stream_cost(shoed: ShoedProcess, emulator: EmulatorProcess, *, rounds: int, seats: list[int]) -> None:
    """``shoed``'s CPU per round with one event stream open against none, in alternating blocks (same feed size)."""
    http = Http(shoed.url, fresh=True)
    cpu = {False: 0.0, True: 0.0}
    wall = {False: 0.0, True: 0.0}
    events = 0
    seq0 = journal_seq(http)
    for _ in range(2):
        for stream in (False, True):
            sse = SseReader(shoed.url, journal_seq(http)) if stream else None
            try:
                c0 = cpu_seconds(shoed.pid)
                played = play(http, emulator.load, rounds, seats)
                cpu[stream] += cpu_seconds(shoed.pid) - c0
                wall[stream] += sum(played.seconds)
                if sse is not None:
                    time.sleep(0.1)
                    events += len(sse.events)
            finally:
                if sse is not None:
                    sse.close()
    n = 2 * rounds
    extra = (cpu[True] - cpu[False]) / n
    report.define("stream cost", f"{2 * n} rounds, one connection per request, in alternating blocks of {rounds} with "
                  f"and without one event stream open; journal at seq {seq0}..{journal_seq(http)}")  # fmt: skip
    report.figure("stream cost, shoed CPU with one stream", cpu[True] / n * 1000, "ms/round")
    report.figure("stream cost, shoed CPU with none", cpu[False] / n * 1000, "ms/round")
    report.figure("stream cost, per event streamed", extra / (events / n) * 1000, "ms/event",
                  note=f"{events / n:.0f} events a round")  # fmt: skip
    report.figure("stream cost, wall time with one stream", wall[True] / n * 1000, "ms/round",
                  note=f"{wall[False] / n * 1000:.0f} ms/round with none")  # fmt: skip


def bench_inproc(tmp: Path, *, rounds: int, slow: int, seats: list[int]) -> None:
    """Rounds against the service with the emulator in its own process (``emu://``)."""
    with InprocServer(tmp / "journal-emu.sqlite", tmp / "serve-emu.log") as server:
        for fresh in (False, True):
            http = Http(server.url, fresh=fresh)
            try:
                n = rounds if fresh else slow
                play(http, server.load, 1, seats)  # warm-up
                seq0, cpu0 = journal_seq(http), cpu_seconds(server.pid)
                played = play(http, server.load, n, seats)
                seq1, cpu1 = journal_seq(http), cpu_seconds(server.pid)
            finally:
                http.close()
            tag = "emu/per-request" if fresh else "emu/keep-alive"
            rounds_lines(tag, played, seats=len(seats), records=(seq1 - seq0) / n, cpu_s=cpu1 - cpu0,
                         cpu_who="service and emulator")  # fmt: skip


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="short runs (well under a minute)")
    parser.add_argument("--rounds", type=int, help="timed rounds with one connection per request (default 200; "
                        "--quick 20)")  # fmt: skip
    parser.add_argument("--keep-alive-rounds", type=int, help="timed rounds over one keep-alive connection "
                        "(default 50; --quick 3): each request there stalls ~40 ms")  # fmt: skip
    parser.add_argument("--seats", type=int, default=4, help="seats playing each round (default 4)")
    parser.add_argument("--idle", type=float, help="seconds per idle CPU sample (default 10; --quick 5)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (logs, journals)")
    args = parser.parse_args(argv)
    rounds = args.rounds or (20 if args.quick else 200)
    slow = args.keep_alive_rounds or (3 if args.quick else 50)
    idle_s = args.idle or (5.0 if args.quick else 10.0)
    if not 1 <= args.seats <= 6:
        parser.error("--seats: 1..6")
    seats = list(range(1, args.seats + 1))
    tmp = Path(tempfile.mkdtemp(prefix="shoed-bench-"))
    ok = False
    load = os.getloadavg()[0]
    try:
        bench_shoed(tmp, rounds=rounds, slow=slow, seats=seats, idle_s=idle_s)
        bench_inproc(tmp, rounds=rounds, slow=slow, seats=seats)
        report.say(f"context: {os.cpu_count()} CPUs; load average (1 min) {load:.2f} at the start, "
                   f"{os.getloadavg()[0]:.2f} at the end: other processes' load skews every figure")  # fmt: skip
        ok = True
    finally:
        if ok and not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                sys.stderr.write(f"logs and journals kept in {tmp}\n")


if __name__ == "__main__":
    main()
