"""The HTTP server: stdlib ``ThreadingHTTPServer``, one thread per connection, HTTP/1.1 keep-alive.

``ApiServer(service, host, port, tokens=...)`` binds at once (port 0 picks a free port; ``.address``
says which) and refuses a non-loopback host without tokens; ``.start()`` serves on a thread,
``.stop()`` ends every connection, event streams included.  ``serve(service, config)`` does both
from a ``ServiceConfig``.  The request handler is in ``shoe.api.handler``.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Mapping
from http.server import ThreadingHTTPServer
from typing import Any, Protocol

import structlog

from shoe.api.auth import Authenticator, check_bind
from shoe.api.handler import Handler
from shoe.api.metrics import ApiCounters
from shoe.api.routes import Service
from shoe.service import Role

__all__ = ["ApiServer", "serve"]

log = structlog.get_logger("shoe.api")


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], api: ApiServer) -> None:
        self.api = api
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.connections: set[socket.socket] = set()
        self.lock = threading.Lock()
        super().__init__(address, Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.lock:
            self.connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self.lock:
            self.connections.discard(request)
        super().shutdown_request(request)


class ApiServer:
    """The table API over HTTP for one ``TableService``."""

    def __init__(
        self, service: Service, host: str = "127.0.0.1", port: int = 0, *, tokens: Mapping[str, Role] | None = None
    ) -> None:
        tokens = dict(tokens or {})
        check_bind(host, tokens)
        self.service = service
        self.auth = Authenticator(tokens)
        self.counters = ApiCounters()
        self.stopping = threading.Event()
        self._httpd = _HTTPServer((host, port), self)
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
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.2,), name="shoe-api", daemon=True)
        self._thread.start()
        log.info("api listening", url=self.url, auth="open (loopback, no tokens)" if self.auth.open else "bearer")
        return self

    def stop(self, grace: float = 5.0) -> None:
        """Stop accepting, end event streams and idle keep-alive connections, and wait (bounded)."""
        self.stopping.set()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join()
        with self._httpd.lock:
            open_now = list(self._httpd.connections)
        for conn in open_now:
            with contextlib.suppress(OSError):  # a handler blocked reading its next request sees end of file
                conn.shutdown(socket.SHUT_RD)
        deadline = time.monotonic() + grace
        while self._httpd.connections and time.monotonic() < deadline:
            time.sleep(0.02)
        self._httpd.server_close()

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


def serve(service: Service, config: _Config) -> ApiServer:
    """Start the API for ``service`` on ``config.http_host:config.http_port`` with ``config.tokens``."""
    return ApiServer(service, config.http_host, config.http_port, tokens=config.tokens).start()
