"""The dealer display and the technician page: static files that ``shoed`` serves under ``/ui/``.

Plain HTML, CSS and JavaScript modules in ``static/``: no framework, no build step, nothing fetched
from elsewhere.  The pages talk to the table API (``/v1``) from the same origin: they send the token
the page was given (``#token=...`` in the address, or typed in) as ``Authorization: Bearer``, and read
the event stream with ``fetch`` (which, unlike ``EventSource``, can send that header), resuming with
``Last-Event-ID`` after a drop.  See ``docs/ui.md``.

``asset(name)`` is the only way in: a name is looked up among the files that ship in ``static/``,
so no request path can name anything else (no directory traversal, no dotfiles, no subfolders).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from importlib import resources

__all__ = ["CONTENT_TYPES", "Asset", "asset", "asset_names"]

CONTENT_TYPES: dict[str, str] = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".json": "application/json",
}
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*\.[a-z]+$")


@dataclass(frozen=True)
class Asset:
    name: str
    body: bytes
    content_type: str
    etag: str  # a strong validator: the content's hash, quoted


def _static() -> resources.abc.Traversable:
    return resources.files(__name__).joinpath("static")


def asset_names() -> frozenset[str]:
    """The files the UI ships (served as ``/ui/<name>``)."""
    return frozenset(
        entry.name
        for entry in _static().iterdir()
        if entry.is_file() and _NAME.match(entry.name) and _suffix(entry.name) in CONTENT_TYPES
    )


def _suffix(name: str) -> str:
    return name[name.rfind(".") :]


def asset(name: str) -> Asset | None:
    """The shipped file called ``name``, or ``None``; ``name`` is matched against the shipped names only."""
    if not _NAME.match(name) or name not in asset_names():
        return None
    body = _static().joinpath(name).read_bytes()
    etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    return Asset(name, body, CONTENT_TYPES[_suffix(name)], etag)
