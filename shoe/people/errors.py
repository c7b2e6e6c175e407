"""A refusal of the people desk: a code, a message that says what to do, and the HTTP status it means."""

from __future__ import annotations

__all__ = ["PeopleError", "SignInRefused"]


class PeopleError(Exception):
    def __init__(self, code: str, message: str, status: int, hint: str | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.status, self.hint = code, message, status, hint


class SignInRefused(PeopleError):
    """A failed sign-in: the one answer every cause gets; ``cause`` (never shown) is for the metric."""

    def __init__(self, message: str, hint: str, cause: str) -> None:
        super().__init__("wrong-credentials", message, 401, hint)
        self.cause = cause
