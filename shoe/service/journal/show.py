"""One field's visibility rule, :class:`Show`, and the rules the journal's payload types declare on their fields (pure).

A journal payload type (:mod:`shoe.service.journal.payloads` and the other ``payloads`` modules) says on
each of its fields who may see it and from which moment, as the field's ``Annotated`` metadata::

    card: Annotated[CardCode | None, Show(Moment.DEALT_FACE_UP, Before.NULL, reached=entry_face_up)]
    cause: Annotated[str, TEXT]

:mod:`shoe.service.journal.visibility` derives each entry kind's allow-list from those declarations
(:func:`declared_rules`), so a field is declared once, where it is defined, and a field without a rule
is refused by name when the allow-list is built.

Why ``Annotated[T, Show(...)]`` and not ``msgspec.Meta(extra={...})``: msgspec (0.23) ignores
``Annotated`` metadata that is not a ``msgspec.Meta``: a struct converts, refuses, encodes, inspects
(``msgspec.inspect``) and has a JSON schema exactly as without it, at the same cost, and
``__struct_fields__`` is unchanged. The rule stays a typed object (mypy checks it; ``Meta.extra`` is a
plain dict, and it would also land in the JSON schema and the OpenAPI document, which are about types,
not secrecy). The rule is read back with ``typing.get_type_hints(cls, include_extras=True)``.

A payload's tag field (``action``, ``event``, ``game``: the sub-action) is no struct field; it is
vocabulary and always shown (:data:`TAG`).

This module knows no clock, file or device: it is imported by the payload types, below the journal's
writer and the service.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from protocols.bootid import boot_id_text
from shoe.rules.mississippi.records import RevealRecord

__all__ = [
    "ALWAYS", "BOOT_ID", "COUNTED", "NESTED", "NEVER", "TAG", "TEXT", "Before", "Moment", "Show", "declared_rules",
    "entry_face_up", "revealed",
]  # fmt: skip


class Moment(Enum):
    ALWAYS = "always"
    DEALT_FACE_UP = "dealt-face-up"
    REVEALED = "revealed"
    SEAT_SETTLED = "seat-settled"
    SHOWDOWN = "showdown"
    NEVER = "never"


class Before(Enum):
    """What stands in a field's place before its moment."""

    OMIT = "omit"
    NULL = "null"
    COUNT = "count"  # how many cards, never which


@dataclass(frozen=True)
class Show:
    """One field's rule: from which moment it shows, what stands in for it before, how it is shown."""

    moment: Moment = Moment.ALWAYS
    before: Before = Before.OMIT
    text: bool = False
    """Free text (a misdeal's detail, a pause's reason): shown with card codes scrubbed."""
    nested: bool = False
    """A list of nested records, each shown by its own declaration."""
    reached: Callable[[Mapping[str, Any]], bool] | None = None
    """Whether the moment has come, from the carrying record's fields; ``None``: the record is made at it."""
    form: Callable[[Any], Any] | None = None
    """How the value is shown when it is not shown as stored (docs/journal.md, "Stored forms and shown
    forms"): a boot id in hex, a ``RevealRecord``'s 0-based index as community card 1-3."""

    plain: bool = field(init=False, repr=False, compare=False)
    """Shown as stored, always: no moment, stand-in, scrub, nesting or form (the fast path of secrecy)."""

    def __post_init__(self) -> None:
        plain = self.moment is Moment.ALWAYS and self.reached is None and self.form is None
        object.__setattr__(self, "plain", plain and not self.text and not self.nested)

    @property
    def secret(self) -> bool:
        return self.moment is not Moment.ALWAYS

    def due(self, data: Mapping[str, Any]) -> bool:
        """Whether the field shows in ``data`` (the record or payload that carries it)."""
        if self.moment is Moment.NEVER:
            return False
        return self.reached is None or self.reached(data)


ALWAYS = Show()
TEXT = Show(text=True)
NEVER = Show(Moment.NEVER)
COUNTED = Show(Moment.NEVER, Before.COUNT)
NESTED = Show(nested=True)
TAG = ALWAYS
"""A payload's tag field (its sub-action): vocabulary, shown to everyone."""


def _hex_boot_id(value: Any) -> Any:
    return boot_id_text(value) if type(value) is int else value


BOOT_ID = Show(form=_hex_boot_id)
"""A boot id: stored as the shoe's integer, shown as 8 lower-case hex digits (protocols/bootid.py)."""


def entry_face_up(data: Mapping[str, Any]) -> bool:
    """A ``card`` entry's card is dealt face up to a seat or as the common card (not a burn)."""
    return data.get("face") == "up" and data.get("target") in ("seat", "common")


def revealed(data: Mapping[str, Any]) -> bool:
    """A ``reveal`` entry carries its ``RevealRecord`` (the community card is turned over)."""
    record = data.get("record")
    return isinstance(record, Mapping) and record.get("type") == RevealRecord.TAG


def declared_rules(cls: type[Any]) -> dict[str, Show]:
    """Each field of the msgspec struct ``cls`` (inherited ones included) and the one :class:`Show` it declares.

    Raises :class:`TypeError` naming the struct and the field when a field declares no rule, or more than one.
    """
    hints = typing.get_type_hints(cls, include_extras=True)
    out: dict[str, Show] = {}
    for name in cls.__struct_fields__:
        rules = [m for m in getattr(hints[name], "__metadata__", ()) if isinstance(m, Show)]
        if len(rules) != 1:
            what = "declares no visibility rule" if not rules else f"declares {len(rules)} visibility rules"
            raise TypeError(
                f"{cls.__module__}.{cls.__qualname__}.{name} {what}: annotate it Annotated[<type>, <Show>] "
                "(shoe.service.journal.show)"
            )
        out[name] = rules[0]
    return out
