#!/usr/bin/env python3
"""Protocol and link benchmarks. One line per figure.

- frames per second encoded, and decoded through the incremental deframer, on one core, for a typical
  CARD_READ event frame and a 2-card STACK_READY, as a ratio against the physical limit: frames per
  second of the same size at 115,200 baud with 10 bits per byte;
- dispense round-trip latency (request sent -> stack complete) over the pty and TCP paths with the
  instant emulator: median, p99 (from 100 samples on; --quick has 26) and max.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import _report as report
from drivers.client import ShoeClient
from drivers.emulator import EmulatedShoe, EmulatorConfig, serve_pty, serve_tcp
from drivers.serial_transport import SerialTransport
from drivers.transport import Transport
from protocols import codec
from protocols import messages as m
from protocols.cards import ALL_CODES
from protocols.fields import CardRead
from protocols.framing import Deframer
from shoe import logsetup

BAUD_BYTES_PER_S = 115_200 / 10


def codec_rates(seconds: float) -> None:
    samples = {
        "card-read event": m.CardReadEvent(1234, 56, 2, CardRead("Td")),
        "stack-ready event": m.StackReady(1235, 56, (CardRead("As"), CardRead("Td"))),
    }
    for name, message in samples.items():
        wire = codec.encode(message, 0)
        n = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            for _ in range(1000):
                codec.encode(message, 0)
            n += 1000
        enc = n / (time.perf_counter() - start)
        blob = wire * 1000
        n = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            d = Deframer()
            for frame in d.feed(blob):
                codec.decode(frame)  # type: ignore[arg-type]
            n += 1000
        dec = n / (time.perf_counter() - start)
        limit = BAUD_BYTES_PER_S / len(wire)
        reference = f"the 115,200-baud limit of {limit:,.0f} frames/s"
        report.figure(f"encode {name} ({len(wire)} B)", enc, "frames/s", vs=(enc / limit, reference))
        report.figure(f"decode {name} ({len(wire)} B)", dec, "frames/s", vs=(dec / limit, reference))


def latency(kind: str, stacks: int) -> None:
    shoe = EmulatedShoe(EmulatorConfig(seed=1))
    if kind == "pty":
        server = serve_pty(shoe)
        transport: Transport = SerialTransport(server.path)
    else:
        server = serve_tcp(shoe, "127.0.0.1", 0)  # type: ignore[assignment]
        transport = SerialTransport(f"socket://{server.address[0]}:{server.address[1]}")  # type: ignore[attr-defined]
    client = ShoeClient(transport)
    client.connect()
    times = []
    try:
        for i in range(stacks):
            if i and i % 26 == 0:
                client.release_stub()
                shoe.load(ALL_CODES)  # the dealer loads a fresh deck
            start = time.perf_counter()
            client.dispense(2)
            times.append((time.perf_counter() - start) * 1000)
    finally:
        client.close()
        server.close()
        shoe.close()
    seconds = [t / 1000 for t in times]
    report.say(f"dispense round trip over {kind}, 2-card stacks, instant emulator: {report.distribution(seconds)}")


def main() -> None:
    logsetup.configure("warning")
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="short runs (well under a minute)")
    args = parser.parse_args()
    report.define("dispense round trip", "the DISPENSE request sent -> its stack complete (STACK_READY decoded)")
    codec_rates(0.5 if args.quick else 3.0)
    for kind in ("pty", "tcp"):
        latency(kind, 26 if args.quick else 200)


if __name__ == "__main__":
    main()
