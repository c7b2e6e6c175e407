#!/usr/bin/env python3
"""What the one loop's HTTP edge could save: the server's CPU per request, today's edge against a loop's.

Two servers answer ``GET /v1/status`` for the same stub service, each in a process of its own:

- **threads**: today's edge, ``shoe.api.server.ApiServer`` (the accept loop, the waiting room, a worker
  thread per connection, ``http.server``'s request handling with ``shoe.api.head``'s parser, the route table,
  the Host, Origin and site checks, the token, the counters);
- **loop**: an ``asyncio.Protocol`` server in one thread that runs the *same* checks on the same objects
  (``shoe.api.head.parse_lines`` into the same ``HTTPMessage``, ``HostCheck.check`` and ``check_site``,
  ``Authenticator.authorize``, the route's handler, ``json_bytes``) and writes the same head; what it leaves
  out is what the loop design removes (threads, hand-offs, ``http.server``'s file objects), and what it does
  not yet have (the waiting room's and the bounds' bookkeeping, the request log), so its figure is a floor.

A client process sends the requests (``http.client``) on one kept-alive connection, then one connection
per request (the goals bench's way), interleaved with the other server, ``--runs`` times each; the figure
is the server process's CPU (``/proc/PID/stat``, user + system) per request, median of the runs. Since a
two-seat New York round is about 21 requests, 21 times the difference is the most a round's CPU can lose
to the loop's HTTP edge alone (docs/architecture.md, "Next: one loop for all I/O").

    python bench/http_edge.py [--requests N] [--runs N] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import _report as report  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
ROUND_REQUESTS = 21
"""Requests a two-seat New York round makes over HTTP (bench/shift's dealer: open, bets, deal, stub, six
decisions, three reveals, settle, and the deck and round reads between)."""


class _Stub:
    """The service the status route reads: a fixed health body the size of the real one's."""

    def health(self) -> dict[str, Any]:
        return {
            "service": {"version": "0.1.0", "uptime_s": 12.5, "journal": "/var/lib/shoed/journal.sqlite",
                        "journal_seq": 4375, "table": "table-1", "running": True},
            "shoe": {"link": "up", "port": "emu://", "identity": {"model": "EMU-1", "serial": "EMU0001"},
                     "status": {"cards_remaining": 40, "tray_occupied": False}},
            "round": None, "deck": {"state": "checked", "deck_no": 7}, "floor": None, "integrity": None,
        }  # fmt: skip


def _serve_threads(port: int) -> None:
    from shoe import logsetup
    from shoe.api.server import ApiServer

    logsetup.configure("warning")  # as shoed runs in the goals bench: no request log line

    ApiServer(_Stub(), "127.0.0.1", port).start()  # type: ignore[arg-type]
    while True:
        time.sleep(3600)


def _serve_loop(port: int) -> None:
    from shoe.api.auth import Authenticator
    from shoe.api.errors import ApiError, envelope, json_bytes
    from shoe.api.head import parse_lines
    from shoe.api.origin import HostCheck, first, header_index
    from shoe.api.routes import Request, find

    hosts, auth, service = HostCheck("127.0.0.1", port), Authenticator({}), _Stub()

    def answer(head: bytes, local: Any) -> bytes:
        request_line, _, rest = head.partition(b"\r\n")
        method, path, _version = request_line.decode("iso-8859-1").split(" ", 2)
        lines = [line + b"\r\n" for line in rest.split(b"\r\n")[:-1]]
        headers = header_index(parse_lines(lines))
        try:
            hosts.check(headers, local)
            hosts.check_site(headers, method, page=False)
            routes = find(path)
            route = None if routes is None else routes.get(method)
            if route is None:
                raise ApiError("not-found", f"no such path: {path[:200]}")
            role, principal = auth.authorize(first(headers, "authorization"), route.roles)
            reply = route.handler(Request(service, role, None, {}, {}, None, None, lambda: False, principal))  # type: ignore[arg-type]
            status, body = reply.status, reply.body
        except ApiError as exc:
            status, body = exc.http_status, json_bytes(envelope(exc.code, exc.message))
        date = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime())
        return (
            f"HTTP/1.1 {status} OK\r\nServer: shoed\r\nDate: {date}\r\nContent-Type: application/json\r\n"
            f"Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nContent-Length: {len(body)}\r\n\r\n"
        ).encode("latin-1") + body

    class Connection(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            assert isinstance(transport, asyncio.Transport)
            self.transport = transport
            self.local = transport.get_extra_info("sockname")
            self.buffer = b""

        def data_received(self, data: bytes) -> None:
            self.buffer += data
            while (end := self.buffer.find(b"\r\n\r\n")) >= 0:
                head, self.buffer = self.buffer[: end + 4], self.buffer[end + 4 :]
                self.transport.write(answer(head, self.local))

    async def main() -> None:
        server = await asyncio.get_running_loop().create_server(Connection, "127.0.0.1", port)
        async with server:
            await server.serve_forever()

    asyncio.run(main())


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime


def _client(port: int, n: int, keep_alive: bool) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    for _ in range(n):
        if not keep_alive:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/v1/status")
        reply = conn.getresponse()
        reply.read()
        if reply.status != 200:
            raise RuntimeError(f"GET /v1/status answered {reply.status}")
        if not keep_alive:
            conn.close()
    conn.close()


def _measure(kind: str, n: int, keep_alive: bool) -> float:
    """The server's CPU seconds per request over ``n`` requests from a client process."""
    port = _free_port()
    server = subprocess.Popen([sys.executable, __file__, "--serve", kind, str(port)], cwd=ROOT)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                _client(port, 1, True)
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError(f"the {kind} server did not start") from None
                time.sleep(0.05)
        _client(port, 50, keep_alive)  # warm: imports, the first connections
        before = _cpu_s(server.pid)
        client = subprocess.run([sys.executable, __file__, "--client", str(port), str(n), str(int(keep_alive))],
                                cwd=ROOT, check=True)  # fmt: skip
        assert client.returncode == 0
        return (_cpu_s(server.pid) - before) / n
    finally:
        server.kill()
        server.wait()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--requests", type=int, default=4000,
                   help="requests a run, kept-alive connection (default 4,000; a third as many one per connection)")
    p.add_argument("--runs", type=int, default=3, help="interleaved runs of each server (default 3)")
    p.add_argument("--quick", action="store_true", help="1,500 requests, one run each (bench/run --quick)")
    p.add_argument("--serve", nargs=2, metavar=("KIND", "PORT"), help=argparse.SUPPRESS)
    p.add_argument("--client", nargs=3, metavar=("PORT", "N", "KEEP"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.serve:
        (_serve_threads if args.serve[0] == "threads" else _serve_loop)(int(args.serve[1]))
        return 0
    if args.client:
        _client(int(args.client[0]), int(args.client[1]), args.client[2] == "1")
        return 0
    if args.quick:
        args.requests, args.runs = 1500, 1
    for keep_alive, label in ((True, "one kept-alive connection"), (False, "a connection per request")):
        n = args.requests if keep_alive else args.requests // 3
        runs: dict[str, list[float]] = {"threads": [], "loop": []}
        for _ in range(args.runs):
            for kind, taken in runs.items():
                taken.append(_measure(kind, n, keep_alive))
        threads, loop = (statistics.median(runs[k]) * 1e6 for k in ("threads", "loop"))
        if threads <= 0:  # /proc counts CPU in ticks (10 ms): too few requests to measure
            raise SystemExit(f"too few requests to measure in {TICK} ticks a second: use --requests 2000 or more")
        each = {k: ", ".join(f"{v * 1e6:.0f}" for v in runs[k]) for k in runs}
        report.figure(f"server CPU per GET /v1/status, today's edge, {label}", threads, "µs",
                      note=f"median of {args.runs} runs of {n} ({each['threads']} µs)")  # fmt: skip
        report.figure(f"server CPU per GET /v1/status, the same checks on an asyncio loop, {label}", loop, "µs",
                      vs=(loop / threads, "today's edge"),
                      note=f"median of {args.runs} runs of {n} ({each['loop']} µs)")  # fmt: skip
        saved = (threads - loop) * ROUND_REQUESTS / 1000
        report.figure(f"most a two-seat round could save on the loop's edge, {label}", saved, "ms",
                      note=f"{ROUND_REQUESTS} requests a round")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
