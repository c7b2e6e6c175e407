#!/usr/bin/env python3
"""Processes and clients for the service benchmark (``bench/service.py``).

In the benchmark's process:

- :class:`ShoedProcess`: the real ``shoed`` (``python -m shoe.shoed``) on a shoe port, a fresh
  journal and a free HTTP port; its log (JSON lines) goes to a file, and readiness is its
  ``service ready`` line, as ``tests/service/test_main.py`` detects it;
- :class:`EmulatorProcess`: the instant emulated shoe on a pseudo-terminal in a child process (this
  file run as ``emulate``), which notes on ``CLOCK_MONOTONIC`` the moment each CARD_READ frame was
  written into the pty, and loads a fresh deck when told to (the dealer's job between two rounds:
  after ``release-stub`` a shoe is empty and the service opens a round only on a full deck);
- :class:`InprocServer`: the table service with the emulator in the same process, like
  ``shoed --port emu://``, in a child process (this file run as ``serve-emu``); it exists because an
  ``emu://`` shoe inside ``shoed`` cannot be given a new deck, so it would play one round only;
- :class:`Http` (keep-alive, or one connection per request), :class:`SseReader` (``GET /v1/events``
  over a raw socket, each event stamped with ``time.monotonic()`` when its bytes were received);
  the ``/proc`` readers for CPU time, wake-ups and memory are in ``bench/_proc.py``.

Every process started here is stopped by ``close()`` (SIGTERM, then SIGKILL); use them in ``with``.
The children speak one line at a time: a JSON line when ready, then ``ok``/JSON answers to commands
read from stdin (``load``, ``stamps``, ``quit``); stdin closing stops them too.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any, Self

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._probes import Http, HttpError, SseReader  # re-exported for bench/service.py
from drivers.emulator import EmulatedShoe, EmulatorConfig, PtyServer
from drivers.emulator.control import ControlServer
from protocols import codec
from protocols import messages as m
from protocols.cards import ALL_CODES
from protocols.framing import Deframer, Frame

__all__ = [
    "EmulatorProcess",
    "Http",
    "HttpError",
    "InprocServer",
    "ShoedProcess",
    "SseReader",
]

ROOT = Path(__file__).resolve().parents[1]
START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 15.0


# -- processes ------------------------------------------------------------------------------------------


def _stop(proc: subprocess.Popen[Any], timeout: float = STOP_TIMEOUT_S) -> int:
    """SIGTERM, wait, then SIGKILL; the exit status."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
    return proc.wait()


class _Child:
    """This file run as a child process: a JSON line when ready, then line answers to stdin commands."""

    def __init__(self, args: Sequence[str], log: Path) -> None:
        self.log = log
        self.name = f"bench/_shoed.py {args[0]}"
        self._log_file = log.open("ab")
        self._lines: queue.Queue[str | None] = queue.Queue()
        # One command and its answer at a time: the soak's unplugger thread and its dealer share the child, and
        # without it one took the other's answer (an unplug read the deck order the ledger had asked for).
        self._command_lock = threading.Lock()
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), *args],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log_file,
            text=True,
            bufsize=1,
        )
        self._reader = threading.Thread(target=self._read, name="bench-child-stdout", daemon=True)
        self._reader.start()
        try:
            self.info: dict[str, Any] = json.loads(self._line(START_TIMEOUT_S))
        except BaseException:
            self.close()
            raise

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def _line(self, timeout: float) -> str:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise RuntimeError(f"{self.name}: no answer in {timeout:.0f} s (log: {self.log})") from None
        if line is None:
            raise RuntimeError(f"{self.name} exited with {self.proc.wait()} (log: {self.log})")
        return line

    def command(self, name: str, timeout: float = 10.0) -> str:
        assert self.proc.stdin is not None
        with self._command_lock:
            self.proc.stdin.write(name + "\n")
            self.proc.stdin.flush()
            return self._line(timeout)

    def close(self) -> None:
        if self.proc.poll() is None and self.proc.stdin is not None:
            with contextlib.suppress(OSError, ValueError):
                self.proc.stdin.write("quit\n")
                self.proc.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(STOP_TIMEOUT_S)
        _stop(self.proc)
        self._reader.join(timeout=5)  # it ends at EOF, before its file is closed under it
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self._log_file.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class EmulatorProcess(_Child):
    """The instant emulated shoe on a pty (symlink ``link``), in its own process."""

    def __init__(self, link: Path, log: Path, seed: int = 1, *options: str) -> None:
        """``options``: more of the child's flags (``--deck``, ``--corrupt-rate``, ``--replug-max-s`` ...)."""
        super().__init__(["emulate", "--link", str(link), "--seed", str(seed), *options], log)
        self.link = link

    def load(self, deck: Sequence[str] = ()) -> None:
        """The dealer loads ``deck`` (top first), or a fresh shuffled one. ValueError: cards still in the shoe."""
        if (answer := self.command(f"load {','.join(deck)}".rstrip())) != "ok":
            if "ValueError" in answer:
                raise ValueError(answer)
            raise RuntimeError(f"emulator: load: {answer}")

    def unplug(self) -> None:
        """Pull the cable; the child plugs it back in after a random 0.05..replug-max-s seconds."""
        if (answer := self.command("unplug")) != "ok":
            raise RuntimeError(f"emulator: unplug: not ok ({len(answer)} characters not shown: it may be a deck)")

    def stats(self) -> dict[str, Any]:
        """The emulated mechanism's and line's counts, and every intact CARD_READ written (``reads_sent_intact``)."""
        return dict(json.loads(self.command("stats", timeout=60.0)))

    def stamps(self) -> dict[int, list[float]]:
        """``time.monotonic()`` just after each CARD_READ frame was written to the pty, by dispense id."""
        raw: dict[str, list[float]] = json.loads(self.command("stamps"))
        return {int(k): v for k, v in raw.items()}


class InprocServer(_Child):
    """The table service and its HTTP API with the emulator in the same process (``emu://``)."""

    def __init__(self, journal: Path, log: Path, seed: int = 1) -> None:
        super().__init__(["serve-emu", "--journal", str(journal), "--seed", str(seed)], log)
        self.url = str(self.info["http"])

    def load(self) -> None:
        if (answer := self.command("load")) != "ok":
            raise RuntimeError(f"serve-emu: load: {answer}")


class ShoedProcess:
    """``shoed --port PORT --journal JOURNAL --http 127.0.0.1:0 [--config FILE]``; its log lines go to ``log``.

    ``command``: what the interpreter runs instead of ``-m shoe.shoed`` (a probe that wraps it: bench/owner_cpu.py),
    given the same arguments. ``tree``: the checkout it runs from (``-m`` puts the working folder first on the
    path, before the installed one): another commit's worktree, to compare two trees in one run
    (bench/ab_trees.py)."""

    def __init__(
        self,
        port: str,
        journal: Path,
        log: Path,
        config: Path | None = None,
        command: Sequence[str] = ("-m", "shoe.shoed"),
        *,
        tree: Path = ROOT,
    ) -> None:
        self.log = log
        self._log_file: IO[str] = log.open("a")
        self._ready = threading.Event()
        self.url = ""
        self.proc = subprocess.Popen(
            [sys.executable, *command, "--port", port, "--journal", str(journal),
             "--http", "127.0.0.1:0", "--log-level", "info", *(["--config", str(config)] if config else [])],
            cwd=tree,
            stdin=subprocess.DEVNULL,
            stdout=self._log_file,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        self._reader = threading.Thread(target=self._read, name="bench-shoed-log", daemon=True)
        self._reader.start()
        try:
            if not self._ready.wait(START_TIMEOUT_S):
                raise RuntimeError(f"shoed: not ready in {START_TIMEOUT_S:.0f} s (log: {log})")
            if not self.url:
                raise RuntimeError(f"shoed exited with {self.proc.wait()} before it was ready (log: {log})")
        except BaseException:
            self.close()
            raise

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self._log_file.write(line)
            if not self._ready.is_set():
                with contextlib.suppress(ValueError):
                    event = json.loads(line)
                    if isinstance(event, dict) and event.get("event") == "service ready":
                        self.url = str(event.get("http") or "")
                        self._ready.set()
        self._log_file.flush()
        self._ready.set()

    def close(self) -> int:
        code = _stop(self.proc)
        self._reader.join(timeout=5)
        if self.proc.stderr is not None:
            self.proc.stderr.close()
        self._log_file.close()
        return code

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- HTTP and the event stream -------------------------------------------------------------------------


def _unsealed(frame: Frame) -> Frame:
    """An authenticated frame's message as a plain frame (the bench reads what the shoe sent; no MAC check)."""
    from drivers.emulator.mitm import _unsealed as unsealed

    return unsealed(frame)


class StampingPtyServer(PtyServer):
    """A pty server that notes when each CARD_READ frame left the shoe (``time.monotonic()`` after the write)."""

    def __init__(self, shoe: EmulatedShoe, link: str | None = None) -> None:
        self.stamps: dict[int, list[float]] = {}
        self.reads: set[tuple[int, int]] = set()  # (dispense id, position) of every intact CARD_READ written
        self._deframer = Deframer()
        super().__init__(shoe, link)

    def _send(self, fd: int, data: bytes) -> int:
        sent = os.write(fd, data)
        now = time.monotonic()
        for frame in self._deframer.feed(data[:sent]):
            if not isinstance(frame, Frame):
                continue
            with contextlib.suppress(Exception):
                message = codec.decode(_unsealed(frame))
                if isinstance(message, m.CardReadEvent):
                    self.reads.add((message.dispense_id, message.position))
                    times = self.stamps.setdefault(message.dispense_id, [])
                    if len(times) < message.position:  # a re-sent frame keeps its first time
                        times.append(now)
        return sent


def _deck(rng: random.Random) -> list[str]:
    return rng.sample(ALL_CODES, len(ALL_CODES))


def _serve_commands(commands: dict[str, Callable[[str], str]]) -> None:
    """Answer ``NAME [ARGUMENT]`` lines on stdin, one line each, until ``quit`` or end of input."""
    print(json.dumps({"pid": os.getpid(), **json.loads(commands["info"](""))}), flush=True)
    for line in sys.stdin:
        name, _, argument = line.strip().partition(" ")
        if name == "quit":
            return
        try:
            answer = commands[name](argument)
        except Exception as exc:
            answer = f"error: {exc!r}"
        print(answer, flush=True)


def _emulate(args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    first = tuple(args.deck.split(",")) if args.deck else tuple(_deck(rng))
    shoe = EmulatedShoe(EmulatorConfig(deck=first, corrupt_rate=args.corrupt_rate, event_resend_s=args.event_resend_s))
    if args.key_file:  # paired with the table: the bench runs on an authenticated link (SPEC §13)
        from drivers.keyfile import create_key, load_key

        path = Path(args.key_file)
        shoe.pair(load_key(path) if path.exists() else create_key(path))
    # --no-stamps (the link's goals): a plain pty server. Stamping deframes and decodes every frame the shoe
    # writes, in the emulator's thread between its answer and its next read: 187-220 µs of the emulator's CPU
    # a dispense with it, 165-172 without (authenticated, quiet machine).
    server = PtyServer(shoe, link=args.link) if args.no_stamps else StampingPtyServer(shoe, link=args.link)
    stamps: dict[int, list[float]] = getattr(server, "stamps", {})
    reads: set[tuple[int, int]] = getattr(server, "reads", set())
    control = ControlServer(shoe, args.control) if args.control else None  # the dealer's load-deck, via shoed
    unplugs = 0

    def load(codes: str) -> str:
        shoe.load(codes.split(",") if codes else _deck(rng))
        return "ok"

    def unplug(_: str) -> str:
        """The cable is pulled now and back after 0.05..--replug-max-s seconds (answered at once)."""
        nonlocal unplugs
        shoe.unplug()
        unplugs += 1
        threading.Timer(rng.uniform(0.05, args.replug_max_s), shoe.replug).start()
        return "ok"

    def stats(_: str) -> str:
        figures = shoe.stats
        return json.dumps({
            "cards_moved": figures.cards_moved, "bytes_corrupted": figures.bytes_corrupted,
            "frames_in_bad": figures.frames_in_bad, "events_resent": figures.events_resent,
            "replays": figures.replays, "dispense_replays": figures.dispense_replays, "unplugs": unplugs,
            "reads_sent_intact": sorted(reads),
        })  # fmt: skip

    try:
        _serve_commands({
            "info": lambda _: json.dumps({"pty": server.path, "link": args.link}),
            "load": load,
            "unplug": unplug,
            "stats": stats,
            "stamps": lambda _: json.dumps(dict(stamps)),
            "deck": lambda _: ",".join(card.code for card in shoe._mech.deck),  # the bench's truth (soak ledger)
        })  # fmt: skip
    finally:
        if control is not None:
            control.close()
        server.close()
        shoe.close()


def _serve_emu(args: argparse.Namespace) -> None:
    from drivers.emu_transport import EmulatorTransport
    from shoe.api import serve
    from shoe.service import TableService, load_config

    config = load_config(None, {"port": "emu://", "journal": args.journal, "http": "127.0.0.1:0"})
    rng = random.Random(args.seed)
    shoe = EmulatedShoe(EmulatorConfig(deck=tuple(_deck(rng))))
    service = TableService(config, transport_factory=lambda: EmulatorTransport(shoe))
    service.start()
    api = serve(service, config)

    def load(_: str) -> str:
        shoe.load(_deck(rng))
        return "ok"

    try:
        _serve_commands({"info": lambda _: json.dumps({"http": api.url}), "load": load})
    finally:
        api.stop()
        service.stop()
        shoe.close()


def child_main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="bench/service.py's helper processes")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("emulate", help="the instant emulated shoe on a pty, stamping CARD_READ frames")
    p.add_argument("--link", required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--deck", default="", help="the first deck, codes separated by commas (default: seeded)")
    p.add_argument("--corrupt-rate", type=float, default=0.0)
    p.add_argument("--event-resend-s", type=float, default=0.2)
    p.add_argument("--replug-max-s", type=float, default=0.5)
    p.add_argument("--control", default="", help="serve the dealer's deck loading on this Unix socket")
    p.add_argument("--key-file", default="", help="pair the shoe with the key in this file (made if missing)")
    p.add_argument(
        "--no-stamps",
        action="store_true",
        help="no CARD_READ time stamps nor intact-read set (stamps and stats then report none)",
    )
    p = sub.add_parser("serve-emu", help="the table service and its API with an in-process emulated shoe")
    p.add_argument("--journal", required=True)
    p.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    from shoe import logsetup

    # To stderr (the log file): stdout carries the answers. The service logs at shoed's default level.
    logsetup.configure("info" if args.command == "serve-emu" else "warning")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # run the finally blocks
    {"emulate": _emulate, "serve-emu": _serve_emu}[args.command](args)


if __name__ == "__main__":
    child_main()
