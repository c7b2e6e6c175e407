"""The UI's static files: ``GET /`` redirects to the dealer display, ``GET /ui/<file>`` serves ``shoe/ui/static``.

These paths are not API routes (they are not in the route table nor in the OpenAPI document): they
need no token, because the files hold no state, and the pages ask for a token before calling the API.

- Only files that ship in ``shoe/ui/static`` are served, looked up by name (``shoe.ui.asset``): no
  subfolder, no ``..``, no percent-decoding, no dotfile can name anything else.
- ``Cache-Control: no-cache`` with a strong ``ETag``: a browser keeps the file and revalidates it on
  each load (``304`` when unchanged), so an upgraded ``shoed`` is picked up at the next reload.
- HTML pages carry a Content-Security-Policy that allows only this origin (no inline script, no
  framing): a page that shows a live table runs nothing it did not ship with.
"""

from __future__ import annotations

from collections.abc import Mapping

from shoe.api.errors import ApiError
from shoe.api.exchange import Reply
from shoe.ui import asset

__all__ = ["CSP", "HOME", "static_reply"]

HOME = "/ui/dealer.html"
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_METHODS = "GET, HEAD"


def _etag_matches(header: str | None, etag: str) -> bool:
    if not header:
        return False
    tags = [t.strip().removeprefix("W/") for t in header.split(",")]
    return "*" in tags or etag in tags


def static_reply(method: str, path: str, headers: Mapping[str, str]) -> Reply | None:
    """The answer for a UI path, or ``None`` when ``path`` is not one (the API routes take it then).

    ``headers`` are the request's, looked up by their lower-case names.
    """
    if path not in ("/", "/ui", "/ui/") and not path.startswith("/ui/"):
        return None
    if method not in ("GET", "HEAD"):
        raise ApiError("method-not-allowed", f"{path[:200]} takes {_METHODS}", headers={"Allow": _METHODS})
    if path in ("/", "/ui", "/ui/"):  # the fragment (#token=...) is kept by the browser across the redirect
        return Reply(status=302, content_type="text/plain; charset=utf-8", headers={"Location": HOME})
    found = asset(path.removeprefix("/ui/"))
    if found is None:
        raise ApiError("not-found", f"no such file: {path[:200]}")
    sent = {"Cache-Control": "no-cache", "ETag": found.etag}
    if found.content_type.startswith("text/html"):
        sent |= {"Content-Security-Policy": CSP, "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer"}
    if _etag_matches(headers.get("if-none-match"), found.etag):
        return Reply(status=304, content_type=found.content_type, headers=sent)
    return Reply(body=found.body, content_type=found.content_type, headers=sent)
