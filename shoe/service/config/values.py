"""The checked values of shoed's configuration file: the error that names a key, and the checks every
section shares (``shoe.service.config.settings`` reads the file; ``config_sections`` has the sections of their own)."""

from __future__ import annotations

import json
import math

__all__ = ["MAX_PATH", "MAX_SECONDS", "ConfigError", "seconds_value", "show_text", "show_value", "text_value"]

MAX_SECONDS = 3600.0
"""The longest wait any ``[shoe]`` or ``[service]`` key may set: an hour (``inf`` would never end)."""
MAX_PATH = 4096


class ConfigError(ValueError):
    """A configuration value that cannot be used: ``key`` (e.g. ``"http.port"``) and ``fix``."""

    def __init__(self, key: str, problem: str, fix: str) -> None:
        section, _, name = show_text(key).rpartition(".")
        where = f"[{section}] {name}" if section else f"[{name}]"
        if key.isupper():  # an environment variable: SHOED_HTTP
            where = f"{key} (environment)"
        super().__init__(f"{where}: {problem}: {fix}")
        self.key = key
        self.fix = fix


def show_value(value: object) -> str:
    """A value as an error message may quote it: one line, escaped, at most about 60 characters."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else f"{text[:40]}... ({len(text)} characters)"


def show_text(text: str) -> str:
    return text if text.isprintable() else json.dumps(text)[1:-1]


def text_value(key: str, value: object, limit: int) -> str | None:
    """``value`` if it is a string of 1-``limit`` printable characters (no newline, escape or NUL)."""
    if isinstance(value, str) and value.strip() and len(value) <= limit and value.isprintable():
        return value
    return None


def seconds_value(key: str, value: object, *, low: float = 0.0, high: float = MAX_SECONDS) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not (math.isfinite(value) and low < value <= high)
    ):
        raise ConfigError(
            key,
            f"{show_value(value)} is not a number of seconds above {low:g} and at most {high:g}",
            "use e.g. 30 or 2.5",
        )
    return float(value)
