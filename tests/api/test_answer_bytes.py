"""The bytes of an answer, as the stdlib's ``send_response`` / ``send_header`` / ``end_headers`` wrote them:
status line, Server, Date, Content-Type, Cache-Control, X-Content-Type-Options, the route's own headers,
Content-Length, then Connection when the connection closes; head and body in one send; HEAD without the body."""

from __future__ import annotations

import re
import socket
from typing import Any

from shoe.api import ApiServer


class _Status:
    def health(self) -> dict[str, Any]:
        return {"ok": True}


def _read_answer(sock: socket.socket, buffered: bytes) -> tuple[bytes, bytes, bytes]:
    """(head, body, what followed) of the next answer on ``sock`` (the head's Content-Length frames the body)."""
    data = buffered
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, rest = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"\r\nContent-Length: (\d+)", head)[1])  # type: ignore[index]
    return head, rest[:length], rest[length:]


def _lines(head: bytes) -> list[str]:
    return [re.sub(r"^Date: .*", "Date: *", line) for line in head.decode("latin-1").split("\r\n")]


def test_a_kept_alive_answer_then_a_closing_one_on_the_same_connection() -> None:
    with ApiServer(_Status(), "127.0.0.1", 0) as api:  # type: ignore[arg-type]
        host = f"Host: 127.0.0.1:{api.address[1]}\r\n".encode()
        with socket.create_connection(api.address, timeout=5) as sock:
            sock.sendall(b"GET /v1/status HTTP/1.1\r\n" + host + b"\r\n")
            head, body, rest = _read_answer(sock, b"")
            assert _lines(head) == ["HTTP/1.1 200 OK", "Server: shoed/1", "Date: *", "Content-Type: application/json",
                                    "Cache-Control: no-store", "X-Content-Type-Options: nosniff",
                                    f"Content-Length: {len(body)}"]  # fmt: skip
            assert body == b'{"ok":true}' and rest == b""
            assert re.fullmatch(rb"Date: \w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT",
                                head.split(b"\r\n")[2])  # fmt: skip
            sock.sendall(b"GET /v1/status HTTP/1.1\r\n" + host + b"Connection: close\r\n\r\n")
            head, body, rest = _read_answer(sock, rest)
            assert _lines(head)[-2:] == [f"Content-Length: {len(body)}", "Connection: close"]
            while chunk := sock.recv(65536):
                rest += chunk
            assert rest == b""  # closed after it, nothing more


def test_a_refusal_carries_its_own_headers_before_the_length_and_head_has_no_body() -> None:
    with ApiServer(_Status(), "127.0.0.1", 0) as api:  # type: ignore[arg-type]
        host = f"Host: 127.0.0.1:{api.address[1]}\r\n".encode()
        for method in (b"DELETE", b"HEAD"):
            with socket.create_connection(api.address, timeout=5) as sock:
                sock.sendall(method + b" /v1/status HTTP/1.1\r\n" + host + b"Connection: close\r\n\r\n")
                data = b""
                while chunk := sock.recv(65536):
                    data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            lines = _lines(head)
            assert lines[0] == "HTTP/1.1 405 Method Not Allowed"
            assert lines[3:6] == ["Content-Type: application/json", "Cache-Control: no-store",
                                  "X-Content-Type-Options: nosniff"]  # fmt: skip
            assert lines[6].startswith("Allow: ") and lines[7].startswith("Content-Length: ")
            assert lines[8:] == ["Connection: close"]
            length = int(lines[7].split(": ")[1])
            assert length > 0 and len(body) == (0 if method == b"HEAD" else length)  # HEAD: the length, no body
