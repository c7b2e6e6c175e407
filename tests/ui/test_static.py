"""The UI's files over HTTP (no browser): what is served, with which headers, and nothing else."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from shoe.api import ApiServer
from shoe.service import TableService
from shoe.ui import CONTENT_TYPES, asset, asset_names
from tests.api.conftest import TOKENS, Client

PAGES = ("dealer.html", "technician.html")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Client]:
    """The API with tokens configured: the files need none, the API still does."""
    from tests.api.conftest import make_config

    service = TableService(make_config(tmp_path_factory.mktemp("static"), "emu://?seed=7", TOKENS))
    service.start()
    with ApiServer(service, "127.0.0.1", 0, tokens=TOKENS) as api:
        yield Client(api.address)
    service.stop()


def test_the_root_redirects_to_the_dealer_display(served: Client) -> None:
    for path in ("/", "/ui", "/ui/"):
        answer = served.call("GET", path, token=None)
        assert answer.status == 302, path
        assert answer.headers["Location"] == "/ui/dealer.html"


@pytest.mark.parametrize("name", sorted(asset_names()))
def test_every_file_is_served_with_its_type_and_revalidation_headers(served: Client, name: str) -> None:
    answer = served.call("GET", f"/ui/{name}", token=None)
    assert answer.status == 200
    assert answer.headers["Content-Type"] == CONTENT_TYPES[name[name.rfind(".") :]]
    assert answer.headers["Cache-Control"] == "no-cache"
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    found = asset(name)
    assert found is not None and answer.body == found.body
    etag = answer.headers["ETag"]
    assert etag == found.etag
    again = served.call("GET", f"/ui/{name}", token=None, headers={"If-None-Match": etag})
    assert again.status == 304 and again.body == b""
    head = served.call("HEAD", f"/ui/{name}", token=None)
    assert head.status == 200 and head.body == b"" and head.headers["Content-Length"] == str(len(found.body))


def test_pages_allow_only_their_own_origin(served: Client) -> None:
    for page in PAGES:
        headers = served.call("GET", f"/ui/{page}", token=None).headers
        csp = headers["Content-Security-Policy"]
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe" not in csp
        assert headers["X-Frame-Options"] == "DENY"
        assert headers["Referrer-Policy"] == "no-referrer"


@pytest.mark.parametrize(
    "path",
    [
        "/ui/../pyproject.toml",
        "/ui/%2e%2e/__init__.py",
        "/ui/..%2f..%2fpyproject.toml",
        "/ui/static/app.css",
        "/ui/__init__.py",
        "/ui/.hidden",
        "/ui/DEALER.HTML",
        "/ui/dealer.html/",
        "/ui/dealer.html%00.js",
        "/ui/nope.js",
        "/ui//etc/passwd",
    ],
)
def test_nothing_else_is_served(served: Client, path: str) -> None:
    answer = served.call("GET", path, token=None)
    assert answer.status == 404, (path, answer.status)
    assert answer.error["code"] == "not-found"


def test_files_take_only_get_and_head(served: Client) -> None:
    answer = served.call("POST", "/ui/dealer.html", {}, token=None)
    assert answer.status == 405
    assert answer.headers["Allow"] == "GET, HEAD"


def test_the_api_behind_the_pages_still_needs_a_token(served: Client) -> None:
    assert served.call("GET", "/v1/status", token=None).status == 401


def test_every_file_a_page_or_module_names_ships() -> None:
    names = asset_names()
    assert set(PAGES) <= names
    for name in names:
        found = asset(name)
        assert found is not None
        if name.endswith(".html"):
            refs = re.findall(r'(?:src|href)="([^"#:]+)"', found.body.decode())
        elif name.endswith(".js"):
            refs = re.findall(r'from "\./([^"]+)"', found.body.decode())
        else:
            continue
        for ref in refs:
            assert ref in names, f"{name} refers to {ref}, which does not ship"


def test_no_inline_script_or_style_in_the_pages() -> None:
    """The Content-Security-Policy forbids them: the page would break."""
    for page in PAGES:
        found = asset(page)
        assert found is not None
        text = found.body.decode()
        assert not re.search(r"<script(?![^>]*\bsrc=)", text)
        assert not re.search(r"\sstyle=", text)
        assert not re.search(r"\son[a-z]+=", text)
