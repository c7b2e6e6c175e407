"""Through the real ``shoed``: slow connections must not exhaust threads or starve the dealer.

The attack that found it held 984 connections, each sending one header line every 15 s: the server
kept a thread per connection (988) and the dealer could not finish a round; nothing was logged.  Here
300 such connections (one line every 2 s, reopened when the server closes them, as an attacker would)
run against ``shoed`` with its real limits while the dealer opens, closes bets on and voids a round.
"""

from __future__ import annotations

import contextlib
import http.client
import resource
import select
import shutil
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from shoe.api.limits import CONNECTIONS, REQUEST_S, RESERVED, Limits, sockets_needed
from tests.e2e.conftest import Table
from tests.e2e.support import TOKENS, Proc, Shoed

SLOW = 300
ATTACK_S = 25.0  # an upper bound: the attack stops as soon as the test is done with it


def threads_of(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    raise AssertionError(f"no Threads line for pid {pid}")



def _ready(reading: Iterable[socket.socket], writing: Iterable[socket.socket], timeout_s: float) -> tuple[
    list[socket.socket], list[socket.socket]
]:
    """The sockets ready to read (an answer, a close, an error) and to write (connected, or failed).

    poll, not select: select() refuses any descriptor past 1,023, and a flood of 1,000 sockets in a process
    that already holds a few dozen (a test worker) goes past it."""
    poller = select.poll()
    by_fd: dict[int, tuple[socket.socket, bool]] = {}
    for sock in reading:
        by_fd[sock.fileno()] = (sock, True)
        poller.register(sock, select.POLLIN)
    for sock in writing:
        by_fd[sock.fileno()] = (sock, False)
        poller.register(sock, select.POLLOUT)
    readable: list[socket.socket] = []
    writable: list[socket.socket] = []
    for fd, _mask in poller.poll(timeout_s * 1000):
        sock, is_reading = by_fd[fd]
        (readable if is_reading else writable).append(sock)
    return readable, writable

class SlowLoris:
    """``count`` connections that each send a request line, then one header line every ``every_s``."""

    def __init__(self, port: int, count: int, every_s: float = 2.0) -> None:
        self.port, self.count, self.every_s = port, count, every_s
        self.stop = threading.Event()
        self.reopened = 0
        self.opened = threading.Event()  # every connection opened once (a short backlog makes that slow)
        self._thread = threading.Thread(target=self._run, name="slow-loris", daemon=True)

    def _open(self) -> socket.socket | None:
        try:
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=5.0)
            sock.sendall(f"GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n".encode())
        except OSError:
            return None
        return sock

    def _run(self) -> None:
        with ThreadPoolExecutor(32) as pool:  # in parallel: a connect may wait out a full backlog
            socks = [s for s in pool.map(lambda _: self._open(), range(self.count)) if s is not None]
        self.opened.set()
        deadline, line = time.monotonic() + ATTACK_S, 0
        try:
            while not self.stop.wait(self.every_s) and time.monotonic() < deadline:
                line += 1
                kept = []
                for sock in socks:
                    try:
                        sock.sendall(f"X-Slow-{line}: 1\r\n".encode())
                        kept.append(sock)
                    except OSError:
                        sock.close()
                with ThreadPoolExecutor(32) as pool:  # the server closed some: open them again
                    again = [s for s in pool.map(lambda _: self._open(), range(self.count - len(kept))) if s]
                self.reopened += len(again)
                kept += again
                socks = kept
        finally:
            for sock in socks:
                sock.close()

    def __enter__(self) -> SlowLoris:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self._thread.join(timeout=ATTACK_S + 10)


@pytest.fixture
def table(e2e: Callable[..., Table]) -> Iterator[Table]:
    yield e2e(seed=11)


def test_slow_loris_leaves_threads_bounded_and_the_dealer_plays(table: Table) -> None:
    pid = table.shoed.proc.pid
    idle = threads_of(pid)
    with SlowLoris(table.api.port, SLOW) as attack:
        assert attack.opened.wait(ATTACK_S), "the slow connections did not open"
        peak, until = idle, time.monotonic() + 2.0
        while time.monotonic() < until:
            peak = max(peak, threads_of(pid))
            time.sleep(0.1)
        assert peak - idle <= CONNECTIONS + RESERVED, f"{peak} threads (idle {idle}) under {SLOW} slow connections"
        # The dealer's round goes on: each action answered (the reserved slots take a known token).
        seats = [{"seat": 1, "ante": 1000}, {"seat": 2, "ante": 500}]
        table.api.post("/v1/rounds", {"game": "mississippi-stud", "jurisdiction": "NY", "seats": seats})
        table.api.post("/v1/round/no-more-bets")
        table.api.post("/v1/round/void", {"cause": "other"})
        assert table.api.round()["state"] == "misdeal"  # type: ignore[index]
        assert threads_of(pid) - idle <= CONNECTIONS + RESERVED
    conn = http.client.HTTPConnection("127.0.0.1", table.api.port, timeout=10)
    conn.request("GET", "/metrics", headers={"Authorization": f"Bearer {TOKENS['observer']}"})
    metrics = conn.getresponse().read().decode()
    conn.close()
    refused = [line for line in metrics.splitlines() if line.startswith("shoe_api_refused_total{")]
    assert sum(float(line.split()[-1]) for line in refused) > 0, metrics[-600:]
    log = "\n".join(p.log.read_text(errors="replace") for p in table.shoed.runs)
    assert "connections refused" in log  # the flood is in the service log, with its count


def test_a_stalled_request_is_cut_at_the_whole_request_bound(table: Table) -> None:
    port = table.api.port
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(f"GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
        start, answer = time.monotonic(), b""
        for i in range(int(REQUEST_S * 3)):  # one header line a second: every read is quick
            with contextlib.suppress(OSError):
                sock.sendall(f"X-Slow-{i}: 1\r\nAuthorization: Bearer {TOKENS['observer']}\r\n".encode())
            sock.settimeout(1.0)
            try:
                answer = sock.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                break
            break
        cut = time.monotonic() - start
    assert answer.startswith(b"HTTP/1.1 408"), answer[:100]
    assert REQUEST_S - 1.0 <= cut <= REQUEST_S + 3.0, cut


class ReopeningFlood:
    """The attack of the dealer lock-out: ``count`` connections, each a request line then one header line
    every ``every_s``, and each one the server answers or closes opened again at once. One thread,
    non-blocking sockets: 1,000 of them cost the test no thread each."""

    def __init__(self, port: int, count: int, every_s: float = 15.0) -> None:
        self.port, self.count, self.every_s = port, count, every_s
        self.stop = threading.Event()
        self.reopened = 0
        self.failed: str | None = None  # why the flood's thread ended early (a test that never flooded proves nothing)
        self.ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="reopening-flood", daemon=True)

    def _open(self) -> socket.socket | None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            sock.connect(("127.0.0.1", self.port))
        return sock

    def _run(self) -> None:
        pending: dict[socket.socket, float] = {}  # connecting: the request line goes once writable
        live: dict[socket.socket, float] = {}  # sent: the next header line is due at the value
        started = time.monotonic()
        deadline, line = started + ATTACK_S * 2, 0
        try:
            for _ in range(self.count):
                pending[self._open()] = 0.0  # type: ignore[index]
            while not self.stop.is_set() and time.monotonic() < deadline:
                readable, writable = _ready(live, pending, 0.05)
                now = time.monotonic()
                for sock in writable:
                    del pending[sock]
                    try:
                        sock.send(f"GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n".encode())
                        live[sock] = now + self.every_s
                    except OSError:
                        sock.close()
                        pending[self._open()] = 0.0  # type: ignore[index]
                        self.reopened += 1
                for sock in readable:  # an answer (503, 408) or a close: open another at once
                    live.pop(sock, None)
                    sock.close()
                    pending[self._open()] = 0.0  # type: ignore[index]
                    self.reopened += 1
                for sock, due in list(live.items()):
                    if due <= now:
                        line += 1
                        try:
                            sock.send(f"X-Slow-{line}: 1\r\n".encode())
                            live[sock] = now + self.every_s
                        except OSError:
                            del live[sock]
                            sock.close()
                if now >= started + 1.0:  # every connection tried once by now (loopback connects are quick)
                    self.ready.set()
        except Exception as exc:
            self.failed = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            self.ready.set()
            for sock in [*pending, *live]:
                sock.close()

    def __enter__(self) -> ReopeningFlood:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self._thread.join(timeout=30)


def _dealer_get(port: int, path: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        conn.request("GET", path, headers={"Authorization": f"Bearer {TOKENS['dealer']}"})
        response = conn.getresponse()
        response.read()
        return response.status
    except OSError:
        return 0
    finally:
        conn.close()


def test_a_thousand_reopening_slow_connections_leave_the_dealer_every_request(table: Table) -> None:
    """The attack: 1,000 slow connections, reopened at once, tokens on; 37 of 40 dealer GETs got 503
    (a full waiting room refused each new connection before reading it). Now a full room evicts its
    oldest, the dealer's whole request is read at once and takes a reserved slot: all 40 answered."""
    port = table.api.port
    with ReopeningFlood(port, 1000) as flood:
        assert flood.ready.wait(ATTACK_S), "the flood did not open"
        time.sleep(3.0)  # past the waiting room's first cut (2 s): the flood is reopening by now
        reopening_by = time.monotonic() + ATTACK_S  # on a loaded machine the first cut may land later
        while flood.reopened == 0 and time.monotonic() < reopening_by:
            time.sleep(0.1)
        statuses = [_dealer_get(port, "/v1/round" if i % 2 else "/v1/status") for i in range(40)]
        reopened = flood.reopened
    assert flood.failed is None, f"the flood stopped early: {flood.failed}"
    assert statuses == [200] * 40, f"{statuses.count(200)} of 40 answered 200: {statuses}"
    assert reopened > 0, "the flood never reopened: the test did not reproduce the attack"
    assert table.shoed.proc.alive()


class LimitedShoed(Shoed):
    """``shoed`` started under ``prlimit --nofile=SOFT:HARD`` (the same process: prlimit execs it)."""

    def __init__(self, table: Table, nofile: str) -> None:
        super().__init__(table.root, str(table.link), table.journal, table.config, http_port=table.api.port,
                         procs=table.procs)  # fmt: skip
        self.nofile = nofile

    def start(self) -> None:
        argv = ["prlimit", f"--nofile={self.nofile}", "--", sys.executable, "-m", "shoe.shoed", "--config",
                str(self.config), "--port", self.port_url, "--journal", str(self.journal), "--http",
                f"127.0.0.1:{self.api.port}"]  # fmt: skip
        self.runs.append(Proc("shoed", argv, self.root / f"shoed-limited-{len(self.runs)}.log"))
        self._procs.append(self.proc)
        self.wait_ready()


def _open_files(pid: int) -> tuple[int, int]:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return int(soft), int(hard)
    raise AssertionError("no open-file limit in /proc")


def _restart_limited(table: Table, nofile: str) -> LimitedShoed:
    if shutil.which("prlimit") is None:
        pytest.skip("prlimit (util-linux) is not installed")
    assert table.shoed.proc.stop() == 0
    shoed = LimitedShoed(table, nofile)
    shoed.start()
    return shoed


def test_a_low_soft_open_file_limit_is_raised_at_start(table: Table) -> None:
    """A shell's soft limit of 1,024 is below what the bounds hold under a flood: shoed raises it."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    need = sockets_needed(Limits())
    if hard != resource.RLIM_INFINITY and hard < need:
        pytest.skip(f"the hard open-file limit here ({hard}) is below what the bounds need ({need})")
    shoed = _restart_limited(table, f"1024:{'unlimited' if hard == resource.RLIM_INFINITY else hard}")
    soft, _ = _open_files(shoed.proc.pid)
    assert soft >= need, (soft, need)


def test_a_hard_open_file_limit_too_low_still_leaves_the_dealer_served_under_the_flood(table: Table) -> None:
    """Hard limit 1,024, 1,000 reopening slow connections: shoed shrinks its waiting room (and says so)
    instead of running out of descriptors at accept, and the dealer's 40 GETs are all answered (a
    degraded mode: a refusal is allowed one retry, as the display makes)."""
    shoed = _restart_limited(table, "1024:1024")
    port = table.api.port
    with ReopeningFlood(port, 1000) as flood:
        assert flood.ready.wait(ATTACK_S), "the flood did not open"
        time.sleep(3.0)
        statuses = []
        for i in range(40):  # as the display does: a refusal retried once, after its Retry-After
            status = _dealer_get(port, "/v1/round" if i % 2 else "/v1/status")
            if status != 200:
                time.sleep(2.0)
                status = _dealer_get(port, "/v1/round" if i % 2 else "/v1/status")
            statuses.append(status)
    assert flood.failed is None, f"the flood stopped early: {flood.failed}"
    assert statuses == [200] * 40, f"{statuses.count(200)} of 40 answered 200: {statuses}"
    assert shoed.proc.alive()
    assert "open-file limit too low for the HTTP bounds" in shoed.proc.log.read_text(errors="replace")
