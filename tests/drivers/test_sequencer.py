"""The event sequencer (SPEC §5): in order, once, cumulative acks, gaps held."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from drivers.sequencer import EventSequencer
from protocols.messages import StackTaken


def ev(n: int) -> StackTaken:
    return StackTaken(n, n)


def test_in_order_delivery_and_ack() -> None:
    s = EventSequencer()
    s.new_boot(1)
    got = s.offer(ev(1))
    assert [e.event_no for e in got.deliver] == [1] and got.ack == 1


def test_gap_is_held_until_filled() -> None:
    s = EventSequencer()
    s.new_boot(1)
    assert s.offer(ev(2)).deliver == [] and s.gap == 1
    got = s.offer(ev(1))
    assert [e.event_no for e in got.deliver] == [1, 2] and got.ack == 2 and s.gap is None


def test_duplicate_is_dropped_and_ack_repeated() -> None:
    s = EventSequencer()
    s.new_boot(1)
    s.offer(ev(1))
    again = s.offer(ev(1))
    assert again.deliver == [] and again.duplicate and again.ack == 1 and s.duplicates == 1


def test_new_boot_restarts_numbering() -> None:
    s = EventSequencer()
    s.new_boot(1)
    s.offer(ev(1))
    s.new_boot(2)
    assert [e.event_no for e in s.offer(ev(1)).deliver] == [1]


@given(st.lists(st.integers(1, 30), max_size=200))
def test_any_arrival_order_delivers_each_once_in_order(arrivals: list[int]) -> None:
    s = EventSequencer()
    s.new_boot(7)
    delivered: list[int] = []
    for n in arrivals + list(range(1, 31)):  # re-sends eventually bring every number
        delivered += [e.event_no for e in s.offer(ev(n)).deliver]
    assert delivered == list(range(1, 31))


@given(st.lists(st.integers(1, 30), max_size=200))
def test_next_in_order_is_what_offer_does(arrivals: list[int]) -> None:
    """The client's fast path (``next_in_order``, then ``offer`` when it declines) delivers, acks and counts
    duplicates exactly as ``offer`` alone, for any arrival order."""
    plain, fast = EventSequencer(), EventSequencer()
    plain.new_boot(1)
    fast.new_boot(1)
    for n in arrivals:
        want = plain.offer(ev(n))
        if fast.next_in_order(ev(n)):
            got = ([ev(n)], n, False)
        else:
            accepted = fast.offer(ev(n))
            got = (accepted.deliver, accepted.ack, accepted.duplicate)
        assert got == (want.deliver, want.ack, want.duplicate)
        assert (fast.last_delivered, fast.gap, fast.duplicates) == (plain.last_delivered, plain.gap, plain.duplicates)
