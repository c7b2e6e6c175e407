"""The floor's one error type: the message says what is wrong and what to do."""

from __future__ import annotations

import re

__all__ = ["FloorError", "redact_url"]


class FloorError(Exception):
    """The floor database cannot be used as asked (unreachable, not migrated, refused)."""


_PASSWORD = re.compile(r"(://[^:/@]*:)[^@]*@|(password\s*=\s*)(\S+)", re.IGNORECASE)


def redact_url(url: str) -> str:
    """A libpq connection string without its password, for logs, status and messages."""

    def hide(m: re.Match[str]) -> str:
        return f"{m.group(1)}...@" if m.group(1) else f"{m.group(2)}..."

    return _PASSWORD.sub(hide, url)
