"""Strict JSON: the one place where a request body's bytes become data (RFC 8259 as I-JSON, RFC 7493).

Pure (no I/O). :func:`loads` accepts exactly the JSON that means one thing to every reader, and
refuses the rest with :class:`JsonError`, whose message names the JSON path of the problem:

- UTF-8 only, no byte-order mark (RFC 8259 §8.1); no other encoding is guessed;
- **no duplicate member name** in any object at any depth (RFC 7493 §2.3): readers disagree on
  which of two ``"amount"`` keys counts (most keep the last, some the first), so a body can show
  one value to a check and another to the action; "last wins" is how such a body was used;
- no ``NaN``, ``Infinity`` or ``-Infinity`` (not JSON), no number that overflows to infinity
  (``1e999``), no integer beyond 64 bits (RFC 7493 §2.2 asks for IEEE doubles; the request types
  are 64-bit integers), each refused before it is converted;
- no lone UTF-16 surrogate in a string or a member name (RFC 7493 §2.1): it is not text, and the
  journal's hash step cannot encode it;
- at most :data:`MAX_DEPTH` levels of nesting (deeper than any request type).

Why the stdlib parser and not msgspec's: msgspec keeps the last of two duplicate keys without
saying so and has no hook to see them; ``json`` has ``object_pairs_hook``. The bodies are small
(64 KiB at most, a round's are tens of bytes), so the hook's cost is a few microseconds.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

__all__ = ["MAX_DEPTH", "MAX_INT_DIGITS", "JsonError", "loads"]

MAX_DEPTH = 64
MAX_INT_DIGITS = 20  # 2**64 has 20 digits: longer is out of range whatever its value (and costly to convert)
_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1  # what msgspec's int covers: int64 and uint64


class JsonError(ValueError):
    """A body that is not strict JSON; ``str()`` says what and where (``$.seats[0]: ...``)."""


class _Refused:
    """What the parser's hooks leave where a value may not be: the walk names its path and refuses it."""

    __slots__ = ("why",)

    def __init__(self, why: str) -> None:
        self.why = why


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any] | _Refused:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            shown = key[:40].encode("unicode_escape").decode("ascii")
            return _Refused(f"the member name {shown!r} appears twice (each name once per object)")
        out[key] = value
    return out


def _constant(name: str) -> _Refused:
    return _Refused(f"{name} is not valid JSON (JSON numbers are finite)")


def _float(text: str) -> float | _Refused:
    value = float(text)
    return value if math.isfinite(value) else _Refused(f"the number {text[:40]} is out of range")


def _whole_float(text: str) -> float | int | _Refused:
    value = _float(text)
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _int(text: str) -> int | _Refused:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS or not _INT_MIN <= (value := int(text)) <= _INT_MAX:
        return _Refused(f"the integer {text[:24]}{'...' if len(text) > 24 else ''} is out of range (64 bits)")
    return value


_HOOKS: dict[str, Any] = {"object_pairs_hook": _pairs, "parse_constant": _constant, "parse_int": _int, "strict": True}
_DECODERS = {
    False: json.JSONDecoder(parse_float=_float, **_HOOKS),
    True: json.JSONDecoder(parse_float=_whole_float, **_HOOKS),
}
_SURROGATE = re.compile("[\\ud800-\\udfff]")


def _has_surrogate(text: str) -> bool:
    return not text.isascii() and _SURROGATE.search(text) is not None


def _walk(value: object, path: str, depth: int) -> None:
    """Refuse, naming its path, the first value the hooks marked, a lone surrogate, or too deep a nesting."""
    if depth >= MAX_DEPTH and isinstance(value, dict | list):  # the outermost object or array is level 1
        raise JsonError(f"{path}: nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, _Refused):
        raise JsonError(f"{path}: {value.why}")
    if isinstance(value, str):
        if _has_surrogate(value):
            raise JsonError(f"{path}: a lone UTF-16 surrogate is not text")
    elif isinstance(value, dict):
        for key, item in value.items():
            if _has_surrogate(key):
                raise JsonError(f"{path}: a member name holds a lone UTF-16 surrogate, which is not text")
            _walk(item, f"{path}.{key}", depth + 1)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _walk(item, f"{path}[{i}]", depth + 1)


def loads(raw: bytes, *, whole_floats: bool = False) -> Any:
    """The JSON value in ``raw``, or :class:`JsonError` if ``raw`` is not strict JSON (module docstring).

    ``whole_floats``: a number with a zero fraction (``2.0``, ``1e2``) is the integer it equals, as in
    JSON Schema (the request types' integers accept it; a fraction stays a float and is refused there).
    """
    try:
        text = raw.decode("utf-8")  # strict: an invalid byte or an encoded surrogate is refused here
    except UnicodeDecodeError as exc:
        raise JsonError(f"the body is not valid JSON: it is not UTF-8 (byte {exc.start})") from None
    if text.startswith("\ufeff"):
        raise JsonError("the body is not valid JSON: it starts with a byte-order mark (send UTF-8 without one)")
    try:
        value = _DECODERS[whole_floats].decode(text)
    except json.JSONDecodeError as exc:
        raise JsonError(f"the body is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise JsonError(f"the body is nested deeper than {MAX_DEPTH} levels") from None
    _walk(value, "$", 0)
    return value
