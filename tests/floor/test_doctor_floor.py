"""``shoectl doctor``'s floor check, read from a status document served over real HTTP on loopback."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from shoe.doctor.model import Context, Status
from shoe.doctor.shipping_checks import floor_shipping


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: list[ThreadingHTTPServer] = []

    def start(floor: object) -> str:
        body = json.dumps({"service": {}, "floor": floor}).encode()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for s in servers:
        s.shutdown()
        s.server_close()


BASE = {"table": "MS-01", "url": "postgresql://db/floor", "lag_entries": 0, "lag_seconds": 0.0, "alarm": None,
        "last_error": None, "state": "caught-up"}  # fmt: skip


@pytest.mark.parametrize(
    ("floor", "status", "needle"),
    [
        (None, Status.SKIPPED, "no [floor] section"),
        (BASE, Status.OK, "shipping table MS-01 to postgresql://db/floor: 0 entries, 0.0 s behind"),
        ({**BASE, "state": "down", "last_error": "refused", "lag_entries": 9, "lag_seconds": 4.0}, Status.FAILED,
         "cannot ship table MS-01 to postgresql://db/floor: refused (9 entries, 4.0 s behind"),
        ({**BASE, "state": "refused", "alarm": "entry 8 arrived with hash x"}, Status.FAILED, "refuses this journal"),
        ({**BASE, "lag_seconds": 300.0, "state": "shipping"}, Status.FAILED, "300.0 s behind"),
    ],
)
def test_the_floor_check(serve: Any, floor: object, status: Status, needle: str) -> None:
    result = floor_shipping(Context(service_url=serve(floor)))
    assert result.status is status and needle in result.detail, result


def test_no_service_is_skipped() -> None:
    result = floor_shipping(Context(service_url="http://127.0.0.1:9"))
    assert result.status is Status.SKIPPED
