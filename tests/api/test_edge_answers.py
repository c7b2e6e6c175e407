"""Edge answers through the real ``shoed``, tokens on and open (loopback, no tokens): every malformed
body is a 400, every header a decision rests on counts once, and another site's page opens no stream.

The attack, as it was run: ``POST /v1/sessions`` with ``{"badge":1.0,"pin":NaN}`` answered 500 with
no token; duplicate JSON keys were accepted (the last one won); two ``Origin`` headers, this server's
own first, passed the origin check (it read the first); 16 cross-site no-cors GETs of ``/v1/events``
(a browser sends no ``Origin`` on those) took every stream slot in open mode. Each is replayed here
over raw sockets, and the steps sideways (the other header, the other depth, tokens on) with it.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from shoe.api.limits import STREAMS
from tests.api.conftest import _settled
from tests.e2e.support import TOKENS, Proc, Shoed, free_port

DEALER = TOKENS["dealer"]


@dataclass
class Raw:
    status: int
    headers: dict[str, list[str]]
    body: bytes

    @property
    def code(self) -> str | None:
        try:
            return str(json.loads(self.body)["error"]["code"])
        except (ValueError, KeyError, TypeError):
            return None


@dataclass
class Served:
    port: int
    shoed: Shoed
    tokens: bool

    def send(self, head: list[str], body: bytes = b"") -> Raw:
        """One request written exactly as given (repeated headers kept), the answer's head and body."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=15) as sock:
            lines = [*head, f"Content-Length: {len(body)}"] if body else head
            sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = sock.recv(65536)
                assert chunk, f"closed before an answer: {data!r}"
                data += chunk
            top, _, rest = data.partition(b"\r\n\r\n")
            status_line, *header_lines = top.decode("latin-1").split("\r\n")
            headers: dict[str, list[str]] = {}
            for line in header_lines:
                name, _, value = line.partition(":")
                headers.setdefault(name.strip().lower(), []).append(value.strip())
            length = int(headers.get("content-length", ["0"])[0])
            while "content-length" in headers and len(rest) < length:  # a stream has none: its head is enough
                chunk = sock.recv(65536)
                if not chunk:
                    break
                rest += chunk
        return Raw(int(status_line.split()[1]), headers, rest)

    def request(self, method: str, path: str, *extra: str, token: str | None = None, body: bytes = b"") -> Raw:
        head = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{self.port}", "Connection: close", *extra]
        if token is not None:
            head.append(f"Authorization: Bearer {token}")
        if method == "POST":
            head.append("Content-Type: application/json")
        return self.send(head, body)

    def seq(self) -> int:
        return int(self.shoed.api.get("/v1/status")["service"]["journal_seq"])


def _start(root: Path, *, tokens: bool) -> tuple[Shoed, int, list[Proc]]:
    port = free_port()
    config = root / "shoed.toml"
    lines = ["[shoe]\ntake_timeout = 5", f'[http]\nhost = "127.0.0.1"\nport = {port}', '[service]\ntable = "edge"']
    if tokens:
        lines.append("[tokens]\n" + "\n".join(f'{role} = "{token}"' for role, token in TOKENS.items()))
    config.write_text("\n".join(lines) + "\n")
    procs: list[Proc] = []
    shoed = Shoed(root, "emu://?seed=7", root / "journal.sqlite", config, http_port=port, procs=procs)
    shoed.start()
    _settled(shoed.api)  # the start's own journal entries (the deck's check) are done before a test compares seq
    return shoed, port, procs


@pytest.fixture(scope="module", params=["tokens", "open"])
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tokens = request.param == "tokens"
    shoed, port, procs = _start(tmp_path_factory.mktemp(f"edge-{request.param}"), tokens=tokens)
    try:
        yield Served(port, shoed, tokens)
    finally:
        for proc in procs:
            proc.stop()


def _token(served: Served) -> str | None:
    return DEALER if served.tokens else None


# -- bodies: 400 for every malformed one, before anything reads it ---------------------------------------

NY = b'{"game": "mississippi-stud", "jurisdiction": "NY", "seats": [%s]}'
BODIES: list[tuple[str, bytes, str]] = [
    ("/v1/sessions", b'{"badge":1.0,"pin":NaN}', "NaN"),  # the attack: a 500 with no token
    ("/v1/sessions", b'{"badge":"a","pin":Infinity}', "Infinity"),
    ("/v1/sessions", b'{"badge":"b-1","badge":"b-2","pin":"1234"}', "appears twice"),
    ("/v1/sessions", b'{"badge":"\\ud800","pin":"1234"}', "surrogate"),
    ("/v1/sessions", b'{"badge":["b-1"],"pin":1234}', "$.badge"),
    ("/v1/rounds", NY % b'{"seat": 1, "ante": 500, "ante": 0}', "$.seats[0]: the member name 'ante' appears twice"),
    ("/v1/rounds", b'{"game": "mississippi-stud", "game": "seven-card-stud", "seats": []}', "appears twice"),
    ("/v1/rounds", NY % b'{"seat": 1, "ante": -Infinity}', "$.seats[0].ante"),
    ("/v1/rounds", NY % b'{"seat": 1, "ante": 1e999}', "out of range"),
    ("/v1/round/void", b'{"cause": "other", "cause": "shoe-discrepancy"}', "appears twice"),
    ("/v1/round/void", b'\xef\xbb\xbf{"cause": "other"}', "byte-order mark"),
    ("/v1/people", b'{"id": "x", "id": "y"}', "appears twice"),
]  # fmt: skip


@pytest.mark.parametrize(("path", "raw", "says"), BODIES, ids=[f"{p}:{r[:40]!r}" for p, r, _ in BODIES])
def test_a_malformed_body_is_a_400_with_or_without_a_token_and_changes_nothing(
    served: Served, path: str, raw: bytes, says: str
) -> None:
    before = served.seq()
    bad = 0
    for token in (None, _token(served), TOKENS["technician"] if served.tokens else None):
        answer = served.request("POST", path, token=token, body=raw)
        if served.tokens and answer.status in (401, 403):
            continue  # a route that wants another token (or one) refuses before it reads the body
        assert (answer.status, answer.code) == (400, "bad-request"), (token, answer)
        assert says in json.loads(answer.body)["error"]["message"], answer.body
        bad += 1
    assert bad, "no caller got as far as the body"
    assert served.shoed.proc.alive()
    assert served.seq() == before, "a refused body moved the journal"


# -- headers a decision rests on: each once, or 403 --------------------------------------------------------


def test_two_origin_headers_are_refused_even_with_the_own_one_first(served: Served) -> None:
    own = f"Origin: http://127.0.0.1:{served.port}"
    token = [f"Authorization: Bearer {DEALER}"] if served.tokens else []
    for origins in ([own, "Origin: http://evil.example"], [own, own], ["Origin: http://evil.example", own]):
        before = served.seq()
        head = ["POST /v1/round/void HTTP/1.1", f"Host: 127.0.0.1:{served.port}", *origins, *token,
                "Content-Type: application/json", "Connection: close"]  # fmt: skip
        answer = served.send(head, b'{"cause": "other"}')
        assert answer.status == 403, answer
        assert answer.code in ("ambiguous-header", "foreign-origin"), answer
        assert served.seq() == before
    one = served.request("GET", "/v1/status", own, token=_token(served))
    assert one.status == 200, one  # the own Origin once is still fine


@pytest.mark.parametrize(
    "twice",
    [
        ["Authorization: Bearer " + DEALER, "Authorization: Bearer nobody"],
        ["Sec-Fetch-Site: same-origin", "Sec-Fetch-Site: cross-site"],
        ["Sec-Fetch-Mode: navigate", "Sec-Fetch-Mode: no-cors"],
        ["Content-Type: application/json", "Content-Type: text/plain"],
        ["Authorization: Bearer " + DEALER, "AUTHORIZATION: Bearer nobody"],  # a name's case makes no other header
        ["Sec-Fetch-Site: same-origin", "sec-fetch-site: cross-site"],
    ],
    ids=["authorization", "sec-fetch-site", "sec-fetch-mode", "content-type", "authorization-cased", "site-cased"],
)
def test_any_header_a_decision_rests_on_is_refused_twice(served: Served, twice: list[str]) -> None:
    before = served.seq()
    head = [
        "POST /v1/round/void HTTP/1.1",
        f"Host: 127.0.0.1:{served.port}",
        *twice,
        "Connection: close",
    ]
    if not twice[0].startswith("Authorization") and served.tokens:
        head.append(f"Authorization: Bearer {DEALER}")
    if not twice[0].startswith("Content-Type"):
        head.append("Content-Type: application/json")
    answer = served.send(head, b'{"cause": "other"}')
    assert (answer.status, answer.code) == (403, "ambiguous-header"), answer
    assert served.seq() == before


def test_two_host_headers_stay_a_400(served: Served) -> None:
    head = ["GET /v1/status HTTP/1.1", f"Host: 127.0.0.1:{served.port}", "Host: evil.example", "Connection: close"]
    assert served.send(head).status == 400


# -- event streams: another site's page opens none ---------------------------------------------------------

NO_CORS = ["Sec-Fetch-Site: cross-site", "Sec-Fetch-Mode: no-cors", "Sec-Fetch-Dest: empty"]


def test_cross_site_no_cors_stream_requests_are_refused_and_take_no_slot(served: Served) -> None:
    """The attack: as many cross-site no-cors GETs of the stream as it has slots (no Origin: a browser
    sends none on those), each held open. Now each is ``403 cross-site`` and the display's stream opens."""
    held: list[socket.socket] = []
    try:
        for _ in range(STREAMS):
            sock = socket.create_connection(("127.0.0.1", served.port), timeout=15)
            held.append(sock)
            lines = ["GET /v1/events HTTP/1.1", f"Host: 127.0.0.1:{served.port}", *NO_CORS]
            if served.tokens:  # sideways: a token does not make another site's request the display's
                lines.append(f"Authorization: Bearer {TOKENS['observer']}")
            sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
            first = sock.recv(4096)
            assert first.startswith(b"HTTP/1.1 403"), first[:200]
            assert b'"cross-site"' in first or b"cross-site" in sock.recv(4096), first
        own = served.request(
            "GET",
            "/v1/events",
            "Sec-Fetch-Site: same-origin",
            "Sec-Fetch-Mode: cors",
            token=TOKENS["observer"] if served.tokens else None,
        )
        assert own.status == 200, own
        assert own.headers["content-type"][0].startswith("text/event-stream")
    finally:
        for sock in held:
            sock.close()


def _fetch(site: str, mode: str, dest: str) -> list[str]:
    return [f"Sec-Fetch-Site: {site}", f"Sec-Fetch-Mode: {mode}", f"Sec-Fetch-Dest: {dest}"]


FETCHES = {
    "same-site-stream": (_fetch("same-site", "no-cors", "empty"), "/v1/events", 403),
    "iframe-stream": (_fetch("cross-site", "navigate", "iframe"), "/v1/events", 403),
    "navigated-stream": (_fetch("cross-site", "navigate", "document"), "/v1/events", 403),
    "image-status": (_fetch("cross-site", "no-cors", "image"), "/v1/status", 403),
    "framed-page": (_fetch("cross-site", "navigate", "iframe"), "/ui/dealer.html", 403),
    "linked-page": (_fetch("cross-site", "navigate", "document"), "/ui/dealer.html", 200),
    "typed-page": (_fetch("none", "navigate", "document"), "/ui/dealer.html", 200),
    "own-page-fetch": (_fetch("same-origin", "cors", "empty"), "/v1/status", 200),
}


@pytest.mark.parametrize(("fetch", "path", "status"), list(FETCHES.values()), ids=list(FETCHES))
def test_fetch_metadata_decides_with_or_without_a_token(
    served: Served, fetch: list[str], path: str, status: int
) -> None:
    token = TOKENS["observer"] if served.tokens and path.startswith("/v1/") else None
    answer = served.request("GET", path, *fetch, token=token)
    assert answer.status == status, answer
    if status == 403:
        assert answer.code == "cross-site"


def test_with_tokens_an_anonymous_stream_is_refused_before_it_takes_a_slot(served: Served) -> None:
    if not served.tokens:
        pytest.skip("open mode: every local caller holds every role")
    for _ in range(STREAMS + 1):
        assert served.request("GET", "/v1/events").status == 401
    own = served.request("GET", "/v1/events", token=TOKENS["observer"])
    assert own.status == 200, own
