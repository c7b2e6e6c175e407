"""Request bodies: a JSON body decoded straight into the action's request type, once, at the edge.

The types are ``shoe.service.api.requests`` (msgspec structs): strict JSON (no ``NaN``/``Infinity``, no
lone surrogate, integers within 64 bits), the fields of the type and no other, each of its type and
in its range. A body that is not so is ``400 bad-request`` naming the field's JSON path
(``$.seats[0].ante: expected int >= 0, got -5``). Whether a value is legal at this point of the round
is the service's call, which cites the rule. The same types generate the OpenAPI document's request
schemas (``shoe.api.openapi``), so the two cannot disagree.
"""

from __future__ import annotations

from typing import Any

from shoe.api.errors import ApiError

__all__ = ["parse_body"]


def parse_body(raw: bytes, kind: Any) -> Any:
    """The request of type ``kind`` in ``raw``; ``ApiError("bad-request")`` names what is wrong."""
    # Here, not at the top: the handler imports this module before shoed's first status, which no body reaches
    from shoe.service.api.requests import RequestError, decode

    try:
        return decode(raw, kind)
    except RequestError as exc:
        raise ApiError("bad-request", str(exc)) from None
