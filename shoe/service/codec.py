"""The rules engines' frozen records to and from JSON-ready dicts, for the journal and for replay.

``encode_record(record)`` gives ``{"type": "StackRecord", "seat": 1, "cards": ["As", "Kd"], ...}``:
cards as codes, enums as their values, nested records as dicts. ``decode_record(data)`` rebuilds the
exact record from the field annotations, so ``shoe.rules.mississippi.replay`` and
``StudHand.replay`` can check the journal against the rules record by record.

The ``type`` is the record class's declared journal tag (``TAG: ClassVar[str]``), never its Python
name: a class renamed with its tag kept still reads every old journal. A record class (or a record
nested in one, such as ``WagerLine``) without a tag of its own is refused, and two classes with one
tag are an error at the first use. ``tests/journal/fixtures/record-tags.json`` pins the table of tags,
class names and field names (``tests/journal/test_record_tags.py``).
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

__all__ = ["CodecError", "decode_record", "encode", "encode_record", "record_types", "tag_of", "tagged_types"]


class CodecError(ValueError):
    """A journaled record that does not decode into a rules record, or a record class without a tag."""


def tag_of(cls: type[Any]) -> str:
    """The journal tag ``cls`` declares itself (``TAG``; inherited tags do not count)."""
    tag = vars(cls).get("TAG")
    if not isinstance(tag, str) or not tag:
        raise CodecError(
            f"record class {cls.__module__}.{cls.__qualname__} declares no journal tag: "
            'add `TAG: ClassVar[str] = "..."` (a new, stable name; never reuse one)'
        )
    return tag


def _nested(cls: type[Any]) -> list[type[Any]]:
    """The dataclasses ``cls``'s fields hold (a ``SeatSettlement``'s ``WagerLine`` and ``SideResult``)."""
    found: list[type[Any]] = []
    todo = list(typing.get_type_hints(cls).values())
    while todo:
        hint = todo.pop()
        todo.extend(typing.get_args(hint))
        if hint is Card or hint is cls or hint in found:  # a card is encoded as its code, not as a record
            continue
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            found.append(hint)
    return found


def _by_tag(classes: list[type[Any]]) -> dict[str, type[Any]]:
    out: dict[str, type[Any]] = {}
    for cls in classes:
        tag = tag_of(cls)
        if out.get(tag, cls) is not cls:
            raise CodecError(f"journal tag {tag!r} is declared by both {out[tag].__qualname__} and {cls.__qualname__}")
        out[tag] = cls
    return out


@cache
def _registry() -> dict[str, type[Any]]:
    return _by_tag([*typing.get_args(mississippi.Record), *typing.get_args(stud.Record)])


@cache
def _all_tagged() -> dict[str, type[Any]]:
    top = list(_registry().values())
    return _by_tag([*top, *(n for cls in top for n in _nested(cls))])


def record_types() -> dict[str, type[Any]]:
    """Every rules record type the journal may hold, by its ``type`` tag (what secrecy must declare)."""
    return dict(_registry())


def tagged_types() -> dict[str, type[Any]]:
    """Every tagged class the codec writes: the record types and the records nested in them."""
    return dict(_all_tagged())


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
    out: dict[str, Any] = {"type": tag_of(type(record))}
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
            raise CodecError(f"{value!r} is not a {tag_of(hint)}")
        if "type" in value and value["type"] != tag_of(hint):
            raise CodecError(f"a {value['type']!r} where a {tag_of(hint)!r} belongs")
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
        raise CodecError(f"{tag_of(cls)} lacks field {exc}") from None
