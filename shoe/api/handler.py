"""One HTTP request: route, authenticate, check the body, call the service, answer.

Every refusal is the error envelope: the HTTP layer's own (``ApiError``), the service's
(``ServiceError``, with the rule it cites), the stdlib parser's (a malformed request line), and a
bug (``500 internal``, traceback to the log only).  Each request is logged as one line (method,
path, status, role, duration), never with a body: bodies may hold cards once a seat is settled; a
refusal (4xx, 5xx) at info, a success at debug (the journal records every action).

Before anything else a request must name this server in ``Host`` and, when it sends one, come from
this server's own ``Origin`` (``shoe.api.origin``); every POST must say ``Content-Type:
application/json``.  Reads wait only until the whole-request deadline (``shoe.api.limits``): a
request still arriving then is answered ``408`` and the connection closed.
"""

from __future__ import annotations

import contextlib
import io
import logging
import select
import socket
import time
from collections.abc import Mapping
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

import structlog

from shoe.api.errors import ApiError, envelope, json_bytes, service_status
from shoe.api.exchange import ANY, Reply, Request
from shoe.api.head import HeadParsing
from shoe.api.limits import SEND_S, DeadlineReader, RequestClock
from shoe.api.origin import first, header_index
from shoe.api.schema import parse_body
from shoe.api.static import static_reply
from shoe.service import Role, ServiceError

if TYPE_CHECKING:
    from shoe.api.server import _HTTPServer

__all__ = ["MAX_BODY", "Handler"]

MAX_BODY = 64 * 1024
EVENTS_PATH = "/v1/events"  # the one streaming route: it holds a stream slot, not a connection slot
STATUS_PATH = "/v1/status"  # answered while the service starts (shoe.api.starting)
PEOPLE_PATH = "/v1/people"  # managing employees: a configuration technician token may, even with require_sign_in
log = structlog.get_logger("shoe.api")
_stdlog = logging.getLogger("shoe.api")  # structlog's stdlib logger of the same name: its level decides
_date: tuple[int, str] = (0, "")  # the Date header of the current second


def _error(
    status: int,
    code: str,
    message: str,
    *,
    rule: str | None = None,
    headers: Mapping[str, str] | None = None,
    hint: str | None = None,
) -> Reply:
    return Reply(status=status, body=json_bytes(envelope(code, message, rule, hint)), headers=headers or {})


class Handler(HeadParsing, BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # An event stream's writes (and, once, every answer's headers and body) go out in separate
    # sends: with Nagle on, the second waited ~40 ms for the client's delayed ACK (bench/service.py
    # measured 975 -> 75 ms/round on keep-alive).
    disable_nagle_algorithm = True
    timeout = SEND_S  # per send of an answer; reads wait until the request's deadline (RequestClock)
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        limits = self.server.api.limits
        slot = self.server.slots.get(self.connection)
        self._slot_kind = slot.kind if slot else "ordinary"
        self._clock = RequestClock(limits)
        self.rfile.close()  # the socket's own reader: replaced by one bounded by the request's deadline
        reader = DeadlineReader(self.connection, self._clock, limits.send_s, slot.prefix if slot else b"")
        self.rfile = io.BufferedReader(reader)
        self._local = self.connection.getsockname()  # the connection's own address: asked once, not a request
        self._headers_of: dict[str, list[str]] | None = None

    def handle_one_request(self) -> None:
        """One request, read within the idle and whole-request bounds; ``408`` when it did not arrive in time."""
        self._clock.idle()
        self._answered = False
        self._headers_of = None
        try:
            super().handle_one_request()
        except ConnectionError:  # the client went away before its answer was written
            self.close_connection = True
            return
        if not self._clock.expired:
            return
        self.close_connection = True
        if not self._clock.started:
            return  # idle: a keep-alive connection (or one that never spoke) closes quietly
        self.server.api.refusals.note("request-timeout")
        if not self._answered:
            self._answered = True
            self.request_version = "HTTP/1.1"
            self.requestline = getattr(self, "requestline", "")
            self.command = getattr(self, "command", None) or "-"
            with contextlib.suppress(OSError):
                self._send(self._timeout_reply())

    def _timeout_reply(self) -> Reply:
        limits = self.server.api.limits
        message = f"the request did not arrive whole within {limits.request_s:g} s; the connection is closed"
        return _error(408, "request-timeout", message)

    def do_GET(self) -> None:
        self._dispatch()

    def do_POST(self) -> None:
        self._dispatch()

    def do_PUT(self) -> None:
        self._dispatch()

    def do_PATCH(self) -> None:
        self._dispatch()

    def do_DELETE(self) -> None:
        self._dispatch()

    def do_OPTIONS(self) -> None:
        self._dispatch()

    def do_HEAD(self) -> None:
        self._dispatch()

    def do_TRACE(self) -> None:  # no route takes TRACE: 405 with Allow, like any method a path does not take
        self._dispatch()

    def do_CONNECT(self) -> None:
        self._dispatch()

    def version_string(self) -> str:
        return "shoed/1"

    def date_time_string(self, timestamp: float | None = None) -> str:
        """The Date header, formatted once a second, not once a request."""
        if timestamp is not None:
            return super().date_time_string(timestamp)
        global _date  # noqa: PLW0603 - a one-entry cache; a race between threads writes the same value
        second = int(time.time())
        if _date[0] != second:
            _date = (second, super().date_time_string(second))
        return _date[1]

    def log_message(self, format: str, *args: Any) -> None:
        """Silenced: every request gets one structured line from ``_dispatch`` instead."""

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The stdlib's own refusals (a malformed request line, huge headers...) in the error envelope."""
        if code == HTTPStatus.NOT_IMPLEMENTED and getattr(self, "headers", None) is not None:
            self._dispatch()  # a method with no do_X: the path answers 405 with Allow (or 404), not 501
            return
        status = HTTPStatus(code)
        self.close_connection = True
        if self.request_version == "HTTP/0.9":  # the version was not understood: answer with a status line anyway
            self.request_version = "HTTP/1.0"
        log.info("request refused by the HTTP parser", status=code, role="-")
        self._send(_error(code, status.phrase.lower().replace(" ", "-"), message or status.description))

    def _dispatch(self) -> None:
        start = time.monotonic()
        self._role: Role | None = None
        self._body_read = False
        try:
            reply = self._handle()
        except ApiError as exc:
            reply = _error(exc.http_status, exc.code, exc.message, headers=exc.headers)
        except ServiceError as exc:
            reply = _error(service_status(exc), exc.code, exc.message, rule=exc.rule, hint=getattr(exc, "hint", None))
        except Exception:
            log.exception("request failed", method=self.command, path=self._path())
            reply = _error(500, "internal", "internal error; the service log has the details")
        self._clock.done()
        # Counted and logged before the body goes out (after it, for a stream): a client that has its
        # answer finds its request in /metrics and in the log.
        if reply.stream is None:
            self._done(reply.status, start)
        self._send(reply)
        if reply.stream is not None:
            self._done(reply.status, start)

    def _done(self, status: int, start: float) -> None:
        self.server.api.counters.request(self.command, status)
        if status < 400 and not _stdlog.isEnabledFor(logging.DEBUG):
            return  # a success at debug, checked before structlog builds the line
        (log.info if status >= 400 else log.debug)(
            "request",
            method=self.command,
            path=self._path(),
            status=status,
            role=self._role.value if self._role else "-",
            duration_ms=round((time.monotonic() - start) * 1000, 2),
        )

    def _path(self) -> str:
        return urlsplit(self.path).path

    def _handle(self) -> Reply:
        api = self.server.api
        url = urlsplit(self.path)
        headers = self._header_index()
        api.hosts.check(headers, self._local)  # before anything: Host, then Origin
        lowered = {name: values[-1] for name, values in headers.items()}  # the UI's files and the route: the last
        static = static_reply(self.command, url.path, lowered)
        api.hosts.check_site(headers, self.command, page=static is not None)
        if static is not None:  # the UI's files (shoe/ui/static): no token, not in the route table
            return static
        starting = api.starting
        if starting is not None and not starting.is_ready and self.command == "GET" and \
                (url.path.rstrip("/") or "/") == STATUS_PATH:  # fmt: skip
            # The one route answered while shoed starts, without the route table (its modules load after)
            self._role, _ = api.auth.authorize(first(headers, "authorization"), ANY)
            return Reply(body=json_bytes(starting.status()))
        from shoe.api.routes import find  # the table, and every route's module, from the first request that needs it

        routes = find(url.path)
        if routes is None:
            raise ApiError("not-found", f"no such path: {url.path[:200]}")
        route = routes.get(self.command)
        if route is None:
            allow = ", ".join(sorted(routes))
            raise ApiError("method-not-allowed", f"{url.path} takes {allow}", headers={"Allow": allow})
        acting = route.method == "POST" and not route.path.startswith(PEOPLE_PATH)  # managing people: bootstrap
        self._role, principal = api.auth.authorize(first(headers, "authorization"), route.roles, acting=acting)
        if starting is not None and not starting.is_ready:  # after Host, Origin and token: refused as ever
            message, retry = starting.refusal()
            raise ApiError("starting", message, headers=retry)
        if route.path == EVENTS_PATH:
            self._to_stream()
        params = None
        if route.method == "POST":  # every POST, body or not: its content type is checked in _read_body
            params = parse_body(self._read_body(), route.request)  # decoded once, into the action's request type
        request = Request(
            service=api.service,
            role=self._role,
            params=params,
            query=dict(parse_qsl(url.query)),
            headers=lowered,
            stopping=api.stopping,
            counters=api.counters,
            client_gone=self._client_gone,
            principal=principal,
            people=api.auth.people,
            client=str(self.client_address[0]),
            report=api.report,
            starting=api.starting,
        )
        return route.handler(request)

    def _to_stream(self) -> None:
        """Trade this connection's slot for an event-stream slot (streams have their own cap)."""
        if self._slot_kind == "stream":
            return
        slot = self.server.slots.get(self.connection)
        limits = self.server.api.limits
        if slot is None or not self.server.gate.move(slot.kind, "stream"):
            self.server.api.refusals.note("streams")
            raise ApiError(
                "unavailable",
                f"{limits.streams} event streams are open, the most this server keeps; close one or retry",
                headers={"Retry-After": str(limits.retry_after_s)},
            )
        slot.kind = self._slot_kind = "stream"
        self.close_connection = True  # the stream slot is this connection's until it closes

    def _client_gone(self) -> bool:
        """Whether the client closed its end: readable with nothing to read (it sends nothing on a stream)."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    def _header_index(self) -> dict[str, list[str]]:
        """This request's headers by lower-cased name (``origin.header_index``), built at its first lookup."""
        if self._headers_of is None:
            self._headers_of = header_index(self.headers)
        return self._headers_of

    def _read_body(self) -> bytes:
        headers = self._header_index()
        if first(headers, "transfer-encoding"):
            raise ApiError("length-required", "send the body with a Content-Length (chunked bodies are not accepted)")
        lengths = headers.get("content-length") or ["0"]
        if len(lengths) > 1:  # which one frames the body would be a guess (RFC 9112 §6.3): refuse, read nothing
            raise ApiError("bad-request", f"send one Content-Length; this request has {len(lengths)}")
        raw = lengths[0].strip()
        if not (raw.isascii() and raw.isdigit()):  # str.isdigit() also takes "²" (a Latin-1 header byte)
            raise ApiError("bad-request", f"Content-Length must be a non-negative integer, not {raw[:40]!r}")
        length = int(raw)
        if length > MAX_BODY:
            raise ApiError("payload-too-large", f"the body is {length} bytes; the limit is {MAX_BODY}")
        media = (first(headers, "content-type") or "").split(";")[0].strip().lower()
        if media != "application/json":  # on every POST, body or not: a cross-origin page cannot send it unasked
            raise ApiError(
                "unsupported-media-type",
                f"send every POST with Content-Type: application/json (even with no body), not {media or 'none'}",
            )
        try:
            data = self.rfile.read(length)
        except TimeoutError:
            message = f"the request did not arrive whole within {self.server.api.limits.request_s:g} s"
            raise ApiError("request-timeout", message) from None
        if len(data) < length:  # the connection closes after the answer: the stream is out of step
            raise ApiError("bad-request", f"the body ended after {len(data)} of its {length} bytes")
        self._body_read = True
        return data

    def _send(self, reply: Reply) -> None:
        index = self._headers_of  # None when the request line itself was malformed: no headers were read
        length = ((first(index, "content-length") or "0") if index is not None else "0").strip()
        unread = (
            index is not None
            and not getattr(self, "_body_read", False)
            and bool(first(index, "transfer-encoding") or length not in ("", "0"))
        )
        if unread:  # the body was refused unread: it cannot be skipped safely, so the connection ends
            self.close_connection = True
        if getattr(self, "_slot_kind", "ordinary") == "reserved":
            self.close_connection = True  # a reserved slot serves one request: it is back for the next one at once
        self._answered = True
        if reply.stream is None:
            self._send_whole(reply)
            return
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Cache-Control", reply.headers.get("Cache-Control", "no-store"))  # the UI's files revalidate
        self.send_header("X-Content-Type-Options", "nosniff")
        for name, value in reply.headers.items():
            if name != "Cache-Control":
                self.send_header(name, value)
        self.close_connection = True
        self.end_headers()
        self._stream(reply)

    def _send_whole(self, reply: Reply) -> None:
        """An answer with a body in one send: the bytes ``send_response``, ``send_header`` and ``end_headers``
        write, in the same order (status line, Server, Date, the reply's headers, Content-Length, Connection),
        built as one string instead of a call and an encode per header. The UI's files name their own
        Cache-Control (they revalidate); every other answer is ``no-store``. Head and body go out in one send
        (each send is a syscall and a loopback segment); an HTTP/0.9 request gets the body alone."""
        self.log_request(reply.status)
        if self.request_version == "HTTP/0.9":
            if self.command != "HEAD":
                self.wfile.write(reply.body)
            return
        try:
            phrase = self.responses[reply.status][0]
        except KeyError:
            phrase = ""
        lines = [f"{self.protocol_version} {reply.status} {phrase}\r\nServer: {self.version_string()}\r\n"
                 f"Date: {self.date_time_string()}\r\nContent-Type: {reply.content_type}\r\n"
                 f"Cache-Control: {reply.headers.get('Cache-Control', 'no-store')}\r\n"
                 "X-Content-Type-Options: nosniff\r\n"]  # fmt: skip
        for name, value in reply.headers.items():
            if name != "Cache-Control":
                lines.append(f"{name}: {value}\r\n")
                if name.lower() == "connection":  # what send_header does with it
                    lowered = value.lower()
                    if lowered == "close":
                        self.close_connection = True
                    elif lowered == "keep-alive":
                        self.close_connection = False
        lines.append(f"Content-Length: {len(reply.body)}\r\n")
        if self.close_connection:
            lines.append("Connection: close\r\n")
        lines.append("\r\n")
        head = "".join(lines).encode("latin-1", "strict")
        self.wfile.write(head if self.command == "HEAD" else head + reply.body)

    def _stream(self, reply: Reply) -> None:
        assert reply.stream is not None

        def write(data: bytes) -> None:
            self.wfile.write(data)
            self.wfile.flush()

        try:
            reply.stream(write)
        except (ConnectionError, TimeoutError):
            pass  # the client went away: it resumes from its last event id
        except Exception:
            log.exception("event stream failed", path=self._path())
