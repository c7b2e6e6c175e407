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


_PLAIN: frozenset[type[Any]] = frozenset({int, str, float, bool, type(None)})


def encode(value: Any) -> Any:
    """Any record field as JSON-ready data."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is Card:
        return value.code
    if isinstance(value, Card):
        return value.code
    if isinstance(value, Enum):
        return value.value
    if kind in _FIELDS or (dataclasses.is_dataclass(value) and not isinstance(value, type)):
        return encode_record(value)
    if isinstance(value, tuple | list | frozenset | set):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {str(encode(k)): encode(v) for k, v in value.items()}
    return value


_FIELDS: dict[type[Any], tuple[str, tuple[str, ...]]] = {}
"""A record class's tag and field names, looked up once per class (no ``dataclasses.fields`` per record)."""


def _layout(cls: type[Any]) -> tuple[str, tuple[str, ...]]:
    layout = _FIELDS.get(cls)
    if layout is None:
        layout = _FIELDS[cls] = (tag_of(cls), tuple(f.name for f in dataclasses.fields(cls)))
    return layout


def encode_record(record: Any) -> dict[str, Any]:
    tag, names = _layout(type(record))
    out: dict[str, Any] = {"type": tag}
    for name in names:
        out[name] = encode(getattr(record, name))
    return out


_HINTS: dict[type[Any], dict[str, Any]] = {}


def _hints(cls: type[Any]) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


Decoder = typing.Callable[[Any], Any]


@cache
def _decoder(hint: Any) -> Decoder:
    """The function that decodes a value of ``hint``, built once per hint (the checks of the first release)."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(hint)
        optional = type(None) in args
        choices = [_decoder(a) for a in args if a is not type(None)]

        def union(value: Any) -> Any:
            if value is None and optional:
                return None
            for choice in choices:
                try:
                    return choice(value)
                except (CodecError, ValueError, TypeError, KeyError):
                    continue
            raise CodecError(f"{value!r} matches none of {hint}")

        return union
    if origin is tuple:
        return _tuple_decoder(typing.get_args(hint))
    if hint is Card:
        return Card.parse
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _record_decoder(hint)
    if hint in (int, str, float, bool):
        return _plain_decoder(hint)

    def undecodable(value: Any) -> Any:
        raise CodecError(f"cannot decode {hint}")

    return undecodable


def _tuple_decoder(args: tuple[Any, ...]) -> Decoder:
    if len(args) == 2 and args[1] is Ellipsis:
        item = _decoder(args[0])

        def many(value: Any) -> Any:
            if not isinstance(value, list):
                raise CodecError(f"{value!r} is not a list")
            return tuple(item(v) for v in value)

        return many
    items = [_decoder(a) for a in args]

    def fixed(value: Any) -> Any:
        if not isinstance(value, list):
            raise CodecError(f"{value!r} is not a list")
        if len(items) != len(value):
            raise CodecError(f"{value!r} does not have {len(items)} items")
        return tuple(d(v) for d, v in zip(items, value, strict=True))

    return fixed


def _plain_decoder(hint: type[Any]) -> Decoder:
    def plain(value: Any) -> Any:
        if type(value) is not hint and not (hint is float and type(value) is int):
            raise CodecError(f"{value!r} is not {hint.__name__}")
        return value

    return plain


def _record_decoder(cls: type[Any]) -> Decoder:
    def nested(value: Any) -> Any:
        if not isinstance(value, dict):
            raise CodecError(f"{value!r} is not a {tag_of(cls)}")
        if "type" in value and value["type"] != tag_of(cls):
            raise CodecError(f"a {value['type']!r} where a {tag_of(cls)!r} belongs")
        return _build(cls, value)

    return nested


_DECODERS: dict[type[Any], tuple[tuple[str, Decoder], ...]] = {}


def _fields_of(cls: type[Any]) -> tuple[tuple[str, Decoder], ...]:
    """The init fields of ``cls`` and their decoders, built once per class (at first use: after every
    record class is defined, so forward references resolve)."""
    fields = _DECODERS.get(cls)
    if fields is None:
        hints = _hints(cls)
        fields = _DECODERS[cls] = tuple((f.name, _decoder(hints[f.name])) for f in dataclasses.fields(cls) if f.init)
    return fields


def _build(cls: type[Any], data: dict[str, Any]) -> Any:
    return cls(**{name: decode(data[name]) for name, decode in _fields_of(cls)})


def decode_record(data: dict[str, Any]) -> Any:
    """The rules record a journal entry holds; :class:`CodecError` if it is not one."""
    cls = _registry().get(str(data.get("type")))
    if cls is None:
        raise CodecError(f"unknown record type {data.get('type')!r}")
    try:
        return _build(cls, data)
    except KeyError as exc:
        raise CodecError(f"{tag_of(cls)} lacks field {exc}") from None
