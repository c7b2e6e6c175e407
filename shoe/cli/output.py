"""Printing for people and for machines: every command builds one dict, then ``emit`` shows it."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TextIO


def emit(
    data: dict[str, Any], *, as_json: bool, human: Callable[[dict[str, Any]], str], stream: TextIO | None = None
) -> None:
    out = stream or sys.stdout
    if as_json:
        out.write(json.dumps(data, sort_keys=False) + "\n")
    else:
        out.write(human(data).rstrip("\n") + "\n")
    out.flush()


def emit_line(data: Mapping[str, Any], *, as_json: bool, text: str) -> None:
    """One line per item, for streams (``events --follow``): JSON lines or text lines."""
    sys.stdout.write((json.dumps(data) if as_json else text) + "\n")
    sys.stdout.flush()


def key_values(pairs: Mapping[str, Any], indent: int = 0) -> str:
    width = max((len(k) for k in pairs), default=0)
    pad = " " * indent
    return "\n".join(f"{pad}{k.replace('_', ' '):<{width}}  {v}" for k, v in pairs.items())


def columns(header: Sequence[str], rows: Iterable[Sequence[Any]], right: frozenset[int] = frozenset()) -> str:
    """A text table whose columns are as wide as their widest cell (header included), two spaces apart;
    the columns numbered in ``right`` are right-aligned (counts), the last column is never padded."""
    cells = [list(header), *([str(c) for c in row] for row in rows)]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    last = len(header) - 1

    def line(row: list[str]) -> str:
        return "  ".join(
            c.rjust(widths[i]) if i in right else c if i == last else c.ljust(widths[i]) for i, c in enumerate(row)
        )

    return "\n".join(line(row).rstrip() for row in cells)


def error_dict(message: str, hint: str, *, code: int, kind: str) -> dict[str, Any]:
    """The ``"error"`` member of a ``--json`` document (alone, or in a cut-short round's record)."""
    return {"kind": kind, "message": message, "hint": hint, "exit": int(code)}


def error_message(message: str, hint: str, *, as_json: bool, code: int, kind: str) -> None:
    """The error on stderr; under ``--json`` also as the one JSON document on stdout, ``{"error": ...}``."""
    if as_json:
        sys.stdout.write(json.dumps({"error": error_dict(message, hint, code=code, kind=kind)}) + "\n")
        sys.stdout.flush()
    sys.stderr.write(f"shoectl: error: {message}\n")
    if hint:
        sys.stderr.write(f"  hint: {hint}\n")


class Refused(Exception):
    """A command refuses with a message, a hint and its exit code (printed by the command's guard)."""

    def __init__(self, message: str, hint: str, code: int) -> None:
        super().__init__(message)
        self.hint, self.code = hint, code
