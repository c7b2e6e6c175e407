"""A jurisdiction profile from data: a new jurisdiction that differs only in data needs no code.

:func:`profile_from_data` takes a mapping (a parsed TOML or JSON table; reading the file is the
caller's business, the rules engine does no I/O) naming the ``game`` and the profile it is
``based_on``, and any profile field to change.  Values are converted by the field's declared type:
enums by value, nested records (citations, the cap rule, stud streets) from tables, the base paytable
from ``{name, pays}``.  Anything else is refused with ``invalid-configuration`` naming the key::

    game = "mississippi-stud"
    based_on = "NY"
    jurisdiction = "XX"
    max_seats = 4
    [paytable]
    name = "xx-better"
    pays = { royal-flush = 1000, straight-flush = 200, ... }
    [rules]
    seats = "XX 1.1"
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from enum import Enum
from typing import Any

from shoe.rules.errors import RuleViolation
from shoe.rules.paytables import BasePaytable
from shoe.rules.profiles import MississippiProfile, StudProfile, get_profile

__all__ = ["profile_from_data"]

_RULE = "rules digest: jurisdiction profiles"


def _refuse(path: str, message: str) -> RuleViolation:
    where = f"profile key {path}" if path else "profile"
    return RuleViolation(f"{where}: {message}", rule=_RULE, code="invalid-configuration")


def _record(cls: type[Any], value: object, path: str, base: object | None) -> object:
    """A dataclass from a table: ``base`` with the given fields changed, or a new one (every field)."""
    if not isinstance(value, Mapping):
        raise _refuse(path, f"expected a table of {cls.__name__} fields, not {value!r}")
    hints = typing.get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    unknown = sorted(set(value) - set(names))
    if unknown:
        raise _refuse(path, f"unknown keys {unknown}; known: {names}")
    if base is None:
        missing = [n for n in names if n not in value]
        if missing:
            raise _refuse(path, f"missing keys {missing}")
    changes = {
        k: _convert(hints[k], v, f"{path}.{k}" if path else k, getattr(base, k) if base is not None else None)
        for k, v in value.items()
    }
    return dataclasses.replace(base, **changes) if base is not None else cls(**changes)  # type: ignore[type-var]


def _convert(hint: Any, value: object, path: str, base: object | None = None) -> object:
    """``value`` (parsed TOML/JSON) as the declared type ``hint``."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is BasePaytable:
        if not isinstance(value, Mapping) or set(value) != {"name", "pays"} or not isinstance(value["pays"], Mapping):
            raise _refuse(path, "a paytable is a table with a name and pays = { line = odds to 1, ... }")
        try:
            return BasePaytable.from_mapping(str(value["name"]), value["pays"])
        except ValueError as exc:
            raise _refuse(path, str(exc)) from None
    if origin in (tuple, frozenset):
        if isinstance(value, str | bytes) or not isinstance(value, list | tuple):
            raise _refuse(path, f"expected a list, not {value!r}")
        if origin is frozenset:
            return frozenset(_convert(args[0], v, f"{path}[{i}]") for i, v in enumerate(value))
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_convert(args[0], v, f"{path}[{i}]") for i, v in enumerate(value))
        if len(value) != len(args):
            raise _refuse(path, f"expected {len(args)} entries, not {len(value)}")
        return tuple(_convert(a, v, f"{path}[{i}]") for i, (a, v) in enumerate(zip(args, value, strict=True)))
    if isinstance(hint, type) and issubclass(hint, Enum):
        try:
            return hint(value)
        except ValueError:
            raise _refuse(path, f"{value!r} is not one of {[m.value for m in hint]}") from None
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _record(hint, value, path, base)
    if hint in (int, str, bool) and type(value) is hint:
        return value
    raise _refuse(path, f"expected {getattr(hint, '__name__', hint)}, not {value!r}")


def profile_from_data(data: Mapping[str, Any]) -> MississippiProfile | StudProfile:
    """The profile ``data`` describes: ``game``, ``based_on`` (a jurisdiction of that game) and the
    fields that differ.  Refused with ``invalid-configuration`` (or ``unknown-profile``) naming the key."""
    rest = dict(data)
    game, based_on = rest.pop("game", None), rest.pop("based_on", None)
    if not isinstance(game, str) or not isinstance(based_on, str):
        raise _refuse("", "needs game = <game> and based_on = <jurisdiction> (strings)")
    base = get_profile(game, based_on)
    profile = _record(type(base), rest, "", base)
    assert isinstance(profile, MississippiProfile | StudProfile)
    return profile
