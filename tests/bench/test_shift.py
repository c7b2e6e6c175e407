"""``bench/shift``: a shift of consecutive NY rounds against a running shoed, each on a fresh checked deck.

The main test starts shoed exactly as the README does (no configuration file; ``SHOED_HTTP`` and
``SHOED_JOURNAL`` move it off the user's port and journal) and drives 20 rounds through it; the
journal is then read back to hold the client's claim to the record. A small stand-in server checks
that the client does catch a deck dealt twice.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from shoe.journal import Journal
from tests.e2e.support import ROOT, child_env, free_port

SHIFT = ROOT / "bench" / "shift"
ROUNDS = 20


@pytest.fixture
def readme_shoed(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """``SHOED_HTTP=127.0.0.1:PORT .venv/bin/shoed``: the embedded defaults, the journal in ``tmp_path``."""
    port, journal = free_port(), tmp_path / "journal.sqlite"
    env = {**child_env(), "SHOED_HTTP": f"127.0.0.1:{port}", "SHOED_JOURNAL": str(journal)}
    shoed = Path(sys.executable).parent / "shoed"
    with (tmp_path / "shoed.log").open("wb") as log:
        proc = subprocess.Popen([str(shoed)], cwd=ROOT, env=env, stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, (tmp_path / "shoed.log").read_text()[-3000:]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/status", timeout=2):
                    break
            except OSError:
                assert time.monotonic() < deadline, "shoed did not answer in 30 s"
                time.sleep(0.1)
        yield port, journal
    finally:
        proc.terminate()
        assert proc.wait(timeout=30) == 0, (tmp_path / "shoed.log").read_text()[-3000:]


def _shift(port: int, *args: str, timeout: float = 600) -> tuple[int, dict[str, Any], str]:
    done = subprocess.run([sys.executable, str(SHIFT), "--http", f"127.0.0.1:{port}", "--json", *args], cwd=ROOT,
                          env=child_env(), capture_output=True, text=True, timeout=timeout, check=False)  # fmt: skip
    return done.returncode, json.loads(done.stdout), done.stderr


def test_twenty_rounds_each_on_a_fresh_checked_deck(readme_shoed: tuple[int, Path]) -> None:
    port, journal = readme_shoed
    code, result, progress = _shift(port, "--rounds", str(ROUNDS), "--every", "5", "--timeout", "120")
    assert code == 0 and result["complete"], (result, progress)
    assert result["rounds"] == ROUNDS and result["decks"] == ROUNDS and result["fresh_deck_each_round"]
    assert result["rounds_per_minute"] > 0 and result["refusals"] == {}
    assert progress.count("rounds/min") == ROUNDS // 5  # one progress line every 5 rounds (stderr under --json)
    first, last = result["deck_no"]
    assert last - first == ROUNDS - 1
    with Journal.open(journal) as j:  # the record agrees: each round opened on its own, checked deck
        entries = list(j.entries())
    opened = [e.data["deck"]["deck_no"] for e in entries if e.kind == "round-opened"]
    checked_ok = {e.data["deck_no"] for e in entries if e.kind == "deck" and e.data.get("event") == "checked"
                  and e.data.get("ok")}  # fmt: skip
    assert opened == list(range(first, last + 1)) and set(opened) <= checked_ok
    assert sum(e.kind == "round-closed" for e in entries) == ROUNDS


class _SameDeck(BaseHTTPRequestHandler):
    """A stand-in shoed whose deck view says ``checked`` with the same deck_no every round."""

    open_round = False

    def _json(self, body: object, status: int = 200) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path.startswith("/v1/events"):  # the record names another deck than the deck view
            event = {"type": "round-opened", "round_id": "fake-1", "deck": {"deck_no": 8, "back": "red"}}
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
            self.wfile.flush()
            return
        if self.path == "/v1/status":
            self._json({"table": "fake"})
        elif self.path == "/v1/deck":
            self._json({"state": "checked", "deck_no": 7, "count": 52, "check": {"ok": True, "count": 52}})
        else:
            self._json({"round": {"closed": True, "state": "complete"} if self.server.opened else None})  # type: ignore[attr-defined]

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.server.opened = True  # type: ignore[attr-defined]
        self._json({"round_id": "fake-1", "state": "open-for-wagers"}, 201)

    def log_message(self, *args: object) -> None:
        pass


def _against_fake(*args: str) -> tuple[int, dict[str, Any]]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _SameDeck)
    server.daemon_threads = True
    server.opened = False  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, args=(0.1,), daemon=True)
    thread.start()
    try:
        code, result, _ = _shift(server.server_address[1], "--timeout", "10", *args, timeout=60)
    finally:
        server.shutdown()
        server.server_close()
    return code, result


def test_a_deck_dealt_twice_fails_the_shift() -> None:
    code, result = _against_fake("--rounds", "3", "--no-events")
    assert code == 1 and result["rounds"] == 1 and not result["complete"]
    assert "dealt on deck 7, the previous round on 7" in result["error"]


def test_a_round_recorded_on_another_deck_fails_the_shift() -> None:
    code, result = _against_fake("--rounds", "1")
    assert code == 1 and result["rounds"] == 0
    assert "its round-opened event names deck 8, the deck view 7" in result["error"]


def test_no_shoed_at_the_address_exits_3() -> None:
    argv = [sys.executable, str(SHIFT), "--http", f"127.0.0.1:{free_port()}", "--rounds", "1"]
    done = subprocess.run(argv, cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 3 and "no shoed answers" in done.stderr
