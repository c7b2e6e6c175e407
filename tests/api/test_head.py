"""The header block's own parser (``shoe.api.head``): the same headers as the e-mail parser
``http.server`` used, on well-formed and on hostile blocks, and the same refusals over a socket."""

from __future__ import annotations

import email.parser
import http.client
import io
import socket
from typing import Any

import pytest

from shoe.api import ApiServer, head

WELL_FORMED = [
    [b"Host: 127.0.0.1:8080\r\n", b"Content-Type: application/json\r\n", b"Content-Length: 2\r\n", b"\r\n"],
    [b"Host:127.0.0.1\r\n", b"X-Empty:\r\n", b"X-Trailing: value  \r\n", b"\r\n"],
    [b"Host: a\r\n", b"Host: b\r\n", b"Origin: http://evil.example\r\n", b"\r\n"],  # duplicates kept, in order
    [b"Authorization: Bearer \xff\xfe token\r\n", b"\r\n"],  # latin-1 bytes, as the e-mail parser decodes them
    [b"\r\n"],
]
ODD = [
    [b"Host: a\r\n", b" folded\r\n", b"\r\n"],  # obs-fold: a continuation line
    [b"Host: a\r\n", b"No colon here\r\n", b"Content-Length: 5\r\n", b"\r\n"],  # ends the headers there
    [b"Host a: b\r\n", b"\r\n"],  # a space in the name
    [b": no name\r\n", b"\r\n"],
    [b"Host: a\rb\r\n", b"\r\n"],  # a bare CR inside a line
    [b"Host: a\n", b"\n"],  # bare LF line ends
    [b"From someone\r\n", b"Host: a\r\n", b"\r\n"],
    [b"Host: a\r\n", b""],  # the connection ended before the blank line
    [b"Host: a\r\n", b"Content-Length: 1\r\n", b"Content-Length: 2\r\n", b"\r\n"],
    [b"\tHost: a\r\n", b"\r\n"],
]


def _email(lines: list[bytes]) -> http.client.HTTPMessage:
    parsed: http.client.HTTPMessage = email.parser.Parser(_class=http.client.HTTPMessage).parsestr(
        b"".join(lines).decode("iso-8859-1")
    )
    return parsed


def _shape(message: http.client.HTTPMessage) -> tuple[Any, ...]:
    return (message.items(), message.get_payload(), message.get_all("Host"), message.get("content-length"),
            message.get_content_type(), len(message.defects))  # fmt: skip


@pytest.mark.parametrize("lines", WELL_FORMED + ODD)
def test_the_same_headers_as_the_email_parser(lines: list[bytes]) -> None:
    assert _shape(head.parse_lines(lines)) == _shape(_email(lines))


@pytest.mark.parametrize("lines", WELL_FORMED)
def test_a_well_formed_block_does_not_go_through_the_email_parser(
    lines: list[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the e-mail parser was used")

    monkeypatch.setattr(email.parser, "Parser", refuse)  # the module shoe.api.head calls
    assert head.parse_lines(lines).items() == _email_unpatched(lines)


def _email_unpatched(lines: list[bytes]) -> list[tuple[str, str]]:
    items: list[tuple[str, str]] = []
    for line in lines[:-1]:
        name, _, value = line.decode("iso-8859-1").rstrip("\r\n").partition(":")
        items.append((name, value.lstrip(" \t")))
    return items


def test_the_stdlib_bounds_on_lines_and_headers() -> None:
    with pytest.raises(http.client.LineTooLong):
        head.read_head(io.BytesIO(b"X: " + b"a" * head.MAX_LINE + b"\r\n\r\n"))
    with pytest.raises(http.client.HTTPException, match="more than 100"):
        head.read_head(io.BytesIO(b"X: a\r\n" * (head.MAX_HEADERS + 1) + b"\r\n"))


class _Status:
    def health(self) -> dict[str, Any]:
        return {"ok": True}


def _exchange(api: ApiServer, data: bytes) -> bytes:
    with socket.create_connection(api.address, timeout=5) as sock:
        sock.sendall(data)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


@pytest.mark.parametrize(
    ("head_lines", "status"),
    [
        ([b"X: " + b"a" * 70000], b"431"),
        ([b"X-%d: a" % i for i in range(101)], b"431"),
        ([b"Host: 127.0.0.1:{port}", b"Host: 127.0.0.1:{port}"], b"400"),  # two Host headers
        ([b"Host: 127.0.0.1:{port}", b" folded"], b"403"),  # obs-fold: read as before, into the Host value
        ([b"Host: evil.example:{port}"], b"403"),
        ([b"Host: 127.0.0.1:{port}", b"Origin: http://evil.example"], b"403"),
        ([b"Host: 127.0.0.1:{port}", b"Connection: close"], b"200"),
    ],
)
def test_refusals_over_a_socket(head_lines: list[bytes], status: bytes) -> None:
    with ApiServer(_Status(), "127.0.0.1", 0) as api:  # type: ignore[arg-type]
        port = str(api.address[1]).encode()
        lines = [line.replace(b"{port}", port) for line in head_lines]
        request = b"GET /v1/status HTTP/1.1\r\n" + b"".join(line + b"\r\n" for line in lines)
        request += b"Connection: close\r\n\r\n"
        answer = _exchange(api, request)
    assert answer.split(b" ", 2)[1] == status, answer[:300]
    assert b'"error"' in answer or status == b"200"
