"""The dealer's hands for an emulator in another process: a Unix control socket (``shoectl emulate --control``).

One request line, one JSON reply line, then the connection closes:

- ``load QUERY``: the dealer loads a deck (``drivers.emulator.deck.DeckLoad.from_query``, e.g.
  ``load seed=7&back=blue`` or ``load short=1``); reply ``{"loaded": 52, "back": "blue"}``, or
  ``{"error": "..."}`` when the shoe still holds cards (add ``mid_round=1`` to load on top anyway),
  a dispense is active, or an option is wrong.
- ``ping``: ``{"ok": true}``.

The socket is created with mode 0600 (only the emulator's user: a load decides the deck). Replies
never contain the order (SPEC §9). ``load_deck_at(path, deck)`` is the client side, for the HIL bench,
bench/soak and ``shoectl load-deck --control``.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
from pathlib import Path
from typing import Any

from drivers.emulator.deck import DeckLoad
from drivers.emulator.device import EmulatedShoe

MAX_LINE = 4096


class ControlError(RuntimeError):
    """The control socket refused the action or could not be reached; the message says why."""


class ControlServer:
    """Serve ``shoe``'s dealer actions on a Unix socket at ``path`` until ``close()``."""

    def __init__(self, shoe: EmulatedShoe, path: str | os.PathLike[str]) -> None:
        self.shoe = shoe
        self.path = Path(path)
        with contextlib.suppress(FileNotFoundError):
            if self.path.is_socket():
                self.path.unlink()  # a stale socket of an emulator that died
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            self._sock.bind(str(self.path))
        finally:
            os.umask(old)
        self._sock.listen(8)
        self._sock.settimeout(0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="emulator-control", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(2.0)
                with contextlib.suppress(OSError):
                    line = _read_line(conn)
                    conn.sendall((json.dumps(self.handle(line)) + "\n").encode())

    def handle(self, line: str) -> dict[str, Any]:
        verb, _, rest = line.strip().partition(" ")
        if verb == "ping":
            return {"ok": True}
        if verb != "load":
            return {"error": f"unknown control {verb!r}: use 'load QUERY' or 'ping'"}
        try:
            deck = DeckLoad.from_query(rest)
            loaded = self.shoe.load_deck(deck)
        except ValueError as exc:
            return {"error": str(exc)}
        return {"loaded": loaded, "back": deck.back}

    def close(self) -> None:
        self._stop.set()
        self._sock.close()
        self._thread.join(timeout=2.0)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


def _read_line(conn: socket.socket) -> str:
    data = b""
    while b"\n" not in data and len(data) < MAX_LINE:
        chunk = conn.recv(MAX_LINE)
        if not chunk:
            break
        data += chunk
    return data.split(b"\n", 1)[0].decode("utf-8", "replace")


def send_control(path: str | os.PathLike[str], line: str, *, timeout: float = 5.0) -> dict[str, Any]:
    """Send one control line and return the reply; ControlError when unreachable or refused."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(str(path))
            sock.sendall(line.encode() + b"\n")
            reply: dict[str, Any] = json.loads(_read_line(sock) or "{}")
    except (OSError, ValueError) as exc:
        raise ControlError(
            f"emulator control socket {str(path)!r} did not answer ({exc}): is `shoectl emulate --control` running?"
        ) from exc
    if "error" in reply:
        raise ControlError(str(reply["error"]))
    return reply


def deck_query(deck: DeckLoad) -> str:
    """The query form of ``deck`` (the inverse of ``DeckLoad.from_query``)."""
    pairs = []
    for name, value in (
        ("seed", deck.seed), ("back", deck.back), ("short", deck.short), ("extra", deck.extra),
        ("duplicate", deck.duplicate), ("foreign", deck.foreign), ("foreign_back", deck.foreign_back),
    ):  # fmt: skip
        if value is not None:
            pairs.append(f"{name}={value}")
    if deck.order is not None:
        pairs.append("order=" + ",".join(deck.order))
    if deck.mid_round:
        pairs.append("mid_round=1")
    return "&".join(pairs)


def load_deck_at(path: str | os.PathLike[str], deck: DeckLoad | None = None, *, timeout: float = 5.0) -> int:
    """The dealer loads ``deck`` (default: a full shuffled deck) into the emulator at ``path``; the cards held."""
    reply = send_control(path, "load " + deck_query(deck or DeckLoad()), timeout=timeout)
    return int(reply["loaded"])
