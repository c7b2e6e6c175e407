"""HTTP and Server-Sent Events probes for the service benchmarks: a small keep-alive client and a
raw-socket event-stream reader that stamps each event on arrival (time.monotonic)."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
import time
from collections.abc import Callable
from typing import Any, Self
from urllib.parse import urlsplit


class HttpError(RuntimeError):
    pass


class Http:
    """JSON over HTTP/1.1 to one service: one keep-alive connection, or (``fresh``) one per request."""

    def __init__(self, url: str, *, fresh: bool = False) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.fresh = fresh
        self._conn: http.client.HTTPConnection | None = None

    def _request(self, method: str, path: str, body: bytes | None, headers: dict[str, str]) -> tuple[int, bytes]:
        if self.fresh:
            headers = {**headers, "Connection": "close"}
        reused = self._conn is not None
        if self._conn is None:
            self._conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        try:
            self._conn.request(method, path, body=body, headers=headers)
            reply = self._conn.getresponse()
            data = reply.read()
        except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
            self.close()
            if not reused:
                raise
            # The service closes a keep-alive connection idle for 5 s (shoe/api/limits.py IDLE_S): reconnect once.
            return self._request(method, path, body, headers)
        except BaseException:
            self.close()
            raise
        if self.fresh or reply.will_close:
            self.close()
        return reply.status, data

    def post(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        payload = json.dumps(body or {}).encode()
        status, data = self._request("POST", path, payload, {"Content-Type": "application/json"})
        if status >= 300:
            raise HttpError(f"POST {path}: {status} {data[:300]!r}")
        return dict(json.loads(data))

    def request_json(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        """The status and the decoded JSON body, whatever the status (an API error is a JSON envelope)."""
        payload = json.dumps(body or {}).encode() if method != "GET" else None
        headers = {"Content-Type": "application/json"} if payload is not None else {}
        status, data = self._request(method, path, payload, headers)
        return status, json.loads(data) if data else {}

    def get(self, path: str) -> bytes:
        status, data = self._request("GET", path, None, {})
        if status >= 300:
            raise HttpError(f"GET {path}: {status} {data[:300]!r}")
        return data

    def get_json(self, path: str) -> dict[str, Any]:
        return dict(json.loads(self.get(path)))

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


class SseReader:
    """``GET /v1/events?cursor=N`` on a raw socket; ``events`` holds ``(time.monotonic() at receipt, event)``.

    The receipt time is taken right after the ``recv`` that completed the event's frame, in a thread
    that does nothing else.
    """

    def __init__(self, url: str, cursor: int) -> None:
        parts = urlsplit(url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 80
        self.events: list[tuple[float, dict[str, Any]]] = []
        self._cond = threading.Condition()
        self._error: str | None = None
        self._sock = socket.create_connection((host, port), timeout=10)
        request = f"GET /v1/events?cursor={cursor} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: text/event-stream\r\n\r\n"
        self._sock.sendall(request.encode())
        self._sock.settimeout(None)
        self._thread = threading.Thread(target=self._run, name="bench-sse", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        buf = b""
        head_done = False
        try:
            while chunk := self._sock.recv(65536):
                now = time.monotonic()
                buf += chunk
                if not head_done:
                    head, sep, rest = buf.partition(b"\r\n\r\n")
                    if not sep:
                        continue
                    if b" 200 " not in head.split(b"\r\n", 1)[0]:
                        raise HttpError(f"GET /v1/events: {head[:200]!r}")
                    buf, head_done = rest, True
                got = []
                while b"\n\n" in buf:
                    block, _, buf = buf.partition(b"\n\n")
                    for line in block.split(b"\n"):
                        if line.startswith(b"data: "):
                            got.append((now, json.loads(line[6:])))
                if got:
                    with self._cond:
                        self.events.extend(got)
                        self._cond.notify_all()
        except OSError:
            pass
        except Exception as exc:  # reported by wait_for
            self._error = repr(exc)
        with self._cond:
            self._error = self._error or "the event stream ended"
            self._cond.notify_all()

    def wait_for(self, done: Callable[[list[tuple[float, dict[str, Any]]]], bool], timeout: float = 30.0) -> None:
        """Wait until ``done(events)`` holds."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not done(self.events):
                if self._error is not None:
                    raise HttpError(f"event stream: {self._error}")
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError("event stream: the awaited events did not come")
                self._cond.wait(remaining)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()
        self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- the children ---------------------------------------------------------------------------------------
