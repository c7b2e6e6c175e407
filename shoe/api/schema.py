"""Request bodies: the fields a route takes, checked before the service sees them.

The HTTP layer checks shape only (a JSON object, the required fields, their JSON types, no unknown
field); whether a value is legal at this point of the round is the service's call, which cites the
rule.  The same ``Field`` data feeds the OpenAPI document, so the two cannot disagree.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from shoe.api.errors import ApiError

__all__ = ["Field", "parse_body", "schema_of"]

_PYTHON_TYPES: Mapping[str, tuple[type, ...]] = {
    "integer": (int,),
    "number": (int, float),
    "string": (str,),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}


@dataclass(frozen=True)
class Field:
    """One member of a JSON request body."""

    name: str
    types: tuple[str, ...]
    description: str
    required: bool = True
    items: Mapping[str, Any] | None = None  # the JSON Schema of an array's items

    def accepts(self, value: object) -> bool:
        for json_type in self.types:
            if json_type in ("integer", "number") and isinstance(value, bool):
                continue  # JSON true is not 1
            if isinstance(value, _PYTHON_TYPES[json_type]):
                return True
        return False

    def json_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": self.types[0] if len(self.types) == 1 else list(self.types)}
        if self.items is not None:
            schema["items"] = dict(self.items)
        schema["description"] = self.description
        return schema


def _a(json_type: str) -> str:
    return json_type if json_type == "null" else ("an " if json_type[0] in "aeiou" else "a ") + json_type


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    for json_type in ("boolean", "integer", "number", "string", "object", "array"):
        if isinstance(value, _PYTHON_TYPES[json_type]):
            return json_type
    return type(value).__name__


def schema_of(fields: tuple[Field, ...], *, open_body: bool = False) -> dict[str, Any]:
    """The JSON Schema of a body made of ``fields`` (``open_body`` admits members not listed)."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {f.name: f.json_schema() for f in fields},
        "additionalProperties": open_body,
    }
    required = [f.name for f in fields if f.required]
    if required:
        schema["required"] = required
    return schema


def parse_body(raw: bytes, fields: tuple[Field, ...], *, open_body: bool = False) -> dict[str, Any]:
    """The checked parameters of a request body; ``ApiError("bad-request")`` names what is wrong."""
    if not raw.strip():
        value: object = {}
    else:
        try:
            value = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise ApiError("bad-request", f"the body is not UTF-8: {exc.reason} at byte {exc.start}") from exc
        except json.JSONDecodeError as exc:
            raise ApiError(
                "bad-request", f"the body is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
            ) from exc
    if not isinstance(value, dict):
        raise ApiError("bad-request", f"the body must be a JSON object, not {_a(_type_name(value))}")
    known = {f.name: f for f in fields}
    if not open_body:
        unknown = sorted(set(value) - set(known))
        if unknown:
            allowed = ", ".join(known) or "none"
            raise ApiError("bad-request", f"unknown field(s) {', '.join(unknown)}; this request takes: {allowed}")
    for f in fields:
        if f.name not in value:
            if f.required:
                raise ApiError("bad-request", f"missing field {f.name!r} ({f.description})")
            continue
        if not f.accepts(value[f.name]):
            wanted = " or ".join(_a(t) for t in f.types)
            raise ApiError("bad-request", f"field {f.name!r} must be {wanted}, not {_type_name(value[f.name])}")
    return value
