"""Fixtures of the API tests: a real ``TableService`` on the in-process emulator, served over loopback.

``Client`` speaks plain HTTP/1.1 (``http.client``), one connection per call, and keeps every body it
receives in ``transcript`` so that the secrecy test can scan all of them.
"""

from __future__ import annotations

import http.client
import json
import socket
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from shoe.api import ApiServer
from shoe.service import Role, ServiceConfig, TableService

TOKENS: Mapping[str, Role] = {
    "dealer-token-0123456789": Role.DEALER,
    "technician-token-0123456789": Role.TECHNICIAN,
    "observer-token-0123456789": Role.OBSERVER,
    "table-system-token-0123456789": Role.TABLE_SYSTEM,
}
TOKEN_OF: Mapping[Role, str] = {role: token for token, role in TOKENS.items()}
NY_SEATS = [{"seat": 1, "ante": 1000}, {"seat": 3, "ante": 500}, {"seat": 5, "ante": 2500}]  # cents


class _Own:
    """The client's own token (``token=None`` sends none)."""


OWN = _Own()


@dataclass
class Answer:
    status: int
    headers: http.client.HTTPMessage
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def error(self) -> dict[str, Any]:
        """The error envelope's inner object, checked for its shape."""
        doc = self.json
        assert set(doc) == {"error"}, doc
        assert {"code", "message", "rule"} <= set(doc["error"]) <= {"code", "message", "rule", "hint"}, doc
        assert isinstance(doc["error"]["code"], str)
        assert isinstance(doc["error"]["message"], str)
        assert doc["error"]["rule"] is None or isinstance(doc["error"]["rule"], str)
        return dict(doc["error"])


@dataclass
class Client:
    address: tuple[str, int]
    token: str | None = None
    transcript: list[bytes] = field(default_factory=list)

    def connect(self, timeout: float = 10.0) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(*self.address, timeout=timeout)

    def call(
        self,
        method: str,
        path: str,
        body: object = None,
        *,
        token: str | _Own | None = OWN,
        headers: Mapping[str, str] | None = None,
        raw: bytes | None = None,
    ) -> Answer:
        sent = dict(headers or {})
        use = self.token if isinstance(token, _Own) else token
        if use is not None:
            sent.setdefault("Authorization", f"Bearer {use}")
        payload = raw
        if body is not None:
            payload = json.dumps(body).encode()
        if payload is not None:
            sent.setdefault("Content-Type", "application/json")
        conn = self.connect()
        try:
            conn.request(method, path, body=payload, headers=sent)
            response = conn.getresponse()
            answer = Answer(response.status, response.headers, response.read())
        finally:
            conn.close()
        self.transcript.append(answer.body)
        return answer

    def ok(self, method: str, path: str, body: object = None, **kwargs: Any) -> Any:
        answer = self.call(method, path, body, **kwargs)
        assert answer.status in (200, 201), (method, path, answer.status, answer.body)
        return answer.json

    def post(self, path: str, body: object = None) -> Any:
        return self.ok("POST", path, {} if body is None else body)


def make_config(tmp_path: Path, port: str, tokens: Mapping[str, Role] | None = None) -> ServiceConfig:
    return ServiceConfig(
        shoe_port=port,
        journal=tmp_path / "journal.sqlite",
        http_host="127.0.0.1",
        http_port=0,
        tokens=dict(tokens or {}),
    )


@pytest.fixture
def start_service(tmp_path: Path) -> Iterator[Callable[..., TableService]]:
    started: list[TableService] = []

    def start(port: str = "emu://?seed=7", tokens: Mapping[str, Role] | None = None) -> TableService:
        service = TableService(make_config(tmp_path, port, tokens))
        service.start()
        started.append(service)
        return service

    yield start
    for service in reversed(started):
        service.stop()


@pytest.fixture
def service(start_service: Callable[..., TableService]) -> TableService:
    return start_service()


@pytest.fixture
def api(service: TableService) -> Iterator[ApiServer]:
    """Loopback, no tokens: every request holds every role."""
    with ApiServer(service, "127.0.0.1", 0) as server:
        yield server


@pytest.fixture
def client(api: ApiServer) -> Client:
    return Client(api.address)


@pytest.fixture
def secured(service: TableService) -> Iterator[ApiServer]:
    with ApiServer(service, "127.0.0.1", 0, tokens=TOKENS) as server:
        yield server


@pytest.fixture
def secured_client(secured: ApiServer) -> Client:
    return Client(secured.address)


def open_ny_round(client: Client, seats: list[dict[str, Any]] | None = None) -> Any:
    body = {"game": "mississippi-stud", "jurisdiction": "NY", "seats": seats or NY_SEATS}
    return client.ok("POST", "/v1/rounds", body)


def play_ny_round(client: Client, *, folds: frozenset[int] = frozenset()) -> list[dict[str, Any]]:
    """A whole NY round over HTTP, driven by the round view; the settlement lines.

    Each live seat raises 1x on every street, except those in ``folds``, which fold on third street.
    """
    open_ny_round(client)
    client.post("/v1/round/no-more-bets")
    client.post("/v1/round/deal")
    client.post("/v1/round/release-stub")
    while True:
        view = client.ok("GET", "/v1/round")["round"]
        if (seat := view["next_to_decide"]) is not None:
            client.post("/v1/round/decisions", {"seat": seat, "multiple": 0 if seat in folds else 1})
        elif view["next_reveal"] is not None:
            client.post("/v1/round/reveal", {"index": view["next_reveal"]})
        else:
            break
    if view["next_to_settle"] is None:
        return []
    lines: list[dict[str, Any]] = client.post("/v1/round/settle")["lines"]
    return lines


class SseReader:
    """A raw-socket Server-Sent Events reader, with a timeout per read (http.client cannot resume one)."""

    def __init__(self, address: tuple[str, int], path: str = "/v1/events", headers: Mapping[str, str] | None = None):
        self.sock = socket.create_connection(address, timeout=10)
        lines = [
            f"GET {path} HTTP/1.1",
            f"Host: {address[0]}:{address[1]}",
            *(f"{k}: {v}" for k, v in (headers or {}).items()),
            "",
            "",
        ]
        self.sock.sendall("\r\n".join(lines).encode())
        self.buffer = b""
        self.raw = b""  # everything received, for the secrecy scan
        head = self._until(b"\r\n\r\n", 10.0)
        assert head is not None, "no response head"
        status_line, *header_lines = head.decode().split("\r\n")
        self.status = int(status_line.split()[1])
        self.headers = {k.lower(): v.strip() for k, _, v in (h.partition(":") for h in header_lines)}
        self.comments: list[str] = []
        self.closed = False

    def _until(self, mark: bytes, timeout: float) -> bytes | None:
        deadline = time.monotonic() + timeout
        while mark not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except TimeoutError:
                return None
            if not chunk:
                self.closed = True
                return None
            self.buffer += chunk
            self.raw += chunk
        frame, _, self.buffer = self.buffer.partition(mark)
        return frame

    def frame(self, timeout: float = 5.0) -> dict[str, str] | None:
        """The next frame's fields (comments kept aside in ``comments``); ``None`` on timeout or close."""
        deadline = time.monotonic() + timeout
        while True:
            raw = self._until(b"\n\n", deadline - time.monotonic())
            if raw is None:
                return None
            fields: dict[str, str] = {}
            for line in raw.decode().split("\n"):
                if line.startswith(":"):
                    self.comments.append(line)
                    continue
                name, _, value = line.partition(":")
                fields[name] = value.removeprefix(" ")
            if fields:
                return fields

    def events(self, quiet: float = 0.5) -> list[dict[str, Any]]:
        """Every event until none comes for ``quiet`` seconds, as (checked) decoded data."""
        out = []
        while (fields := self.frame(quiet)) is not None:
            if "retry" in fields:
                continue
            data = json.loads(fields["data"])
            assert fields["id"] == str(data["cursor"])
            assert fields["event"] == data["type"]
            out.append(data)
        return out

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> SseReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- the real shoed process (schemathesis and the hostile-input tests drive it over loopback) ----------


@dataclass
class RealShoed:
    """``shoed`` as its own process on its in-process emulator (``emu://?seed=7``), tokens configured."""

    url: str
    api: Any  # tests.e2e.support.Api: every call carries the token of its role
    proc: Any  # tests.e2e.support.Proc

    def alive(self) -> bool:
        return bool(self.proc.alive())


def _settled(api: Any, quiet_s: float = 0.5, timeout_s: float = 15.0) -> None:
    """Wait until the start's own journal work is done: the deck found at the connect journaled and
    checked, and no entry for ``quiet_s``. The link is up before that work ends (since the
    start was made faster), and a test comparing ``journal_seq`` before and after a refused request must not
    count the start's entries as the request's."""
    deadline = time.monotonic() + timeout_s
    last, since = None, time.monotonic()
    while time.monotonic() < deadline:
        seq = api.get("/v1/status")["service"]["journal_seq"]
        if seq != last:
            last, since = seq, time.monotonic()
        elif time.monotonic() - since >= quiet_s and api.get("/v1/deck")["state"] == "checked":
            return
        time.sleep(0.05)
    raise AssertionError(f"shoed's journal still moving {timeout_s} s after its start (seq {last})")


@pytest.fixture(scope="module")
def real_shoed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealShoed]:
    from tests.e2e.conftest import write_config
    from tests.e2e.support import Proc, Shoed, free_port

    root = tmp_path_factory.mktemp("shoed")
    port = free_port()
    write_config(root / "shoed.toml", port)
    procs: list[Proc] = []
    shoed = Shoed(root, "emu://?seed=7", root / "journal.sqlite", root / "shoed.toml", http_port=port, procs=procs)
    try:
        shoed.start()
        _settled(shoed.api)
        yield RealShoed(f"http://127.0.0.1:{port}", shoed.api, shoed.proc)
    finally:
        for proc in procs:
            proc.stop()
