"""``shoed``: the table service's entry point.

``shoed [--config FILE] [--port URL] [--journal PATH] [--http HOST:PORT] [--log-level LEVEL]``. With no
file it runs on defaults: the emulator as the shoe, the journal in the user's state directory, HTTP
on 127.0.0.1:8470. SIGTERM or SIGINT: the command in progress finishes (its journal writes with
it), a ``service`` stop entry is journaled, exit 0. Under systemd (``Type=notify``) it reports
readiness, pings the watchdog while the owner thread is responsive, and says when it is stopping.

Exit codes: 0 stopped cleanly, 1 could not start (journal, shoe port), 2 bad configuration or
arguments, or another shoed holds the journal, 3 the service died unexpectedly (a failed journal
write included). docs/service.md lists them.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import Any

import structlog

from drivers.transport import redact_port
from shoe import logsetup
from shoe.journal import JournalError
from shoe.journal.lock import JournalLocked
from shoe.service.config import LEVELS, ConfigError, ServiceConfig, load_config
from shoe.service.core import TableService
from shoe.service.notify import Notifier, Watchdog

__all__ = ["build_parser", "main", "serve"]

log = structlog.get_logger("shoe.shoed")
WATCHDOG_LIMIT_S = 60.0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="shoed", description="The card-dealing-shoe table service (docs/service.md).")
    p.add_argument("--config", type=Path, metavar="FILE", help="TOML configuration file (every key optional)")
    p.add_argument("--port", metavar="URL", help="the shoe: emu://, /dev/ttyUSB0, socket://HOST:PORT, usb://VID:PID")
    p.add_argument("--journal", metavar="PATH", help="the journal file (default: $SHOED_JOURNAL or the state dir)")
    p.add_argument("--http", metavar="HOST:PORT", help="where the HTTP API listens (default 127.0.0.1:8470)")
    p.add_argument("--log-level", choices=LEVELS, help="log level (default info)")
    p.add_argument(
        "--new-journal",
        action="store_true",
        help="start on a journal that the lock file says is not the one used here (missing, replaced, shorter): "
        "only once the loss is understood (docs/journal.md)",
    )
    return p


def start_api(service: TableService, config: ServiceConfig) -> Any | None:
    """The HTTP layer, when ``shoe.api`` is installed; ``None`` otherwise."""
    try:
        from shoe.api import serve
    except ImportError:
        log.warning("shoe.api is not available: running without HTTP")
        return None
    return serve(service, config)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    overrides = {"port": args.port, "journal": args.journal, "http": args.http, "log_level": args.log_level}
    try:
        config = load_config(args.config, overrides)
    except ConfigError as exc:
        print(f"shoed: configuration: {exc}", file=sys.stderr)
        return 2
    logsetup.configure(config.log_level)
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        log.info("signal received; stopping", signal=signal.Signals(signum).name)
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        return serve(config, stop, new_journal=args.new_journal)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def serve(config: ServiceConfig, stop: threading.Event, *, new_journal: bool = False) -> int:
    """Run the service (and its HTTP layer) until ``stop`` is set; the exit code."""
    notifier = Notifier()
    service = TableService(config)
    try:
        service.start(new_journal=new_journal)
    except JournalLocked as exc:
        log.error("cannot start: the journal is in use", error=str(exc), holder=exc.holder)
        print(f"shoed: cannot start: {exc}", file=sys.stderr)
        return 2
    except (JournalError, OSError) as exc:
        log.error("cannot start", error=str(exc))
        print(f"shoed: cannot start: {exc}", file=sys.stderr)
        return 1
    try:
        api = start_api(service, config)
    except (OSError, ValueError) as exc:
        log.error("cannot start the HTTP API", error=str(exc))
        service.stop()
        return 1
    url = getattr(api, "url", None)
    notifier.ready(f"serving table {config.table}" + (f" on {url}" if url else ""))
    log.info(
        "service ready", table=config.table, journal=str(config.journal), shoe=redact_port(config.shoe_port), http=url
    )
    watchdog = Watchdog(notifier, lambda: service.responsive(WATCHDOG_LIMIT_S))
    watchdog.start()
    died = False
    while not stop.wait(0.5):
        if not service.responsive(float("inf")):
            log.error("the owner thread died; exiting")
            died = True
            break
    notifier.stopping()
    watchdog.stop()
    if api is not None:
        api.stop()
    service.stop()
    return 3 if died else 0


if __name__ == "__main__":
    sys.exit(main())
