"""``shoed``: the table service's entry point.

``shoed [--config FILE] [--port URL] [--journal PATH] [--http HOST:PORT] [--log-level LEVEL]``. With no
file it runs on defaults: the emulator as the shoe, the journal in the user's state directory, HTTP
on 127.0.0.1:8470. SIGTERM or SIGINT: the command in progress finishes (its journal writes with
it), a ``service`` stop entry is journaled, exit 0. Under systemd (``Type=notify``) it reports
readiness, pings the watchdog while the owner thread is responsive, and says when it is stopping.

Start order: the configuration (the shoe port's URL parsed as its backend would, opening nothing),
then the HTTP address is bound, then the journal and the shoe: a taken port or a bad key is refused
in one line before anything is connected or journaled. ``SHOED_HTTP=HOST:PORT`` is the default HTTP
address (``shoe.service.config.settings.HTTP_ENV``). Exit codes: :data:`EXIT_MEANING`, the one table that
``--help`` prints and docs/service.md lists (tests hold both to it).
"""

from __future__ import annotations

import argparse
import ctypes
import errno
import signal
import sqlite3
import sys
import threading
from collections.abc import Sequence
from enum import IntEnum
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from drivers.transport import redact_port
from shoe import logsetup  # before any module that imports structlog: it imports it without rich
from shoe.api.starting import PendingService, Starting
from shoe.journal import JournalError
from shoe.journal.lock import JournalLock, JournalLocked
from shoe.service.config.settings import LEVELS, ConfigError, ServiceConfig, load_config

if TYPE_CHECKING:
    from shoe.service.core import TableService

__all__ = ["EXIT_MEANING", "Exit", "build_parser", "main", "serve"]

log = logsetup.get_logger("shoe.shoed")
WATCHDOG_LIMIT_S = 60.0
MAIN_WAIT_S = 5.0  # the main thread sleeps on the stop event: a signal or the owner thread's end wakes it at once


class Exit(IntEnum):
    OK = 0
    CANNOT_START = 1
    CONFIG = 2
    DIED = 3


EXIT_MEANING: dict[Exit, str] = {
    Exit.OK: "stopped cleanly (SIGTERM or SIGINT)",
    Exit.CANNOT_START: "could not start: the HTTP address is in use or not bindable, the journal or the employees "
    "store is unusable, "
    'or the program failed verification with [verify] on_mismatch = "refuse-start"',
    Exit.CONFIG: "bad configuration or arguments (the key and the fix are named), or another shoed holds the journal",
    Exit.DIED: "the service died: a failed journal write (disk full, I/O, its WAL deleted), or its owner thread died",
}
"""The one table of ``shoed``'s exit codes: ``--help`` prints it, docs/service.md lists it word for word."""

EPILOG = "exit codes:\n" + "\n".join(f"  {int(code)} {text}" for code, text in EXIT_MEANING.items()) + "\n"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="shoed",
        description="The card-dealing-shoe table service (docs/service.md).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--config", type=Path, metavar="FILE", help="TOML configuration file (every key optional)")
    p.add_argument("--port", metavar="URL", help="the shoe: emu://, /dev/ttyUSB0, socket://HOST:PORT, usb://VID:PID")
    p.add_argument("--journal", metavar="PATH", help="the journal file (default: $SHOED_JOURNAL or the state dir)")
    p.add_argument(
        "--http", metavar="HOST:PORT", help="where the HTTP API listens (default: $SHOED_HTTP, else 127.0.0.1:8470)"
    )
    p.add_argument("--log-level", choices=LEVELS, help="log level (default info)")
    p.add_argument(
        "--new-journal",
        action="store_true",
        help="start on a journal that the lock file says is not the one used here (missing, replaced, shorter): "
        "only once the loss is understood (docs/journal.md)",
    )
    return p


def bind_api(service: Any, config: ServiceConfig, starting: Any) -> Any | None:
    """The HTTP layer bound (not yet serving), when ``shoe.api`` is installed; ``None`` otherwise.
    ``starting`` (``shoe.api.starting.Starting``): it serves before the service is ready, and its employees
    store is given after its first status (:func:`attach_people`), so the route table's modules load after it."""
    try:
        from shoe.api.server import ApiServer
    except ImportError:
        log.warning("shoe.api is not available: running without HTTP")
        return None
    return ApiServer(service, config.http_host, config.http_port, tokens=config.tokens, starting=starting,
                     people_later=True)  # fmt: skip


def attach_people(api: Any, service: Any, config: ServiceConfig) -> str | None:
    """Give the serving ``api`` its employees store; why it cannot be opened (a line for a person), or None."""
    from shoe.api.people_routes import open_people, people_path

    try:
        api.attach_people(open_people(service, config))
    except (OSError, sqlite3.Error) as exc:
        where = people_path(config)
        return f"the employees store {where} cannot be opened ({exc}): check its directory and permissions"
    return None


def bind_problem(config: ServiceConfig, exc: OSError) -> str:
    """One line for a person: why the HTTP address cannot be bound, and what to do."""
    host = f"[{config.http_host}]" if ":" in config.http_host else config.http_host
    where = f"{host}:{config.http_port}"
    move = "choose another address with --http HOST:PORT or SHOED_HTTP=HOST:PORT"
    if exc.errno == errno.EADDRINUSE:
        return f"{where} is in use (another shoed, or another program, listens there): stop it, or {move}"
    if exc.errno == errno.EACCES:
        return f"{where} may not be bound by this user (ports below 1024 need privileges): {move}"
    if exc.errno == errno.EADDRNOTAVAIL:
        return f"{where} is not an address of this computer: {move}"
    return f"cannot listen on {where} ({exc.strerror or exc}): {move}"


M_ARENA_MAX = -8  # glibc's malloc.h
MALLOC_ARENAS = 2


def limit_malloc_arenas(arenas: int = MALLOC_ARENAS) -> bool:
    """At most ``arenas`` malloc arenas for the whole process, before any thread starts; whether glibc took it.

    glibc gives each thread that allocates an arena of its own (up to eight per CPU), and each keeps the memory
    freed into it: shoed's HTTP workers, the link's reader and the report's summary grew the resident set by about
    2 MiB after a bench's rounds (57.2 -> 55.3 MiB with two, against the 60 MB goal). Its Python threads take turns
    under the GIL, so two arenas cost no measurable CPU (docs/perf/start.md). The same as ``MALLOC_ARENA_MAX=2`` in
    the environment, which only works when set before the process starts. Not glibc: nothing done, False."""
    try:
        libc = ctypes.CDLL(None)
        return bool(libc.mallopt(M_ARENA_MAX, arenas))
    except (OSError, AttributeError):
        return False


def share_one_cpu() -> int | None:
    """Pin this thread, before any other starts, to one CPU: every thread of shoed inherits it (``[service]
    one_cpu``, on by default). Each action crosses threads (an HTTP worker, the owner, the link's reader) and
    each crossing moves the objects both threads touch, reference counts included, between two cores' caches
    when the kernel runs them on two; they take turns under the GIL anyway, so one core costs them no
    parallel work. ``bench/ab_trees.py`` against the same tree unpinned: 0.915x the CPU per two-seat round
    (0.869x with the journal on tmpfs), the client's wall time per round 0.93x (docs/performance.md, "One CPU
    for shoed's threads"). The CPU, or None: one CPU only, or not allowed (``drivers.affinity``; nothing changed)."""
    from drivers.affinity import pin_this_thread  # imports structlog: after logsetup has

    cpu = pin_this_thread()
    if cpu is not None:
        log.info("shoed's threads share one CPU", cpu=cpu)
    return cpu


def main(argv: Sequence[str] | None = None) -> int:
    limit_malloc_arenas()
    args = build_parser().parse_args(argv)
    overrides = {"port": args.port, "journal": args.journal, "http": args.http, "log_level": args.log_level}
    try:
        config = load_config(args.config, overrides)
    except ConfigError as exc:
        print(f"shoed: configuration: {exc}", file=sys.stderr)
        return Exit.CONFIG
    logsetup.configure(config.log_level)
    if config.one_cpu:
        share_one_cpu()
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
    """Run the service (and its HTTP layer) until ``stop`` is set; the exit code (:class:`Exit`)."""
    starting = Starting(table=config.table, journal=str(config.journal))
    pending = PendingService(config)  # the service is built once the first status is served: its imports wait
    try:  # bind first: a taken port is refused before the journal is opened or the shoe connected
        api = bind_api(pending, config, starting)
    except OSError as exc:
        log.error("cannot start: the HTTP address cannot be bound", error=str(exc))
        print(f"shoed: cannot start: {bind_problem(config, exc)}", file=sys.stderr)
        return Exit.CANNOT_START
    try:  # then the journal's lock: a second shoed on this journal is refused before it answers anything
        starting.at("journal-lock")
        lock = JournalLock.acquire(config.journal)
    except JournalLocked as exc:
        log.error("cannot start: the journal is in use", error=str(exc), holder=exc.holder)
        print(f"shoed: cannot start: {exc}", file=sys.stderr)
        _close(api)
        return Exit.CONFIG
    except JournalError as exc:
        log.error("cannot start", error=str(exc))
        print(f"shoed: cannot start: {exc}", file=sys.stderr)
        _close(api)
        return Exit.CANNOT_START
    url = getattr(api, "url", None)
    starting.at("loading")  # before the first answer: the lock is held, so no status may still say journal-lock
    if api is not None:  # GET /v1/status answers from now on; every other route 503 starting (shoe.api.starting)
        api.start()
        log.info("service starting", table=config.table, http=url)
        problem = attach_people(api, pending, config)
        if problem is not None:
            log.error("cannot start: the employees store cannot be opened", error=problem)
            print(f"shoed: cannot start: {problem}", file=sys.stderr)
            starting.stopped()
            _close(api)
            lock.release()
            return Exit.CANNOT_START
    from shoe.service.core import TableService  # the owner, the rounds, the rules engine: after the first status
    from shoe.service.notify import Notifier, Watchdog
    from shoe.service.verify.integrity import ProgramRefused

    notifier = Notifier()
    service = TableService(config)
    ended = threading.Event()  # the owner thread ended by itself: the service died

    def owner_ended() -> None:
        ended.set()
        stop.set()

    service.on_owner_end = owner_ended
    if api is not None:
        api.attach(service)
    try:
        starting.at("journal-and-shoe")
        service.start(new_journal=new_journal, lock=lock)
    except JournalLocked as exc:  # the journal file itself held under another name (a second hard link)
        log.error("cannot start: the journal is in use", error=str(exc), holder=exc.holder)
        print(f"shoed: cannot start: {exc}", file=sys.stderr)
        starting.stopped()
        _close(api)
        lock.release()
        return Exit.CONFIG
    except (JournalError, OSError, ProgramRefused) as exc:
        log.error("cannot start", error=str(exc))
        print(f"shoed: cannot start: {exc}", file=sys.stderr)
        starting.stopped()
        _close(api)
        lock.release()  # released by the journal's close already when the boot got that far; twice is harmless
        return Exit.CANNOT_START
    starting.at("floor")
    shipper = start_shipper(service, config)
    if api is not None:
        api.ready()
    notifier.ready(f"serving table {config.table}" + (f" on {url}" if url else ""))
    log.info(
        "service ready", table=config.table, journal=str(config.journal), shoe=redact_port(config.shoe_port), http=url
    )
    watchdog = Watchdog(notifier, lambda: service.responsive(WATCHDOG_LIMIT_S))
    watchdog.start()
    while not stop.wait(MAIN_WAIT_S):  # a signal or the owner's end sets it; the wait is the safety net
        if not service.responsive(float("inf")):
            ended.set()
            break
    died = ended.is_set()
    if died:
        log.error("the owner thread died; exiting")
    notifier.stopping()
    starting.stopped()
    watchdog.stop()
    _close(api)
    service.stop()
    if shipper is not None:
        shipper.stop(drain_s=2.0)  # the stop entry too, when the floor is there
    return Exit.DIED if died else Exit.OK


def start_shipper(service: TableService, config: ServiceConfig) -> Any | None:
    """The floor shipper (docs/floor.md), a thread of its own, when ``[floor] url`` is set; None otherwise."""
    if config.floor_url is None:
        return None
    from shoe.service.floor.shipper import Shipper, ShipperCollector

    shipper = Shipper(config.journal, config.floor_url, config.floor_table or config.table)
    service.metrics_registry.register(ShipperCollector(shipper))
    service.attach_floor(shipper.status, lambda: shipper.alarm)
    shipper.start()
    log.info("floor shipper started", floor=shipper.status()["url"], floor_table=shipper.table)
    return shipper


def _close(api: Any | None) -> None:
    if api is not None:
        api.stop()


if __name__ == "__main__":
    sys.exit(main())
