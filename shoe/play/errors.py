"""The one error of ``shoectl play`` scripts, and the small checks that build its messages.

A :class:`ScriptError` is a :class:`~shoe.rules.errors.RuleViolation`: ``shoectl`` turns every
``RuleViolation`` into exit code 9 (``Exit.RULES``).  Its message starts with the JSON path of the
value at fault (``seats["2"].decisions[0]``, ``shoe[7]``, ``actions[3]``) and ends with the fix; the
rule, when one applies, follows in parentheses. The values that are also requests of the table
service (the table system's inputs, a stud table, seats, amounts) are checked by the same types as
at its HTTP edge (:func:`typed`, ``shoe.service.api.requests``).
"""

from __future__ import annotations

from collections.abc import Iterator, Set
from contextlib import contextmanager
from typing import Any

from shoe.rules.errors import RuleViolation
from shoe.service.api.requests import RequestError, convert_value

__all__ = ["CutShort", "ScriptError", "at", "expect_int", "expect_object", "typed"]


class ScriptError(RuleViolation):
    """An illegal script: the message names the JSON path, the problem and the fix."""

    default_code = "illegal-script"

    def __init__(self, message: str, *, rule: str = "", code: str | None = None) -> None:
        super().__init__(message, rule=rule, code=code)


class CutShort(Exception):
    """A round that had begun dealing and could not go on: it is void (every chip returned) and still
    has a record (rules digest, "Irregularities": a round that cannot be completed is a misdeal).

    ``cause`` is what cut it short: a :class:`~drivers.errors.ShoeError` (a jam, the link lost) or a
    :class:`ScriptError` (a stud action that does not fit the cards a real shoe dealt). The game
    driver sets ``played`` (the voided round); :func:`shoe.play.play_on_shoe` sets ``record`` from it.
    """

    def __init__(self, cause: Exception, played: object) -> None:
        super().__init__(str(cause))
        self.cause = cause
        self.played = played
        self.record: dict[str, Any] = {}


@contextmanager
def at(path: str) -> Iterator[None]:
    """Prefix a rules engine refusal with the JSON path of the script value that caused it."""
    try:
        yield
    except ScriptError:
        raise
    except RuleViolation as exc:
        raise ScriptError(f"{path}: {exc.message}", rule=exc.rule, code=exc.code) from exc


def expect_object(value: Any, path: str, required: Set[str], optional: Set[str] | None) -> dict[str, Any]:
    """``value`` as a JSON object with every ``required`` key and no key outside ``required | optional``
    (``optional=None``: any other key is allowed)."""
    if not isinstance(value, dict):
        keys = ", ".join(sorted(required)) or "its entries"
        raise ScriptError(f"{path}: expected an object with {keys}, not {type(value).__name__} {value!r}")
    missing = sorted(required - value.keys())
    if missing:
        raise ScriptError(f"{path}: missing {', '.join(repr(k) for k in missing)}: add it")
    if optional is not None:
        unknown = sorted(value.keys() - required - optional)
        if unknown:
            known = ", ".join(repr(k) for k in sorted(required | optional))
            raise ScriptError(f"{path}: unknown key {unknown[0]!r}: the keys here are {known}")
    return value


def expect_int(value: Any, path: str, *, low: int = 0) -> int:
    """A whole number (cents, a seat, a count) of at least ``low``; JSON ``true`` is not a number."""
    if type(value) is not int or value < low:
        raise ScriptError(f"{path}: {value!r} is not a whole number >= {low} (amounts are integer cents)")
    return value


def typed(value: Any, kind: Any, path: str) -> Any:
    """``value`` as the request type ``kind`` of the service's edge (shoe/service/api/requests.py): the same
    ranges, card codes and strictness as over HTTP; a problem names its script path."""
    try:
        return convert_value(value, kind, path)
    except RequestError as exc:
        raise ScriptError(str(exc)) from None
