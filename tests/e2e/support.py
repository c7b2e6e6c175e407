"""Processes and clients for the end-to-end tests: the emulated shoe on a real pseudo-terminal, the real
``shoed``, its HTTP API and its event stream.

- ``emulate``: ``python -m shoe.cli.main --json emulate --pty --link TMP/shoe0 --deck ...``, a process
  of its own. One deck is one round: that process cannot be given a new deck.
- ``EmuHost``: the same emulator (``EmulatedShoe`` behind ``serve_pty``) in a process of its own that
  also reads commands on stdin: ``load`` a new deck into the emptied shoe (the dealer reloading it
  between rounds) and ``stats``. The crash loop plays many rounds on one shoe with it:
  ``python -m tests.e2e.emulator_host --link TMP/shoe0 --deck ...``.
- ``Shoed``: ``python -m shoe.shoed --config TMP/shoed.toml --port TMP/shoe0 --journal
  TMP/journal.sqlite --http 127.0.0.1:PORT`` (tokens for the four roles in the file, the port picked
  free beforehand so that a restart listens where the clients already point), through real pyserial
  on the pseudo-terminal. Ready once ``GET /v1/status`` answers with the shoe link up. ``kill()`` is
  SIGKILL (a power cut); ``start()`` again recovers on the same journal and the same shoe.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
TOKENS: Mapping[str, str] = {
    "dealer": "e2e-dealer-token-0123456789",
    "technician": "e2e-technician-token-0123456789",
    "observer": "e2e-observer-token-0123456789",
    "table-system": "e2e-table-system-token-0123456789",
}
CARD = re.compile(r"^[2-9TJQKA][cdhs]$")
RANKS, SUITS = "23456789TJQKA", "cdhs"
FULL_DECK: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
READY_TIMEOUT_S = 30.0


def deck(*first: str) -> tuple[str, ...]:
    """A 52-card deck starting with ``first``, the rest in ``FULL_DECK`` order."""
    assert len(set(first)) == len(first) and set(first) <= set(FULL_DECK), first
    return (*first, *(c for c in FULL_DECK if c not in first))


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cards_in(value: object) -> set[str]:
    """Every string in a JSON value that is a card code, at any depth."""
    if isinstance(value, str):
        return {value} if CARD.match(value) else set()
    if isinstance(value, Mapping):
        return set().union(*(cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()


# -- HTTP ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    status: int
    body: Any

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def code(self) -> str | None:
        if isinstance(self.body, dict) and isinstance(self.body.get("error"), dict):
            return str(self.body["error"]["code"])
        return None


class Api:
    """The table's HTTP API on 127.0.0.1:``port``; every call carries the token of ``role``."""

    def __init__(self, port: int) -> None:
        self.port = port

    def call(
        self, method: str, path: str, body: object = None, *, role: str = "dealer", timeout: float = 30.0
    ) -> Reply:
        headers = {"Authorization": f"Bearer {TOKENS[role]}"}
        payload = None
        if method == "POST":
            payload = json.dumps({} if body is None else body).encode()
            headers["Content-Type"] = "application/json"
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, path, body=payload, headers=headers)
            response = conn.getresponse()
            raw = response.read()
        finally:
            conn.close()
        return Reply(response.status, json.loads(raw) if raw else None)

    def post(self, path: str, body: object = None, *, role: str = "dealer") -> Any:
        reply = self.call("POST", path, body, role=role)
        assert reply.ok, f"POST {path} {json.dumps(body)} -> {reply.status} {reply.body}"
        return reply.body

    def get(self, path: str) -> Any:
        reply = self.call("GET", path, role="observer")
        assert reply.ok, f"GET {path} -> {reply.status} {reply.body}"
        return reply.body

    def round(self) -> dict[str, Any] | None:
        view: dict[str, Any] | None = self.get("/v1/round")["round"]
        return view


class EventStream:
    """``GET /v1/events`` read on a thread as an observer: every event, in arrival order.

    Each frame is checked (``id`` is the event's cursor, ``event`` its type); ``raw`` keeps every byte
    received for the secrecy scans.
    """

    def __init__(self, port: int, cursor: int = 0) -> None:
        self.events: list[dict[str, Any]] = []
        self.raw = bytearray()
        self.problems: list[str] = []
        self.closed = False
        self._cond = threading.Condition()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        conn.connect()
        self._sock = conn.sock
        conn.request("GET", f"/v1/events?cursor={cursor}", headers={"Authorization": f"Bearer {TOKENS['observer']}"})
        self._response = conn.getresponse()
        assert self._response.status == 200, self._response.status
        self._thread = threading.Thread(target=self._read, name="sse-reader", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        fields: dict[str, str] = {}
        try:
            while line := self._response.readline():
                self.raw += line
                text = line.decode("utf-8").rstrip("\n")
                if not text:
                    if "data" in fields:
                        self._frame(fields)
                    fields = {}
                elif not text.startswith(":"):
                    name, _, value = text.partition(":")
                    fields[name] = value.removeprefix(" ")
        except (OSError, ValueError):
            pass
        finally:
            with self._cond:
                self.closed = True
                self._cond.notify_all()

    def _frame(self, fields: Mapping[str, str]) -> None:
        event = json.loads(fields["data"])
        if fields.get("id") != str(event.get("cursor")) or fields.get("event") != event.get("type"):
            self.problems.append(f"frame fields {dict(fields)} do not match its data")
        with self._cond:
            self.events.append(event)
            self._cond.notify_all()

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 10.0) -> dict[str, Any]:
        """The first event (already read or still to come) that ``predicate`` accepts."""
        found: list[dict[str, Any]] = []

        def seen() -> bool:
            found[:] = [e for e in self.events if predicate(e)][:1]
            return bool(found) or self.closed

        with self._cond:
            self._cond.wait_for(seen, timeout)
        assert found, f"no such event within {timeout}s; got {[e.get('type') for e in self.events]}"
        return found[0]

    def close(self) -> None:
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_RDWR)
        self._thread.join(timeout=5)
        self._response.close()
        if self._sock is not None:
            self._sock.close()

    def __enter__(self) -> EventStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- processes -----------------------------------------------------------------------------------


def child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


class Proc:
    """A child process whose stderr (and stdout unless piped) goes to ``log``."""

    def __init__(self, name: str, argv: Sequence[str], log: Path, *, pipes: bool = False) -> None:
        self.name, self.log = name, log
        with log.open("ab") as sink:
            self.popen: subprocess.Popen[bytes] = subprocess.Popen(
                list(argv),
                cwd=ROOT,
                env=child_env(),
                stdin=subprocess.PIPE if pipes else subprocess.DEVNULL,
                stdout=subprocess.PIPE if pipes else sink,
                stderr=sink,
            )

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def tail(self, lines: int = 30) -> str:
        try:
            text = self.log.read_text(errors="replace").splitlines()
        except OSError:
            return ""
        return "\n".join(text[-lines:])

    def read_line(self, timeout: float) -> str:
        """One line of the piped stdout, within ``timeout``."""
        out = self.popen.stdout
        assert out is not None
        ready, _, _ = select.select([out], [], [], timeout)
        line = out.readline().decode() if ready else ""
        if not line:
            raise AssertionError(f"{self.name} said nothing (exit {self.popen.poll()}):\n{self.tail()}")
        return line

    def stop(self, timeout: float = 20.0) -> int | None:
        """SIGTERM, wait; ``None`` if it had to be killed."""
        if not self.alive():
            return self.popen.returncode
        self.popen.send_signal(signal.SIGTERM)
        try:
            return self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait(timeout=10)
            return None
        finally:
            for pipe in (self.popen.stdin, self.popen.stdout):
                if pipe is not None:
                    with contextlib.suppress(OSError):
                        pipe.close()


def emulator_argv(
    link: Path, *, deck: Sequence[str] | None = None, seed: int | None = None, key_file: Path | None = None
) -> list[str]:
    argv = [sys.executable, "-m", "shoe.cli.main", "--json", "emulate", "--pty", "--link", str(link)]
    if key_file is not None:  # the shoe paired with the table (SPEC §13): the authenticated link
        argv += ["--key-file", str(key_file)]
    if deck is not None:
        argv += ["--deck", "".join(deck)]
    if seed is not None:
        argv += ["--seed", str(seed)]
    return argv


class EmuHost(Proc):
    """The emulated shoe in its own process, reloadable between rounds (see ``tests.e2e.emulator_host``)."""

    def __init__(self, link: Path, first_deck: Sequence[str], log: Path, key_file: Path | None = None) -> None:
        argv = [sys.executable, "-m", "tests.e2e.emulator_host", "--link", str(link), "--deck", "".join(first_deck)]
        if key_file is not None:
            argv += ["--key-file", str(key_file)]
        super().__init__("emulator host", argv, log, pipes=True)
        self.info = json.loads(self.read_line(READY_TIMEOUT_S))

    def command(self, **cmd: Any) -> dict[str, Any]:
        stdin = self.popen.stdin
        assert stdin is not None
        stdin.write((json.dumps(cmd) + "\n").encode())
        stdin.flush()
        reply: dict[str, Any] = json.loads(self.read_line(10.0))
        assert "error" not in reply, reply
        return reply

    def load(self, codes: Sequence[str]) -> None:
        self.command(load=list(codes))

    def stats(self) -> dict[str, Any]:
        return self.command(stats=True)


class Shoed:
    """The table service as a process; each ``start()`` is a new process on the same journal, port and shoe."""

    def __init__(
        self, root: Path, port_url: str, journal: Path, config: Path, *, http_port: int, procs: list[Proc]
    ) -> None:
        self.root, self.port_url, self.journal, self.config = root, port_url, journal, config
        self.api = Api(http_port)
        self.runs: list[Proc] = []
        self._procs = procs  # every process the fixture stops at teardown

    @property
    def proc(self) -> Proc:
        return self.runs[-1]

    def start(self) -> None:
        assert not self.runs or not self.proc.alive(), "shoed is already running"
        argv = [sys.executable, "-m", "shoe.shoed", "--config", str(self.config), "--port", self.port_url,
                "--journal", str(self.journal), "--http", f"127.0.0.1:{self.api.port}"]  # fmt: skip
        self.runs.append(Proc("shoed", argv, self.root / f"shoed-{len(self.runs)}.log"))
        self._procs.append(self.proc)
        self.wait_ready()

    def wait_ready(self, timeout: float = READY_TIMEOUT_S) -> dict[str, Any]:
        """Poll ``GET /v1/status`` until it answers with the shoe link up (recovery is done by then)."""
        deadline = time.monotonic() + timeout
        last: object = None
        while time.monotonic() < deadline:
            if not self.proc.alive():
                raise AssertionError(f"shoed exited {self.proc.popen.returncode} while starting:\n{self.proc.tail()}")
            try:
                reply = self.api.call("GET", "/v1/status", role="observer", timeout=2.0)
            except OSError as exc:
                last = exc
            else:
                last = reply.body
                if reply.ok and reply.body["shoe"]["link"] == "up" and reply.body["service"]["running"]:
                    status: dict[str, Any] = reply.body
                    return status
            time.sleep(0.05)
        raise AssertionError(f"shoed not ready in {timeout}s (last: {last}):\n{self.proc.tail()}")

    def kill(self) -> None:
        """SIGKILL: a power cut, no stop entry."""
        if self.proc.alive():
            self.proc.popen.send_signal(signal.SIGKILL)
        rc = self.proc.popen.wait(timeout=10)
        assert rc == -signal.SIGKILL, f"shoed had already exited {rc}:\n{self.proc.tail()}"

    def stop(self) -> int | None:
        return self.proc.stop()


# -- journal checks shared by the tests ----------------------------------------------------------------


def card_entries(entries: Sequence[Any]) -> list[Mapping[str, Any]]:
    return [e.data for e in entries if e.kind == "card"]


def duplicates(entries: Sequence[Any]) -> dict[str, int]:
    """Card codes journaled more than once in one round's entries (a card dealt twice)."""
    counts = Counter(d["card"] for d in card_entries(entries) if d.get("card"))
    return {code: n for code, n in counts.items() if n > 1}


# -- the emulator host (run as a module) --------------------------------------------------------------
