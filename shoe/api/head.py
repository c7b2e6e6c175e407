"""A request's head: the request line and the header block, parsed without ``email.parser`` when it
is well formed (``http.server`` hands every header block to the e-mail parser, a tenth of
the HTTP layer's CPU per request).

``parse_request`` is ``http.server.BaseHTTPRequestHandler.parse_request`` (Python 3.11) with the
header block read by :func:`read_head`.  The bounds and refusals are the stdlib's, unchanged: a line
over 65,536 bytes or more than 100 header lines is ``431``; a malformed request line ``400``; a
version of 2 or more ``505``.  :func:`read_head` takes the fast path only when every header line is
``name:value`` with ``name`` made of the characters a header name may hold (RFC 9110 §5.1 tokens, as
the e-mail parser's own pattern: printable ASCII but ``:`` and space) and the line ends in one
CRLF; anything else (a folded line, a bare CR or LF, a line without a colon, a ``From `` line, a
missing blank line) goes to the e-mail parser as before, so an odd head is read exactly as it was.
Either way the result is the same ``http.client.HTTPMessage``, holding the same ``(name, value)``
pairs (tests/api/test_head.py compares the two on well-formed and hostile blocks).
"""

from __future__ import annotations

import email.parser
import http.client
import re
from http import HTTPStatus
from typing import TYPE_CHECKING, Protocol

from shoe.api.origin import first, header_index

if TYPE_CHECKING:
    from http.server import BaseHTTPRequestHandler

    _Base = BaseHTTPRequestHandler
else:
    _Base = object

__all__ = ["MAX_HEADERS", "MAX_LINE", "HeadParsing", "read_head"]

MAX_LINE = 65536  # http.client._MAXLINE
MAX_HEADERS = 100  # http.client._MAXHEADERS
_LINE = re.compile(rb"([!-9;-~]+):([^\r\n]*)\r\n")


class _Lines(Protocol):
    def readline(self, size: int = -1, /) -> bytes: ...


def _read_lines(rfile: _Lines) -> list[bytes]:
    """The header lines up to and including the blank one (``http.client._read_headers``'s bounds)."""
    lines: list[bytes] = []
    while True:
        line = rfile.readline(MAX_LINE + 1)
        if len(line) > MAX_LINE:
            raise http.client.LineTooLong("header line")
        lines.append(line)
        if len(lines) > MAX_HEADERS:
            raise http.client.HTTPException(f"got more than {MAX_HEADERS} headers")
        if line in (b"\r\n", b"\n", b""):
            return lines


def parse_lines(lines: list[bytes]) -> http.client.HTTPMessage:
    """The headers of ``lines`` (each with its line end; the last the blank line), as the e-mail parser reads them."""
    message = http.client.HTTPMessage()
    if lines and lines[-1] == b"\r\n":
        for line in lines[:-1]:
            match = _LINE.fullmatch(line)
            if match is None:
                break
            message.set_raw(match[1].decode("iso-8859-1"), match[2].decode("iso-8859-1").lstrip(" \t"))
        else:
            message.set_payload("")  # what the e-mail parser leaves after the blank line
            return message
    text = b"".join(lines).decode("iso-8859-1")
    return email.parser.Parser(_class=http.client.HTTPMessage).parsestr(text)


def read_head(rfile: _Lines) -> http.client.HTTPMessage:
    """``http.client.parse_headers(rfile)``, without the e-mail parser for a well-formed block."""
    return parse_lines(_read_lines(rfile))


class HeadParsing(_Base):
    """``parse_request`` of ``BaseHTTPRequestHandler`` with the header block read by :func:`read_head`."""

    raw_requestline: bytes
    _headers_of: dict[str, list[str]] | None
    """The parsed head's headers by lower-cased name (``origin.header_index``), set by :meth:`parse_request`."""

    def parse_request(self) -> bool:
        self.command = None  # type: ignore[assignment]  # set in case of error on the first line
        self.request_version = version = self.default_request_version
        self.close_connection = True
        requestline = str(self.raw_requestline, "iso-8859-1").rstrip("\r\n")
        self.requestline = requestline
        words = requestline.split()
        if len(words) == 0:
            return False
        if len(words) >= 3:  # enough to determine the protocol version
            version = words[-1]
            try:
                if not version.startswith("HTTP/"):
                    raise ValueError
                base_version_number = version.split("/", 1)[1]
                parts = base_version_number.split(".")
                if len(parts) != 2:  # RFC 2145 §3.1: one dot, two integers, leading zeros ignored
                    raise ValueError
                if any(not part.isdigit() for part in parts):
                    raise ValueError("non digit in http version")
                if any(len(part) > 10 for part in parts):
                    raise ValueError("unreasonable length http version")
                version_number = int(parts[0]), int(parts[1])
            except (ValueError, IndexError):
                self.send_error(HTTPStatus.BAD_REQUEST, f"Bad request version ({version!r})")
                return False
            if version_number >= (1, 1) and self.protocol_version >= "HTTP/1.1":
                self.close_connection = False
            if version_number >= (2, 0):
                self.send_error(HTTPStatus.HTTP_VERSION_NOT_SUPPORTED, f"Invalid HTTP version ({base_version_number})")
                return False
            self.request_version = version
        if not 2 <= len(words) <= 3:
            self.send_error(HTTPStatus.BAD_REQUEST, f"Bad request syntax ({requestline!r})")
            return False
        command, path = words[:2]
        if len(words) == 2:
            self.close_connection = True
            if command != "GET":
                self.send_error(HTTPStatus.BAD_REQUEST, f"Bad HTTP/0.9 request type ({command!r})")
                return False
        self.command, self.path = command, path
        if self.path.startswith("//"):  # gh-87389: no open redirect through a scheme-less absolute URI
            self.path = "/" + self.path.lstrip("/")
        try:
            self.headers = read_head(self.rfile)
        except http.client.LineTooLong as err:
            self.send_error(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "Line too long", str(err))
            return False
        except http.client.HTTPException as err:
            self.send_error(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "Too many headers", str(err))
            return False
        index = self._headers_of = header_index(self.headers)  # every later lookup of this request reads it
        conntype = (first(index, "connection") or "").lower()
        if conntype == "close":
            self.close_connection = True
        elif conntype == "keep-alive" and self.protocol_version >= "HTTP/1.1":
            self.close_connection = False
        expect = first(index, "expect") or ""
        if expect.lower() == "100-continue" and self.protocol_version >= "HTTP/1.1" \
                and self.request_version >= "HTTP/1.1":  # fmt: skip
            return self.handle_expect_100()
        return True
