"""Fixtures of the UI tests: a real ``TableService`` on the emulator, its API serving the pages, and a
real headless Chromium (Debian's ``chromium``) driven by Playwright.

The browser tests skip, with the reason, when Chromium or the ``playwright`` package is missing;
``SHOE_UI_TESTS=required`` (CI) turns that into a failure.  ``playwright install`` is never needed:
the system Chromium is launched by path (``SHOE_CHROMIUM`` overrides ``/usr/bin/chromium``).

Helpers check the two promises every page test relies on:

- ``hidden_cards_absent``: no card the service has not shown yet is anywhere on the page, not in
  its text, nor in its DOM, as a code (``Qh``), a glyph (``Q♥``) or a spoken name (``queen of hearts``);
- ``sync``: once the page is idle, the action buttons it enables are exactly the ones expected from
  the round view (the rules engine's answer), no more, no fewer.
"""

from __future__ import annotations

import importlib.util
import os
import re
import struct
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from shoe.api import ApiServer
from shoe.service import Role, ServiceConfig, TableService
from tests.api.conftest import Client

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("SHOE_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--font-render-hinting=none",
]
VIEWPORT = {"width": 1024, "height": 600}
RANKS, SUITS = "23456789TJQKA", "cdhs"
GLYPH = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
SUIT_NAME = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
RANK_NAMES = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen", "king", "ace")
RANK_NAME = dict(zip(RANKS, RANK_NAMES, strict=True))


def _unavailable() -> str | None:
    if importlib.util.find_spec("playwright") is None:
        return "the playwright Python package is not installed (pip install playwright; no browser download needed)"
    if not CHROMIUM.exists():
        return f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium)"
    return None


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    why = _unavailable()
    if why is not None:
        if os.environ.get("SHOE_UI_TESTS") == "required":
            pytest.fail(f"UI tests are required here but cannot run: {why}")
        pytest.skip(why)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@dataclass
class Table:
    """One table service with its API on loopback (no tokens: every role), and a client for the test."""

    service: TableService
    api: ApiServer
    deck: list[str]
    port: int = 0
    client: Client = field(init=False)

    def __post_init__(self) -> None:
        self.port = self.api.address[1]
        self.client = Client(self.api.address)

    def url(self, page: str = "dealer.html") -> str:
        return f"http://127.0.0.1:{self.port}/ui/{page}"

    def view(self) -> Any:
        return self.client.ok("GET", "/v1/round")["round"]

    def stop_api(self) -> None:
        self.api.stop()

    def start_api(self) -> None:
        """A new server on the same port (the old one must be stopped), as a restarted shoed would be."""
        deadline = time.monotonic() + 5
        while True:
            try:
                self.api = ApiServer(self.service, "127.0.0.1", self.port, tokens=self.service.config.tokens).start()
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)


@pytest.fixture
def make_table(tmp_path: Path) -> Iterator[Callable[..., Table]]:
    tables: list[Table] = []

    def make(deck: list[str] | None = None, port: str | None = None, tokens: Mapping[str, Role] | None = None) -> Table:
        url = port or (f"emu://?deck={''.join(deck)}" if deck else "emu://?seed=7")
        journal = tmp_path / f"journal-{len(tables)}.sqlite"
        config = ServiceConfig(
            shoe_port=url, journal=journal, http_host="127.0.0.1", http_port=0, tokens=dict(tokens or {})
        )
        service = TableService(config)
        service.start()
        table = Table(service, ApiServer(service, "127.0.0.1", 0, tokens=config.tokens).start(), list(deck or []))
        if tokens:
            table.client.token = next(t for t, role in tokens.items() if role is Role.DEALER)
        tables.append(table)
        return table

    yield make
    for table in reversed(tables):
        table.api.stop()
        table.service.stop()


@dataclass
class Console:
    """What the page said on its console: errors fail the test (a CSP violation, a script error)."""

    errors: list[str] = field(default_factory=list)
    allow: list[str] = field(default_factory=list)  # substrings of errors a test expects (a refused connection)

    def note(self, kind: str, text: str, url: str) -> None:
        # An API refusal (409, 503...) or a refused connection is logged by Chromium itself; the page
        # handles it. A failed page asset, a CSP violation or a script error is a fault of the page.
        if kind == "error" and not (text.startswith("Failed to load resource") and "/v1/" in url):
            self.errors.append(f"{text} ({url})" if url else text)

    def check(self) -> None:
        unexpected = [e for e in self.errors if not any(a in e for a in self.allow)]
        assert not unexpected, f"the page logged errors: {unexpected}"


@pytest.fixture
def console() -> Console:
    return Console()


@pytest.fixture
def page(browser: Any, console: Console) -> Iterator[Any]:
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1, has_touch=True, locale="en-US")
    context.set_default_timeout(10_000)
    tab = context.new_page()
    tab.on("console", lambda m: console.note(m.type, m.text, (m.location or {}).get("url", "")))
    tab.on("pageerror", lambda e: console.errors.append(f"uncaught: {e}"))
    yield tab
    context.close()
    console.check()


# ---- helpers ---------------------------------------------------------------------------------------


def open_page(page: Any, table: Table, name: str = "dealer.html") -> None:
    page.goto(table.url(name))
    wait_live(page)


def wait_live(page: Any, timeout: float = 10_000) -> None:
    page.wait_for_function("() => document.body.dataset.feed === 'live'", timeout=timeout)


def wait_idle(page: Any, timeout: float = 10_000) -> None:
    """Until the page has no request of its own in flight (a tapped action has been answered and re-read)."""
    page.wait_for_function("() => document.body.dataset.ui === 'idle'", timeout=timeout)


def enabled_actions(page: Any) -> list[str]:
    actions: list[str] = page.eval_on_selector_all(
        "button[data-action]", "els => els.filter(e => !e.disabled).map(e => e.dataset.action).sort()"
    )
    return actions


def sync(page: Any, expected: set[str], timeout: float = 8.0) -> None:
    """Wait until the page is idle with exactly ``expected`` actions enabled; fail with the difference."""
    want = sorted(expected)
    try:
        page.wait_for_function(
            """want => document.body.dataset.ui === 'idle' &&
                 JSON.stringify([...document.querySelectorAll('button[data-action]')]
                   .filter(e => !e.disabled).map(e => e.dataset.action).sort()) === JSON.stringify(want)""",
            arg=want,
            timeout=timeout * 1000,
        )
    except Exception as exc:  # a Playwright timeout: say what differed
        raise AssertionError(f"enabled actions {enabled_actions(page)} != expected {want}") from exc


def between_rounds(table: Table) -> set[str]:
    """The buttons the dealer display offers with no live round: **New round** on a checked deck, else what
    the deck view offers now (its ``actions``; the load only where the shoe is an emulator)."""
    deck = table.client.ok("GET", "/v1/deck")
    if deck["state"] == "checked":
        return {"new-round"}
    return {a for a in deck["actions"] if a != "load-deck" or deck["emulator"]}


def card_forms(code: str) -> tuple[str, str, str]:
    """A card as the page could hold it: its code, its glyph form (``10♥``) and its spoken name."""
    rank, suit = code[0], code[1]
    return code, ("10" if rank == "T" else rank) + GLYPH[suit], f"{RANK_NAME[rank]} of {SUIT_NAME[suit]}"


CODES_WRITTEN_TOGETHER = re.compile(r"(?<![A-Za-z0-9])(?:[2-9TJQKA][cdhs]){3,}(?![A-Za-z0-9])")


def hidden_cards_absent(page: Any, hidden: set[str]) -> None:
    """No card in ``hidden`` shows in the page's text or anywhere in its DOM."""
    text = page.evaluate("document.body.innerText")
    flat = re.sub(r"\s+", "", text)
    dom = page.content()
    leaks = []
    for code in sorted(hidden):
        plain, glyph, spoken = card_forms(code)
        pattern = re.compile(rf"(?<![A-Za-z0-9]){plain}(?![A-Za-z0-9])")
        if pattern.search(text) or pattern.search(dom):
            leaks.append(f"{code} (code)")
        if re.search(rf"(?<![0-9]){re.escape(glyph)}", flat):
            leaks.append(f"{code} (as {glyph})")
        if spoken in dom.lower():
            leaks.append(f"{code} (as {spoken!r})")
    for where, content in (("text", text), ("DOM", dom)):
        run = CODES_WRITTEN_TOGETHER.search(content)
        if run:  # a deck order (the emulator's deck= option) or a stack written as one word
            leaks.append(f"{run.group(0)} (codes written together, in the {where})")
        for option in ("deck=", "seed="):
            if option in content:
                leaks.append(f"the shoe port's {option} option (in the {where})")
    assert not leaks, f"unrevealed cards on the page: {leaks}"


def tap(page: Any, action: str) -> None:
    page.locator(f'button[data-action="{action}"]').tap()


def screenshot(page: Any, name: str) -> Path:
    """A 1024x600 PNG of the page, for the README and docs/ui.md.

    Written to ``docs/screenshots/`` only when ``SHOE_UI_SCREENSHOTS`` names that folder (or another):
    round ids and times differ on every run, so a plain test run leaves the committed ones alone and
    writes to a scratch folder instead.
    """
    chosen = os.environ.get("SHOE_UI_SCREENSHOTS")
    folder = Path(chosen) if chosen else Path(tempfile.gettempdir()) / "shoe-ui-screenshots"
    folder = folder if folder.is_absolute() else ROOT / folder
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    page.screenshot(path=str(path), animations="disabled", caret="hide")
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", head[16:24]) == (1024, 600)
    return path


def full_deck(seed_order: str) -> list[str]:
    """``seed_order`` (codes run together) followed by the rest of the deck in a fixed order."""
    first = [seed_order[i : i + 2] for i in range(0, len(seed_order), 2)]
    rest = [r + s for s in SUITS for r in RANKS if r + s not in first]
    deck = first + rest
    assert len(deck) == 52 and len(set(deck)) == 52
    return deck
