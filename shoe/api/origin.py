"""The cross-origin defence: only this server's own pages, reached by its own name, may call it.

A browser lets any page send a "simple" request to any origin (``fetch(url, {method: "POST", mode:
"no-cors"})``, a form): it cannot read the answer, but the request is made.  With no tokens
configured (loopback only) that alone would let a page of another origin deal; DNS rebinding (a
name the attacker controls pointed at 127.0.0.1) would let it read the answers too.  The checks,
on every request (docs/api.md, "Cross-origin requests"):

- **Host** must name this server: a loopback bind answers to ``localhost``, ``127.0.0.1`` and
  ``[::1]`` with its port; any other bind to its own address (a wildcard bind: the address the
  connection came in on).  A rebound name is refused ``403 foreign-host``.
- **Origin**, when sent, must be this server's own (``http://`` + the Host): ``403 foreign-origin``;
- **Sec-Fetch-Site**, when sent, must say this server's own pages (or none: typed, bookmarked) made
  the request: ``403 cross-site`` (a link to a UI page from another site still opens it);
- each header a decision rests on (:data:`SINGLE`) comes once: ``403 ambiguous-header``;
- **Content-Type: application/json** on every POST, body or not (``shoe.api.handler``): a page can
  send that type only after a CORS preflight, which this server never grants.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from email.message import Message
from typing import Any

from shoe.api.auth import is_loopback
from shoe.api.errors import ApiError

__all__ = ["LOOPBACK_NAMES", "SINGLE", "HeaderIndex", "HostCheck", "first", "header_index", "split_host"]

SINGLE = ("Origin", "Sec-Fetch-Site", "Sec-Fetch-Mode", "Sec-Fetch-Dest", "Authorization", "Content-Type")
"""The headers a refusal or a role is decided on: each must come once (``403 ambiguous-header``)."""
_SINGLE = tuple((name, name.lower()) for name in SINGLE)
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]"})
_WILDCARDS = ("", "0.0.0.0", "::")

HeaderIndex = Mapping[str, Sequence[str]]
"""A request's header values by lower-cased name, in the order sent (:func:`header_index`)."""


def header_index(headers: Message) -> dict[str, list[str]]:
    """Every header's values by its lower-cased name, in the order sent, from one pass over ``headers``.

    The same values ``Message.get_all`` gives (both go through the message's policy), built once a request:
    each ``get_all`` walks every header and lower-cases each name again, which was a fifth of an HTTP
    worker's calls a request."""
    index: dict[str, list[str]] = {}
    for name, value in headers.items():
        index.setdefault(name.lower(), []).append(value)
    return index


def first(index: HeaderIndex, name: str) -> str | None:
    """The first value of the header ``name`` (lower case), as ``Message.get`` gives it; None if not sent."""
    values = index.get(name)
    return values[0] if values else None


def _name(host: str) -> str:
    """``host`` as it appears in a Host header: lower case, an IPv6 literal in brackets."""
    host = host.strip().lower().strip("[]")
    try:
        if ipaddress.ip_address(host.split("%")[0]).version == 6:
            return f"[{host}]"
    except ValueError:
        pass
    return host


def split_host(value: str) -> tuple[str, int] | None:
    """``(name, port)`` of a Host header value (port 80 when absent); ``None`` when it is malformed."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        name, rest = value[: end + 1], value[end + 1 :]
    elif value.count(":") > 1:
        return None
    else:
        name, colon, port = value.partition(":")
        rest = colon + port
    if not rest:
        return (name, 80) if name else None
    digits = rest[1:]
    if not rest.startswith(":") or not (digits.isascii() and digits.isdigit()) or len(digits) > 5:
        return None
    return (name, int(digits)) if name else None


class HostCheck:
    """The Host and Origin rules for a server bound to ``bind_host:port``."""

    def __init__(self, bind_host: str, port: int) -> None:
        self.port = port
        self.wildcard = bind_host in _WILDCARDS
        names = set() if self.wildcard else {_name(bind_host)}
        if not self.wildcard and is_loopback(bind_host):
            names |= LOOPBACK_NAMES
        self.names = frozenset(names)

    def allows(self, host: str, local: Any) -> bool:
        """Whether a Host header value names this server; ``local`` is the connection's local address."""
        parsed = split_host(host)
        if parsed is None or parsed[1] != self.port:
            return False
        return parsed[0] in self.names or (self.wildcard and parsed[0] == _name(str(local[0])))

    def check(self, headers: HeaderIndex, local: Any) -> None:
        """Raise the refusal for a request whose Host or Origin is not this server's, or that names a
        header this server decides on more than once (``headers``: :func:`header_index`'s)."""
        for name, key in _SINGLE:
            sent = headers.get(key, ())
            if len(sent) > 1:  # which one counts is a guess, and a reader that takes the other is fooled
                raise ApiError(
                    "ambiguous-header",
                    f"this request has {len(sent)} {name} headers; send it once (this server decides on it)",
                )
        hosts = headers.get("host", ())
        if len(hosts) != 1:
            raise ApiError(
                "bad-request",
                f"send exactly one Host header, not {len(hosts)} (HTTP/1.1 requires it): Host: {self.example()}",
            )
        host = str(hosts[0]).strip()
        if not self.allows(host, local):
            raise ApiError(
                "foreign-host",
                f"this server does not answer to Host {host[:100]!r}; call it as {self.example()} "
                "(a page that reached it through another name, as DNS rebinding does, may not use the table)",
            )
        origin = first(headers, "origin")
        if origin is None:
            return
        own = split_host(host)
        text = str(origin).strip().lower()
        if not text.startswith("http://") or split_host(text.removeprefix("http://")) != own:
            raise ApiError(
                "foreign-origin",
                f"a page of another origin ({str(origin)[:100]!r}) may not call this server; only its own "
                f"pages (http://{host[:100]}) may",
            )

    def check_site(self, headers: HeaderIndex, method: str, *, page: bool) -> None:
        """Refuse a request a browser says another site made (``Sec-Fetch-Site``, Fetch Metadata).

        ``same-origin`` (this server's own pages) and ``none`` (typed, bookmarked) pass; ``same-site``
        and ``cross-site`` are refused on every route, event stream included: a no-cors GET carries no
        ``Origin``, so this is what tells a page's request from the display's. Only a top-level
        navigation to one of the UI's files (``page``) passes from another site: a link to the display.
        """
        site = (first(headers, "sec-fetch-site") or "").strip().lower()
        if site in ("", "same-origin", "none"):
            return
        mode = (first(headers, "sec-fetch-mode") or "").strip().lower()
        dest = (first(headers, "sec-fetch-dest") or "").strip().lower()
        if page and method in ("GET", "HEAD") and mode == "navigate" and dest == "document":
            return
        raise ApiError(
            "cross-site",
            f"the browser says another site made this request (Sec-Fetch-Site: {site[:40]}); only this "
            "server's own pages may call it",
        )

    def example(self) -> str:
        name = "127.0.0.1" if "127.0.0.1" in self.names else (min(self.names) if self.names else "<its address>")
        return f"{name}:{self.port}"
