"""A refusal of the people desk: a code, a message that says what to do, and the HTTP status it means."""

from __future__ import annotations

__all__ = ["PeopleError"]


class PeopleError(Exception):
    def __init__(self, code: str, message: str, status: int, hint: str | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.status, self.hint = code, message, status, hint
