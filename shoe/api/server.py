"""The HTTP server: stdlib ``ThreadingHTTPServer``, a thread per open connection (reused), HTTP/1.1 keep-alive, bounded.

``ApiServer(service, host, port, tokens=..., limits=...)`` binds at once (port 0 picks a free port;
``.address`` says which) and refuses a non-loopback host without tokens; ``.start()`` serves on a
thread, ``.stop()`` ends every connection, event streams included.  ``serve(service, config)`` does
both from a ``ServiceConfig``.  The request handler is in ``shoe.api.handler``; the bounds on
connections, streams and request time in ``shoe.api.limits`` (docs/api.md, "Bounds under a flood"):
a new connection takes an ordinary slot and a thread, or waits without one in the waiting room
(``shoe.api.waiting``) until its whole request is in, then takes a reserved slot if its token is
known (a full room evicts its oldest socket for it).  The open-file limit is fitted to the bounds
at construction (``shoe.api.limits.fit_file_limit``).  The thread is a worker
(``shoe.api.workers``) that serves one connection after another, not one started per connection.
"""

from __future__ import annotations

import contextlib
import errno
import selectors
import socket
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import structlog

from shoe.api.auth import Authenticator, check_bind
from shoe.api.exchange import Service
from shoe.api.handler import Handler
from shoe.api.limits import Gate, Limits, RefusalLog, fit_file_limit
from shoe.api.metrics import ApiCounters
from shoe.api.origin import HostCheck
from shoe.api.report import ReportSummary
from shoe.api.starting import Starting
from shoe.api.waiting import WaitingRoom
from shoe.api.workers import Workers
from shoe.service import Role

if TYPE_CHECKING:
    from shoe.people.desk import People

__all__ = ["ApiServer", "serve"]

log = structlog.get_logger("shoe.api")
ACCEPT_WAIT_S = 60.0  # the accept loop's longest sleep: a connection or shutdown() wakes it sooner
ACCEPT_BATCH = 64  # connections taken off the backlog per wake-up, before the loop looks at shutdown()
SHED_ON_EMFILE = 32  # waiting sockets evicted when accept() finds no file descriptor
EMFILE_PAUSE_S = 0.005


@dataclass
class Slot:
    """What a connection's thread holds: its kind of slot (``shoe.api.limits.Gate``) and the bytes
    the waiting room already read from it."""

    kind: str
    prefix: bytes = b""


def _head(data: bytes) -> tuple[str, str, dict[str, str]]:
    """Method, path and lower-cased headers of a request head read by the waiting room."""
    lines = data.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    method, _, rest = lines[0].partition(" ")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers.setdefault(name.strip().lower(), value.strip())
    return method, rest.partition(" ")[0], headers


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], api: ApiServer) -> None:
        self.api = api
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.request_queue_size = api.limits.backlog
        self.connections: set[socket.socket] = set()
        self.slots: dict[socket.socket, Slot] = {}
        self.lock = threading.Lock()
        self.gate = Gate(api.limits, api.counters)
        self.room = WaitingRoom(api.limits, self._admit_waited, api.refusals)
        self.workers: Workers[tuple[socket.socket, Any]] = Workers(self._serve)
        self._wake_r, self._wake_w = socket.socketpair()  # shutdown() writes one byte: the accept loop wakes
        self._wake_w.setblocking(False)
        self._stop_serving = False
        self._served = threading.Event()
        try:
            super().__init__(address, Handler)
        except BaseException:  # the address is taken or not ours: nothing left open
            self._wake_r.close()
            self._wake_w.close()
            raise
        self.socket.setblocking(False)  # accept until the backlog is empty, then back to the select

    def serve_forever(self, poll_interval: float = ACCEPT_WAIT_S) -> None:
        """Accept until ``shutdown()``: one ``select`` on the listening socket and the wake socket, so an idle
        server sleeps instead of polling (the stdlib's loop woke every ``poll_interval``)."""
        self._served.clear()
        try:
            with selectors.DefaultSelector() as selector:
                selector.register(self.socket, selectors.EVENT_READ, "accept")
                selector.register(self._wake_r, selectors.EVENT_READ, "wake")
                while not self._stop_serving:
                    for key, _ in selector.select(poll_interval):
                        if key.data == "accept" and not self._stop_serving:
                            self._accept_one()
        finally:
            self._served.set()

    def _accept_one(self) -> None:
        """Every connection the backlog holds now (``ACCEPT_BATCH`` at most), each as ``socketserver``'s own
        loop takes it: a flood that refills the backlog as fast as it is emptied still leaves the loop."""
        for _ in range(ACCEPT_BATCH):
            try:
                request, client_address = self.get_request()
            except BlockingIOError:
                return
            except OSError as exc:
                if exc.errno in (errno.EMFILE, errno.ENFILE):
                    self._out_of_files()
                return
            self._take(request, client_address)

    def _out_of_files(self) -> None:
        """No descriptor for a new connection: free the oldest waiting sockets, and wait a moment rather than
        spin (the listening socket stays readable while the backlog holds connections)."""
        self.api.refusals.note("out-of-files")
        self.room.shed(SHED_ON_EMFILE)
        time.sleep(EMFILE_PAUSE_S)

    def _take(self, request: socket.socket, client_address: Any) -> None:
        try:
            self.process_request(request, client_address)
        except Exception:
            self.handle_error(request, client_address)
            self.shutdown_request(request)
        except BaseException:
            self.shutdown_request(request)
            raise

    def shutdown(self) -> None:
        """End ``serve_forever`` (on another thread) and wait for it: the wake byte ends its ``select`` at once."""
        self._stop_serving = True
        with contextlib.suppress(OSError):
            self._wake_w.send(b"x")
        self._served.wait()

    def server_close(self) -> None:
        super().server_close()
        self._wake_r.close()
        self._wake_w.close()

    def process_request(self, request: Any, client_address: Any) -> None:
        """On the accept thread: an ordinary slot and a thread, or the waiting room (which may refuse)."""
        if self.gate.take("ordinary"):
            self._start(request, client_address, Slot("ordinary"))
        else:
            self.room.add(request, client_address)

    def _admit_waited(self, sock: socket.socket, client_address: Any, data: bytes) -> str | None:
        """A whole request from the waiting room: a slot and a thread, or the reason for a 503."""
        if self.gate.take("ordinary"):
            self._start(sock, client_address, Slot("ordinary", data))
            return None
        if not self._eligible(data) or not self.gate.take("reserved"):
            return "reserved"
        self._start(sock, client_address, Slot("reserved", data))
        return None

    def _eligible(self, data: bytes) -> bool:
        """A reserved slot serves the dealer display: a known token, any request with no tokens
        configured (loopback only: every caller holds every role), or one of the UI's files."""
        method, path, headers = _head(data)
        if self.api.auth.open or self.api.auth.knows(headers.get("authorization")):
            return True
        return method in ("GET", "HEAD") and (path in ("/", "/ui", "/ui/") or path.startswith("/ui/"))

    def _start(self, request: socket.socket, client_address: Any, slot: Slot) -> None:
        with self.lock:
            self.connections.add(request)
            self.slots[request] = slot
        self.workers.submit((request, client_address))

    def _serve(self, job: tuple[socket.socket, Any]) -> None:
        """On a worker: the connection's requests, then its slot back (``process_request_thread``)."""
        self.process_request_thread(*job)

    def shutdown_request(self, request: Any) -> None:
        with self.lock:
            self.connections.discard(request)
            slot = self.slots.pop(request, None)
        if slot is not None:
            self.gate.release(slot.kind)
        super().shutdown_request(request)


def _follow(service: Service) -> ReportSummary | None:
    """The report's summary, following ``service``'s journal sink (None: a service that cannot be followed)."""
    follow = getattr(service, "follow_journal", None)
    path = getattr(getattr(service, "config", None), "journal", None)
    if follow is None or path is None:
        return None
    summary = ReportSummary(Path(path))
    follow(summary.follow)
    return summary


class ApiServer:
    """The table API over HTTP for one ``TableService``."""

    def __init__(
        self,
        service: Service,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        tokens: Mapping[str, Role] | None = None,
        limits: Limits | None = None,
        people: People | None = None,
        starting: Starting | None = None,
        people_later: bool = False,
    ) -> None:
        tokens = dict(tokens or {})
        check_bind(host, tokens)
        self.service = service
        self.auth = Authenticator(tokens, people)  # people: the employees store, closed with the server
        self.auth.awaiting_people = people is None and people_later  # given by attach_people (shoed, after a status)
        self.limits = fit_file_limit(limits or Limits())
        self.counters = ApiCounters()
        self.refusals = RefusalLog(self.counters)
        self.stopping = threading.Event()
        self.starting = starting  # set: serve before the service is ready, status only (shoe.api.starting)
        self.report = _follow(service)
        self._httpd = _HTTPServer((host, port), self)
        self.hosts = HostCheck(host, self.address[1])
        self._thread: threading.Thread | None = None

    @property
    def address(self) -> tuple[str, int]:
        host, port = self._httpd.server_address[:2]
        return str(host), int(port)

    @property
    def url(self) -> str:
        host, port = self.address
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"

    def start(self) -> ApiServer:
        """Serve; the report's summary starts its rebuild now (the service has opened its journal by then),
        or at :meth:`ready` when the server serves a starting service (``starting``)."""
        self._httpd.room.start()
        if self.report is not None and (self.starting is None or self.starting.is_ready):
            self.report.start()
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="shoe-api", daemon=True)
        self._thread.start()
        limits = self.limits
        log.info(
            "api listening",
            url=self.url,
            auth="open (loopback, no tokens)" if self.auth.open else "bearer",
            connections=limits.connections,
            reserved=limits.reserved,
            streams=limits.streams,
            request_s=limits.request_s,
        )
        return self

    def attach(self, service: Service) -> None:
        """The service built after the server (``shoed``, which serves its first status before): it replaces the
        ``shoe.api.starting.PendingService`` given at construction, and takes the followers kept there."""
        pending, self.service = self.service, service
        for follower in getattr(pending, "followers", ()):
            service.follow_journal(follower)  # type: ignore[attr-defined]
        if hasattr(pending, "service"):
            pending.service = service

    def attach_people(self, people: People) -> None:
        """The employees store, opened after the server's first status (``people_later``): employees' tokens are
        checked from now on (``503 starting`` until then)."""
        self.auth.people = people
        self.auth.awaiting_people = False

    def ready(self) -> None:
        """The service is ready: every route answers from now on, on the same socket; the report's summary starts."""
        if self.starting is None or self.starting.is_ready:
            return
        self.starting.ready()
        if self.report is not None:
            self.report.start()

    def stop(self, grace: float = 5.0) -> None:
        """Stop accepting, end event streams and idle keep-alive connections, and wait (bounded)."""
        self.stopping.set()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join()
        self._httpd.room.stop()
        self._httpd.workers.stop()
        with self._httpd.lock:
            open_now = list(self._httpd.connections)
        for conn in open_now:
            with contextlib.suppress(OSError):  # a handler blocked reading its next request sees end of file
                conn.shutdown(socket.SHUT_RD)
        deadline = time.monotonic() + grace
        while self._httpd.connections and time.monotonic() < deadline:
            time.sleep(0.02)
        self._httpd.server_close()
        if self.report is not None:
            self.report.stop()
        if self.auth.people is not None:
            self.auth.people.flush_failures(every=True)  # the failed sign-ins counted since the last summary
            self.auth.people.store.close()

    def __enter__(self) -> ApiServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _Config(Protocol):
    """What ``serve`` reads of ``shoe.service.ServiceConfig``."""

    @property
    def http_host(self) -> str: ...
    @property
    def http_port(self) -> int: ...
    @property
    def tokens(self) -> Mapping[str, Role]: ...


def serve(service: Service, config: _Config, people: People | None = None) -> ApiServer:
    """Start the API for ``service`` on ``config.http_host:config.http_port`` with ``config.tokens``."""
    return ApiServer(service, config.http_host, config.http_port, tokens=config.tokens, people=people).start()
