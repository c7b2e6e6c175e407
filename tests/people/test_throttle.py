"""The sign-in back-off and its summaries on their own (shoe/people/throttle.py), with the time passed in."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from shoe.people.throttle import SUMMARY_KEYS, SignInThrottle, client_key


def test_a_failing_client_waits_twice_as_long_each_time_up_to_the_cap() -> None:
    throttle = SignInThrottle(3, base_s=1.0, max_s=8.0)
    now = 0.0
    for _ in range(3):
        assert not throttle.backed_off("b1", "c1", now)
        throttle.failed("b1", "c1", now)
    waits = []
    for _ in range(6):
        assert throttle.backed_off("b2", "c1", now)  # any badge: the client is held
        start = now
        while throttle.backed_off("b2", "c1", now):
            now += 0.25
        waits.append(now - start)
        throttle.failed("b2", "c1", now)
    assert waits == [1.0, 2.0, 4.0, 8.0, 8.0, 8.0]


def test_a_badges_back_off_holds_only_the_clients_that_failed_on_it() -> None:
    throttle = SignInThrottle(2)
    for n in range(6):  # six addresses, one guess each: the badge backs off, no client does
        throttle.failed("1001", f"10.0.0.{n}", 0.0)
    assert throttle.backed_off("1001", "10.0.0.1", 0.1)  # failed on it before: waits
    assert not throttle.backed_off("1001", "10.0.0.99", 0.1)  # the display that has not failed: signs in
    assert not throttle.backed_off("2002", "10.0.0.1", 0.1)  # another badge: that client is not held
    throttle.forget_badge("1001")  # a PIN reset
    assert not throttle.backed_off("1001", "10.0.0.1", 0.1)


def test_failures_are_forgotten_after_a_quiet_spell_and_a_right_pin_clears_its_client() -> None:
    throttle = SignInThrottle(1, forget_s=100.0)
    throttle.failed("b", "c", 0.0)
    throttle.failed("b", "c", 0.0)
    assert throttle.backed_off("x", "c", 0.5)
    assert not throttle.backed_off("x", "c", 200.0)
    throttle.failed("b", "d", 300.0)
    throttle.failed("b", "d", 300.0)
    throttle.succeeded("b", "d")
    assert not throttle.backed_off("x", "d", 300.1)


def test_a_window_is_one_entry_at_once_and_one_with_the_rest_when_it_closes() -> None:
    throttle = SignInThrottle(window_s=60.0)
    first = throttle.note("d-1", "Dana", "c", "wrong-pin", 0.0)
    assert first is not None and (first.part, first.count) == ("first", 1)
    for n in range(99):
        assert throttle.note("d-1", "Dana", "c", "backed-off" if n % 2 else "wrong-pin", 1.0) is None
    assert throttle.closed(30.0) == []
    (rest,) = throttle.closed(60.0)
    assert (rest.part, rest.count, rest.reasons) == ("rest", 99, {"wrong-pin": 50, "backed-off": 49})
    assert throttle.closed(120.0) == []


def test_past_the_bound_addresses_are_pooled() -> None:
    throttle = SignInThrottle()
    made = [throttle.note(None, None, f"c{n}", "unknown-badge", 0.0) for n in range(SUMMARY_KEYS + 50)]
    assert sum(1 for m in made if m is not None) == SUMMARY_KEYS + 1  # the bound, then one for "*"
    assert made[-50] is not None and made[-50].client == "*"


@given(st.integers(0, 2**128 - 1), st.integers(0, 2**64 - 1))
def test_an_ipv6_client_is_counted_by_its_64(address: int, low: int) -> None:
    import ipaddress

    one = ipaddress.IPv6Address(address)
    other = ipaddress.IPv6Address((address >> 64 << 64) | low)
    if one.ipv4_mapped is None and other.ipv4_mapped is None:
        assert client_key(str(one)) == client_key(str(other))
        assert client_key(str(one)).endswith("/64")


def test_an_ipv4_client_and_its_mapped_form_are_one() -> None:
    assert client_key("192.0.2.7") == client_key("::ffff:192.0.2.7") == "192.0.2.7"
