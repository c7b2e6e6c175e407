"""Printing for people and for machines: every command builds one dict, then ``emit`` shows it."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
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


def error_message(message: str, hint: str, *, as_json: bool, code: int, kind: str) -> None:
    if as_json:
        sys.stdout.write(json.dumps({"error": {"kind": kind, "message": message, "hint": hint, "exit": code}}) + "\n")
    sys.stderr.write(f"shoectl: error: {message}\n")
    if hint:
        sys.stderr.write(f"  hint: {hint}\n")
