"""Line impairments (corruption, loss, latency) and the timing model (instant, realistic, clocks)."""

from __future__ import annotations

import random
import time

import pytest

from drivers.emulator.impairment import DelayLine, Impairment, random_for
from drivers.emulator.timing import ManualClock, Scheduler, profile
from protocols import codec
from protocols import messages as m
from tests.emulator import DECK, Factory, shoe_factory

new = pytest.fixture(shoe_factory)
DATA = bytes(random.Random(0).randrange(256) for _ in range(40_000))


def test_corruption_at_5_percent_corrupts_about_5_percent_of_bytes_and_always_changes_them() -> None:
    line = Impairment(random_for(1, "line"), corrupt_rate=0.05)
    out = line.apply(DATA)
    changed = sum(a != b for a, b in zip(DATA, out, strict=True))
    assert changed == line.corrupted
    assert 0.045 < changed / len(DATA) < 0.055
    assert Impairment(random_for(1, "line"), corrupt_rate=0.05).apply(DATA) == out  # seeded: reproducible
    assert Impairment(random_for(2, "line"), corrupt_rate=0.05).apply(DATA) != out


def test_drop_rate_drops_about_that_share() -> None:
    line = Impairment(random_for(3, "line"), drop_rate=0.02)
    out = line.apply(DATA)
    assert len(DATA) - len(out) == line.dropped
    assert 0.016 < line.dropped / len(DATA) < 0.024


def test_no_impairment_passes_bytes_through_and_rates_are_checked() -> None:
    line = Impairment(random.Random(0))
    assert line.apply(DATA) is DATA and line.seen == len(DATA)
    with pytest.raises(ValueError, match="corrupt_rate"):
        line.set(corrupt_rate=1.5)
    with pytest.raises(ValueError, match="latency_ms"):
        line.set(latency_ms=-1)


def test_shoe_corrupts_both_directions_and_counts_it(new: Factory) -> None:
    shoe, host = new(deck=DECK, seed=5)
    shoe.set_impairment(corrupt_rate=0.05)
    for _ in range(200):
        host.send(m.Identify())
        host.pump(0)
    stats = shoe.stats
    assert stats.frames_in_bad > 0 and host.bad > 0  # requests and responses both hit
    assert stats.bytes_corrupted > 0
    shoe.set_impairment(corrupt_rate=0.0)
    assert isinstance(host.call(m.Identify()), m.Identity)


def test_dropped_bytes_lose_frames(new: Factory) -> None:
    shoe, host = new(deck=DECK, seed=6, drop_rate=0.02)
    answered = 0
    for _ in range(50):
        seq = host.send(m.GetStatus())
        host.pump(0)
        answered += any(s == seq for s, _ in host.responses)
    assert 0 < answered < 50 and shoe.stats.bytes_dropped > 0


def test_latency_delays_every_reply(new: Factory) -> None:
    shoe, host = new(deck=DECK, latency_ms=80)
    host.send(m.Identify())
    start = time.monotonic()
    assert shoe.host_read(0.01) == b""
    data = shoe.host_read(1.0)
    assert data and time.monotonic() - start >= 0.06


def test_latency_with_a_manual_clock(new: Factory) -> None:
    clock = ManualClock()
    shoe, host = new(clock, deck=DECK, latency_ms=100)
    seq = host.send(m.GetStatus())
    assert host.pump() == []
    clock.advance(0.1)
    shoe.tick()
    assert isinstance(host.wait_response(seq), m.Status)


def test_delay_line_keeps_order_and_bounds_memory() -> None:
    line = DelayLine()
    line.push(2.0, b"abc")
    line.push(1.0, b"def")  # due earlier (latency lowered) but behind: the order is kept
    assert line.pop_ready(1.5) == b""
    assert line.pop_ready(2.0) == b"abcdef"
    small = DelayLine(limit=10)
    small.push(1.0, b"abcdef")
    small.push(1.0, b"ghijkl")  # nobody reads: the oldest bytes are lost, like an overrun buffer
    assert small.overflowed == 6 and small.pop_ready(1.0) == b"ghijkl"


def test_realistic_timing_moves_a_card_every_quarter_second(new: Factory) -> None:
    clock = ManualClock()
    shoe, host = new(clock, deck=DECK, timing="realistic", event_resend_s=10)
    assert profile("realistic").card_s == 0.25 and profile("realistic").scan_s == 0.3
    host.call(m.Dispense(1, 2), m.DispenseReport)
    seen = []
    for _ in range(5):
        clock.advance(0.125)
        shoe.tick()
        seen.append(len(host.pump()))
    assert seen == [0, 1, 0, 3, 0]  # card 1 at 0.25 s; card 2, STACK_READY and STACK_TAKEN at 0.5 s
    assert host.of(m.StackReady)[0].dispense_id == 1


def test_realistic_timing_with_the_real_clock(new: Factory) -> None:
    _shoe, host = new(deck=DECK, timing="realistic")
    start = time.monotonic()
    host.call(m.Dispense(1, 2), m.DispenseReport)
    while not host.of(m.StackReady):
        host.pump(0.05)
        assert time.monotonic() - start < 3
    assert 0.45 < time.monotonic() - start < 1.5


def test_scheduler_runs_due_actions_in_time_order() -> None:
    ran: list[str] = []
    timers = Scheduler()
    timers.at(2.0, lambda: ran.append("b"))
    timers.at(1.0, lambda: ran.append("a"))
    timers.at(2.0, lambda: ran.append("c"))
    assert timers.next_due() == 1.0
    for action in timers.pop_due(2.0):
        action()
    assert ran == ["a", "b", "c"] and timers.next_due() is None
    with pytest.raises(ValueError):
        ManualClock().advance(-1)
    with pytest.raises(ValueError, match="instant"):
        profile("warp")


def test_frames_are_byte_for_byte_the_codec_s(new: Factory) -> None:
    shoe, _host = new(deck=DECK)
    shoe.host_write(codec.encode(m.GetCounters(), 9))
    assert shoe.host_read(0.1) == codec.encode(m.Counters(0, 0, 0, 0, 0, 0, 0), 9)
