"""The rules engines' frozen records to and from JSON-ready dicts, for the journal and for replay.

``encode_record(record)`` gives ``{"type": "StackRecord", "seat": 1, "cards": ["As", "Kd"], ...}``:
cards as codes, enums as their values, nested records as dicts. ``decode_record(data)`` rebuilds the
exact record from the field annotations, so ``shoe.rules.mississippi.replay`` and
``StudHand.replay`` can check the journal against the rules record by record.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from enum import Enum
from functools import cache
from typing import Any

from shoe.cards import Card
from shoe.rules import mississippi, stud

__all__ = ["CodecError", "decode_record", "encode", "encode_record", "record_types"]


class CodecError(ValueError):
    """A journaled record that does not decode into a rules record."""


@cache
def _registry() -> dict[str, type[Any]]:
    classes = [*typing.get_args(mississippi.Record), *typing.get_args(stud.Record)]
    return {cls.__name__: cls for cls in classes}


def record_types() -> dict[str, type[Any]]:
    """Every rules record type the journal may hold, by its ``type`` tag (what secrecy must declare)."""
    return dict(_registry())


def encode(value: Any) -> Any:
    """Any record field as JSON-ready data."""
    if isinstance(value, Card):
        return value.code
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return encode_record(value)
    if isinstance(value, tuple | list | frozenset | set):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {str(encode(k)): encode(v) for k, v in value.items()}
    return value


def encode_record(record: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": type(record).__name__}
    for f in dataclasses.fields(record):
        out[f.name] = encode(getattr(record, f.name))
    return out


_HINTS: dict[type[Any], dict[str, Any]] = {}


def _hints(cls: type[Any]) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _decode(hint: Any, value: Any) -> Any:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(hint)
        if value is None and type(None) in args:
            return None
        for arg in (a for a in args if a is not type(None)):
            try:
                return _decode(arg, value)
            except (CodecError, ValueError, TypeError, KeyError):
                continue
        raise CodecError(f"{value!r} matches none of {hint}")
    if origin is tuple:
        args = typing.get_args(hint)
        if not isinstance(value, list):
            raise CodecError(f"{value!r} is not a list")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], v) for v in value)
        if len(args) != len(value):
            raise CodecError(f"{value!r} does not have {len(args)} items")
        return tuple(_decode(a, v) for a, v in zip(args, value, strict=True))
    if hint is Card:
        return Card.parse(value)
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint(value)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        if not isinstance(value, dict):
            raise CodecError(f"{value!r} is not a {hint.__name__}")
        return _build(hint, value)
    if hint in (int, str, float, bool):
        if type(value) is not hint and not (hint is float and type(value) is int):
            raise CodecError(f"{value!r} is not {hint.__name__}")
        return value
    raise CodecError(f"cannot decode {hint}")


def _build(cls: type[Any], data: dict[str, Any]) -> Any:
    hints = _hints(cls)
    kwargs = {f.name: _decode(hints[f.name], data[f.name]) for f in dataclasses.fields(cls) if f.init}
    return cls(**kwargs)


def decode_record(data: dict[str, Any]) -> Any:
    """The rules record a journal entry holds; :class:`CodecError` if it is not one."""
    cls = _registry().get(str(data.get("type")))
    if cls is None:
        raise CodecError(f"unknown record type {data.get('type')!r}")
    try:
        return _build(cls, data)
    except KeyError as exc:
        raise CodecError(f"{cls.__name__} lacks field {exc}") from None
