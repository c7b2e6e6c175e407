"""``shoed`` answers ``GET /v1/status`` while it starts, and every other route ``503 starting``, on the socket
it keeps serving once ready (``shoe.api.starting``): a real process, its shoe held silent until the test lets
it through a gate, so the start is observed, not raced."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import queue
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.emulator import EmulatedShoe, EmulatorConfig
from drivers.emulator.serve import serve_tcp

ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 30.0


class ShoeGate:
    """A TCP shoe that says nothing (what shoed sends is dropped) until :meth:`open`, then pipes to the emulator."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.opened = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._socks: list[socket.socket] = []
        self._threads: list[threading.Thread] = []
        self._spawn(self._accept)

    def _spawn(self, target: Any, *args: Any) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        self._threads.append(thread)
        thread.start()

    def open(self) -> None:
        self.opened.set()

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                conn, _ = self._listener.accept()
                self._socks.append(conn)
                self._spawn(self._serve, conn)

    def _serve(self, conn: socket.socket) -> None:
        conn.settimeout(0.05)
        while not self.opened.is_set():  # swallow the IDENTIFY tries: the shoe seems powered off
            with contextlib.suppress(TimeoutError):
                if conn.recv(4096) == b"":
                    return
        conn.settimeout(None)
        shoe = socket.create_connection(self.target)
        self._socks.append(shoe)
        self._spawn(self._pipe, shoe, conn)
        self._pipe(conn, shoe)

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(4096):
                dst.sendall(data)

    def close(self) -> None:
        self.opened.set()
        for sock in (self._listener, *self._socks):  # shutdown wakes a thread blocked in accept() or recv()
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        for thread in self._threads:
            thread.join(5)
        for sock in (self._listener, *self._socks):
            sock.close()


class Shoed:
    """``python -m shoe.shoed`` with its log lines on a queue; ``url`` from its ``service starting`` line."""

    def __init__(self, port: str, journal: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "shoe.shoed", "--port", port, "--journal", str(journal), "--http", "127.0.0.1:0"],
            cwd=ROOT, env=dict(os.environ), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            with contextlib.suppress(ValueError):
                self.lines.put(json.loads(line))
        self.lines.put(None)

    def wait_for(self, event: str) -> dict[str, Any]:
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            if line is None:
                raise AssertionError(f"shoed exited with {self.proc.wait()} before {event!r}: {self.seen}")
            self.seen.append(line)
            if line.get("event") == event:
                return line
        raise AssertionError(f"no {event!r} in {WAIT_S} s")

    def close(self) -> int:
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            return self.proc.wait(WAIT_S)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


def _get(conn: http.client.HTTPConnection, path: str, headers: dict[str, str] | None = None) -> tuple[int, Any, Any]:
    conn.request("GET", path, headers=headers or {})
    reply = conn.getresponse()
    return reply.status, reply.headers, json.loads(reply.read() or b"null")


@pytest.fixture
def gated(tmp_path: Path) -> Iterator[tuple[ShoeGate, Shoed, str]]:
    emulated = EmulatedShoe(EmulatorConfig(seed=7))
    server = serve_tcp(emulated)
    gate = ShoeGate(server.address)
    shoed = Shoed(f"socket://127.0.0.1:{gate.port}", tmp_path / "journal.sqlite")
    try:
        url = str(shoed.wait_for("service starting")["http"])
        yield gate, shoed, url
    finally:
        gate.open()
        assert shoed.close() == 0
        gate.close()
        server.close()
        emulated.close()  # its timer thread, started by a deck load


def _conn(url: str) -> http.client.HTTPConnection:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    return http.client.HTTPConnection(host, int(port), timeout=WAIT_S)


def test_status_answers_while_starting_and_the_rest_waits_then_all_of_it_works(
    gated: tuple[ShoeGate, Shoed, str],
) -> None:
    gate, shoed, url = gated
    conn = _conn(url)  # one keep-alive connection, opened while starting and kept across the hand-over
    steps: list[str] = []
    deadline = time.monotonic() + WAIT_S
    while not steps or steps[-1] != "journal-and-shoe":  # held there: the shoe says nothing until the gate opens
        assert time.monotonic() < deadline, steps
        status, _, body = _get(conn, "/v1/status")
        assert (status, body["service"]["state"], body["service"]["running"]) == (200, "starting", False)
        assert body["service"]["journal_seq"] is None and body["shoe"]["link"] == "down"
        steps.append(body["service"]["step"])
    order = ["loading", "journal-and-shoe"]  # the lock is taken before the first answer; the steps never go back
    assert set(steps) <= set(order) and steps == sorted(steps, key=order.index), steps
    status, headers, body = _get(conn, "/v1/round")
    assert (status, body["error"]["code"], headers["Retry-After"]) == (503, "starting", "1")
    gate.open()
    shoed.wait_for("service ready")
    status, _, body = _get(conn, "/v1/status")
    assert status == 200
    assert (body["service"]["state"], body["service"]["running"], body["shoe"]["link"]) == ("ready", True, "up")
    status, _, body = _get(conn, "/v1/round")
    assert status == 200 and "round" in body
    conn.close()


def test_hostile_requests_are_refused_as_before_while_starting(gated: tuple[ShoeGate, Shoed, str]) -> None:
    _, _, url = gated
    conn = _conn(url)
    status, _, body = _get(conn, "/v1/status", {"Host": "evil.example"})
    assert (status, body["error"]["code"]) == (403, "foreign-host")
    conn = _conn(url)
    status, _, body = _get(conn, "/v1/round", {"Origin": "http://evil.example"})
    assert (status, body["error"]["code"]) == (403, "foreign-origin")
    conn = _conn(url)
    status, _, body = _get(conn, "/v1/no-such-path")
    assert (status, body["error"]["code"]) == (404, "not-found")


def test_a_second_shoed_on_the_journal_is_refused_while_the_first_starts(
    gated: tuple[ShoeGate, Shoed, str], tmp_path: Path
) -> None:
    gate, _, _ = gated
    second = Shoed(f"socket://127.0.0.1:{gate.port}", tmp_path / "journal.sqlite")
    assert second.proc.wait(WAIT_S) == 2
    assert second.proc.stderr is not None
    time.sleep(0.2)  # its reader has the last lines
    events = []
    while (line := second.lines.get(timeout=5)) is not None:
        events.append(line.get("event"))
    assert "cannot start: the journal is in use" in events
    assert "service starting" not in events  # it never served


def test_a_shift_started_with_shoed_waits_until_it_is_ready(gated: tuple[ShoeGate, Shoed, str]) -> None:
    """``bench/shift`` run right after ``shoed`` (the README's order) meets the status that answers while the
    service starts: it waits, says so, and deals once the service is ready, instead of failing on a 503."""
    gate, _, url = gated
    shift = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "shift"), "--http", url.removeprefix("http://"), "--rounds", "1",
         "--seats", "1", "--load", "--json", "--timeout", str(WAIT_S)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        time.sleep(1.0)  # the shift has asked for the status and found the service starting
        assert shift.poll() is None, shift.communicate()
        gate.open()
        out, err = shift.communicate(timeout=WAIT_S * 2)
    finally:
        if shift.poll() is None:
            shift.kill()
            shift.communicate()
    assert shift.returncode == 0, (out, err)
    assert "shoed is starting" in err and json.loads(out)["rounds"] == 1, (out, err)
