"""structlog set-up, done once at start-up by an entry point (never at import).

Console rendering on a terminal, JSON lines otherwise; stdlib logging from pyserial, pyusb and
transitions goes through the same processors. Card identities never go to this log.
"""

from __future__ import annotations

import logging
import sys

import structlog

from protocols.bootid import BOOT_ID_KEYS, boot_id_text


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
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
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
