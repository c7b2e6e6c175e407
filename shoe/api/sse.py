"""``GET /v1/events``: the service's event stream as Server-Sent Events, resumable from a cursor.

Each event goes out as::

    id: <cursor>
    event: <type>
    data: <the event as one line of JSON>

A client that loses the connection reconnects with ``Last-Event-ID: <the last id it read>`` (a
browser's ``EventSource`` does this by itself) or ``?cursor=<id>``, and gets exactly the events after
it, in order, none twice.  No cursor starts from the oldest event the service still holds.  A comment
line (``: keep-alive``) goes out after 15 s without an event so that proxies and clients can tell a
quiet table from a dead link.  Events come from ``TableService.events_json_since``, already filtered
for card secrecy (the same for every role) and held as the JSON written here, so an event is
serialised once however many streams follow it.

A stream opened with an employee's credential (a sign-in session or an employee's API token) ends
within ``POLL_S`` of that credential ending: sign-out, idle expiry, the employee disabled or removed,
the token revoked (docs/people.md). The check asks the people desk whether the credential is still
live without touching it, so an open stream does not keep an idle session alive.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from shoe.api.errors import ApiError, json_bytes
from shoe.api.exchange import Reply, Request
from shoe.service.journal.feed import Held

__all__ = ["CONTENT_TYPE", "HEARTBEAT_S", "POLL_S", "event_stream", "format_event", "format_held", "parse_cursor"]

CONTENT_TYPE = "text/event-stream; charset=utf-8"
HEARTBEAT_S = 15.0  # a keep-alive comment after this long without an event
POLL_S = 0.25  # the longest single wait on the service, so that a stopping server ends its streams promptly
RETRY_MS = 2000  # the reconnection delay suggested to EventSource clients
KEEP_ALIVE = b": keep-alive\n\n"


def parse_cursor(query: Mapping[str, str], headers: Mapping[str, str]) -> tuple[int, bool]:
    """The cursor to resume after, and whether the client is resuming.

    ``Last-Event-ID`` wins over ``?cursor=``: a reconnecting ``EventSource`` repeats the URL it
    first opened and sends the id it last read in the header.
    """
    raw = headers.get("last-event-id")
    source = "Last-Event-ID"
    if raw is None or not raw.strip():
        raw, source = query.get("cursor"), "cursor"
    if raw is None or not raw.strip():
        return 0, False
    try:
        cursor = int(raw.strip())
    except ValueError:
        raise ApiError("bad-request", f"{source} must be a non-negative integer, not {raw[:40]!r}") from None
    if cursor < 0:
        raise ApiError("bad-request", f"{source} must be a non-negative integer, not {cursor}")
    return cursor, True


def _one_line(text: str) -> str:
    return text.replace("\r", " ").replace("\n", " ")


def format_event(event: Mapping[str, Any]) -> bytes:
    """One event in SSE framing: ``id``, ``event`` and a single ``data`` line, then a blank line."""
    return format_held((int(event["cursor"]), str(event.get("type", "message")), json_bytes(event)))


def format_held(held: Held) -> bytes:
    """:func:`format_event` of an event as the feed holds it (its JSON is one line: ``json_bytes``)."""
    cursor, kind, data = held
    return f"id: {cursor}\nevent: {_one_line(kind)}\ndata: ".encode() + data + b"\n\n"


def _credential_live(req: Request) -> Callable[[], bool]:
    """Whether the employee credential this stream was opened with is still live (always, for none)."""
    who, people = req.principal, req.people
    if people is None or who is None or getattr(who, "employee", None) is None:
        return lambda: True  # a configuration token or the open API: nothing of the people desk ends it
    scheme, _, token = (req.headers.get("authorization") or "").strip().partition(" ")
    token = token.strip()
    return lambda: scheme.lower() == "bearer" and bool(people.known(token))


def event_stream(req: Request) -> Reply:
    live = _credential_live(req)
    cursor, resuming = parse_cursor(req.query, req.headers)
    # The first read happens before the status line goes out, so a cursor the service refuses
    # (one it no longer holds, say) is answered with an ordinary error envelope, not a broken stream.
    first = req.service.events_json_since(cursor, 0.0)
    if first[0] < cursor:  # waiting would hang until the journal caught up with a cursor it never gave
        raise ApiError(
            "cursor-ahead",
            f"cursor {cursor} is ahead of the journal (latest {first[0]}): "
            "the service's journal was replaced; resume with cursor 0",
        )
    if resuming:
        req.counters.resumed()

    def body(write: Callable[[bytes], None]) -> None:
        nonlocal cursor
        write(f"retry: {RETRY_MS}\n\n".encode())
        last_write = time.monotonic()
        pending = first
        with req.counters.stream_open():
            while True:
                next_cursor, events = pending
                for event in events:
                    write(format_held(event))
                cursor = max(cursor, next_cursor)
                now = time.monotonic()
                if events:
                    last_write = now
                elif now - last_write >= HEARTBEAT_S:
                    write(KEEP_ALIVE)
                    last_write = now
                if req.stopping.is_set() or req.client_gone() or not live():
                    return
                wait = min(POLL_S, max(0.0, HEARTBEAT_S - (now - last_write)))
                pending = req.service.events_json_since(cursor, wait)

    headers = {"X-Accel-Buffering": "no", "Connection": "close"}
    return Reply(content_type=CONTENT_TYPE, headers=headers, stream=body)
