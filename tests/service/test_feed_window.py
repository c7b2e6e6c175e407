"""The event feed holds the window a restart refills, no more (RSS: 10,000 held events were ~8 MiB).

A stream resumes (``Last-Event-ID``, docs/api.md "The event stream") from any cursor the feed still holds;
after a restart that is the last ``FEED_REFILL`` entries. A long run now holds the same window, so what a
client can resume does not depend on how long the service has run, and memory stays flat.
"""

from __future__ import annotations

from shoe.service.journal.feed import EventFeed
from shoe.service.journal.sink import FEED_REFILL

TS = "2026-12-01T12:00:00.000Z"


def _published(entries: int) -> EventFeed:
    feed = EventFeed()
    for seq in range(1, entries + 1):  # one event an entry
        feed.publish(seq, TS, "link", None, {"event": "restored", "attempts": 1})
    return feed


def test_a_long_run_holds_the_entries_a_restart_refills() -> None:
    last = 3 * FEED_REFILL
    latest, held = _published(last).since(0, 0.0)
    assert latest == last
    assert [e["cursor"] for e in held] == list(range(last - FEED_REFILL + 1, last + 1))  # sink.open's refill


def test_a_cursor_in_the_window_resumes_exactly_and_an_older_one_from_the_oldest_held() -> None:
    last = 2 * FEED_REFILL
    feed = _published(last)
    _, resumed = feed.since(last - 10, 0.0)
    assert [e["cursor"] for e in resumed] == list(range(last - 9, last + 1))
    _, old = feed.since(5, 0.0)
    assert old[0]["cursor"] == last - FEED_REFILL + 1 and old[-1]["cursor"] == last


def test_held_events_keep_nothing_of_the_entries_they_came_from() -> None:
    """RSS: each held event was a dict that also held the entry's data (~1.5 KiB an event)."""
    import gc
    import weakref

    class Data(dict[str, object]):  # a dict that can be watched for its release
        pass

    feed = EventFeed()
    watched = []
    for seq in range(1, 101):
        journaled = Data(first=1, last=seq)  # a value the projection shows (ALWAYS): it was held as is
        watched.append(weakref.ref(journaled))
        feed.publish(seq, TS, "link", None, {"event": "restored", "attempts": 1, "journaled": journaled})
        del journaled
    gc.collect()
    assert [ref for ref in watched if ref() is not None] == []
    _, held = feed.since(0, 0.0)
    assert [e["cursor"] for e in held] == list(range(1, 101))
    assert held[-1]["journaled"] == {"first": 1, "last": 100}


def test_a_reader_gets_its_own_copy_of_each_event() -> None:
    feed = _published(3)
    _, first = feed.since(0, 0.0)
    first[0]["type"] = "changed by a reader"
    _, again = feed.since(0, 0.0)
    assert again[0]["type"] != "changed by a reader"


def test_a_commit_s_events_wake_the_streams_once_and_are_readable_as_published() -> None:
    """The entries of one commit wake the waiting streams once, after the last of them, not once each."""
    feed = EventFeed()
    wakes: list[int] = []
    notify_all = feed._cond.notify_all

    def counted() -> None:
        wakes.append(feed.latest)
        notify_all()

    feed._cond.notify_all = counted  # type: ignore[method-assign]
    feed.publish(1, TS, "link", None, {"event": "restored", "attempts": 1})
    with feed.publishing():
        for seq in (2, 3, 4):
            feed.publish(seq, TS, "link", None, {"event": "restored", "attempts": 1})
        assert wakes == [1]
        assert [e["cursor"] for e in feed.since(1, 0.0)[1]] == [2, 3, 4]
    assert wakes == [1, 4]
    with feed.publishing():
        pass
    assert wakes == [1, 4]  # nothing published: nobody woken
