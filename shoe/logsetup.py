"""structlog set-up, done once at start-up by an entry point (never at import).

Console rendering on a terminal, JSON lines otherwise; stdlib logging from pyserial, pyusb and
transitions goes through the same processors. Card identities never go to this log.

Importing this module imports structlog without ``rich`` (:func:`_import_structlog_plain`), so an entry
point imports it before anything else that logs (``shoe.shoed`` does).
"""

from __future__ import annotations

import logging
import sys
from types import ModuleType
from typing import Any


def _import_structlog_plain() -> ModuleType:
    """structlog, imported so that it does not import ``rich`` (nor colorama, better_exceptions).

    structlog imports rich at its own import whenever rich is installed (``structlog.dev``,
    ``structlog.tracebacks``), for pretty console tracebacks we never use: a line's exception is
    rendered as plain text by ``format_exc_info`` before any renderer sees it, and a rich traceback
    would show local variables (card codes among them). rich is not a dependency of this project; in
    a development environment other tools install it, and it cost ``shoed`` ~0.2 s and ~4.5 MiB
    resident (82 modules; start and RSS). A ``None`` in ``sys.modules`` makes ``import rich``
    raise ImportError, which structlog handles as "not installed"; the entry is removed again at once,
    so anything else in the process imports rich normally. Nothing changes when rich or structlog is
    already imported.
    """
    if "structlog" in sys.modules:
        return sys.modules["structlog"]
    hidden = [name for name in ("rich", "colorama", "better_exceptions") if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        import structlog
    finally:
        for name in hidden:
            if sys.modules.get(name, 0) is None:
                del sys.modules[name]
    return structlog


_import_structlog_plain()

import structlog  # noqa: E402  (imported above without rich; this binds the name)

from protocols.bootid import BOOT_ID_KEYS, boot_id_text  # noqa: E402


def get_logger(name: str) -> Any:
    """``structlog.get_logger``, for an entry point that imports this module before structlog."""
    return structlog.get_logger(name)


def boot_ids_in_hex(logger: object, method: str, event: structlog.types.EventDict) -> structlog.types.EventDict:
    """A log line shows a boot id as the API and the CLI do: 8 lower-case hex digits (docs/journal.md)."""
    for key in BOOT_ID_KEYS & event.keys():
        if type(event[key]) is int:
            event[key] = boot_id_text(event[key])
    return event


def configure(level: str = "warning", *, json_lines: bool | None = None, stream: object = None) -> None:
    out = stream or sys.stderr
    if json_lines is None:
        json_lines = not getattr(out, "isatty", lambda: False)()
    shared: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        boot_ids_in_hex,
    ]
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer() if json_lines else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        # filter_by_level first: a line below the level is dropped before any processor runs (a debug
        # line on a hot path then costs one level check, not the chain).
        processors=[structlog.stdlib.filter_by_level, *shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        # Not cached: a cached logger would ignore later reconfiguration (tests capture logs per test).
        cache_logger_on_first_use=False,
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared,
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,
            renderer,
        ],
    )
    handler = logging.StreamHandler(out)  # type: ignore[arg-type]
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for noisy in ("usb", "serial"):
        logging.getLogger(noisy).setLevel(max(root.level, logging.INFO))
    # transitions logs every state's enter and exit callbacks at INFO (~40 lines a round), which our own
    # "action accepted" entries already say: only with --log-level debug.
    logging.getLogger("transitions").setLevel(logging.DEBUG if root.level <= logging.DEBUG else logging.WARNING)
