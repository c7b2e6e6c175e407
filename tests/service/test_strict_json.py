"""Strict JSON (shoe/service/api/strict_json.py), property-based: the one place a body's bytes become data.

A duplicate member name, a ``NaN``/``Infinity`` or a lone surrogate is refused at any depth, and
nothing else is: trees are generated with objects as lists of members (so a name can repeat), written
out as JSON text by hand, and the verdict is compared with what the tree itself holds. Any bytes at
all are either a value or a ``JsonError``, never another exception (the old edge answered
``{"badge":1.0,"pin":NaN}`` with a 500). The request decoder (``shoe.service.api.requests.decode``) is
checked to go through it for every request type.
"""

from __future__ import annotations

import contextlib
import json
import math
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from shoe.service.api import requests
from shoe.service.api.strict_json import MAX_DEPTH, JsonError, loads


@dataclass(frozen=True)
class Obj:
    members: tuple[tuple[str, Any], ...]


NAMES = st.text(alphabet="abcxyz", min_size=0, max_size=3)  # few names: duplicates come up often
SURROGATE = st.sampled_from(["\ud800", "\udbff", "\udc00", "\udfff", "a\ud83d", "\ude00b"])
TEXT = st.one_of(st.text(max_size=5), SURROGATE)  # st.text() holds no surrogate: add them on purpose
LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**64 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    TEXT,
)
TREES = st.recursive(
    LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(st.tuples(st.one_of(NAMES, SURROGATE), inner), max_size=4).map(lambda m: Obj(tuple(m))),
    ),
    max_leaves=25,
)


def write(node: Any) -> str:
    """JSON text of ``node`` exactly as built: repeated names kept, NaN and Infinity as the tokens."""
    if isinstance(node, Obj):
        return "{" + ",".join(f"{json.dumps(k)}:{write(v)}" for k, v in node.members) + "}"
    if isinstance(node, list):
        return "[" + ",".join(write(v) for v in node) + "]"
    if isinstance(node, float) and not math.isfinite(node):
        return "NaN" if math.isnan(node) else ("Infinity" if node > 0 else "-Infinity")
    return json.dumps(node)  # a lone surrogate comes out as its \\uXXXX escape, as an attacker sends it


def faults(node: Any) -> set[str]:
    """What in ``node`` strict JSON must refuse."""
    found: set[str] = set()
    if isinstance(node, Obj):
        names = [k for k, _ in node.members]
        if len(set(names)) < len(names):
            found.add("duplicate")
        for k, v in node.members:
            if any(0xD800 <= ord(c) <= 0xDFFF for c in k):
                found.add("surrogate")
            found |= faults(v)
    elif isinstance(node, list):
        for v in node:
            found |= faults(v)
    elif isinstance(node, float) and not math.isfinite(node):
        found.add("nonfinite")
    elif isinstance(node, str) and any(0xD800 <= ord(c) <= 0xDFFF for c in node):
        found.add("surrogate")
    return found


def plain(node: Any) -> Any:
    if isinstance(node, Obj):
        return {k: plain(v) for k, v in node.members}
    if isinstance(node, list):
        return [plain(v) for v in node]
    return node


MESSAGE = {"duplicate": "appears twice", "nonfinite": "not valid JSON", "surrogate": "surrogate"}


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(TREES)
def test_refused_exactly_when_a_duplicate_a_non_number_or_a_surrogate_is_anywhere(tree: Any) -> None:
    text = write(tree).encode("utf-8")
    found = faults(tree)
    if not found:
        assert loads(text) == plain(tree)
        return
    with pytest.raises(JsonError) as refused:
        loads(text)
    if len(found) == 1:
        assert MESSAGE[found.pop()] in str(refused.value)


@given(TREES, st.integers(0, 12), NAMES)
def test_a_duplicate_name_is_refused_at_every_depth_with_its_path(tree: Any, depth: int, name: str) -> None:
    assume(not faults(tree))
    inner = Obj(((name, tree), (name, 1)))  # the duplicate at the innermost object
    node: Any = inner
    for level in range(depth):  # wrap it: arrays and objects alternating, the path growing
        node = [0, node] if level % 2 else Obj((("k", node),))
    expected = _path_to(node, inner)
    with pytest.raises(JsonError, match="appears twice") as refused:
        loads(write(node).encode())
    assert str(refused.value).startswith(f"{expected}: "), (str(refused.value), expected)


def _path_to(node: Any, target: Obj, path: str = "$") -> str:
    if node is target:
        return path
    if isinstance(node, Obj):
        for k, v in node.members:
            if (isinstance(v, (Obj, list))) and (hit := _path_to(v, target, f"{path}.{k}")) != "":
                return hit
    if isinstance(node, list):
        for i, v in enumerate(node):
            if isinstance(v, (Obj, list)) and (hit := _path_to(v, target, f"{path}[{i}]")) != "":
                return hit
    return ""


@given(st.integers(0, 12), st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999", "-1e400"]))
def test_a_non_finite_number_is_refused_at_every_depth(depth: int, token: str) -> None:
    text = token
    for level in range(depth):
        text = f'{{"a": {text}}}' if level % 2 else f"[1, {text}]"
    with pytest.raises(JsonError, match=r"not valid JSON|out of range"):
        loads(text.encode())


@given(st.binary(max_size=200))
def test_any_bytes_are_a_value_or_a_json_error(raw: bytes) -> None:
    with contextlib.suppress(JsonError):
        loads(raw)


@given(st.integers(MAX_DEPTH + 1, 5000))
def test_nesting_past_the_bound_is_refused(depth: int) -> None:
    with pytest.raises(JsonError, match="nested deeper"):
        loads(b"[" * depth + b"]" * depth)


def test_integers_past_64_bits_and_byte_order_marks_and_other_encodings_are_refused() -> None:
    for raw in (b'{"a": 18446744073709551616}', b'{"a": -9223372036854775809}', b"[" + b"9" * 5000 + b"]"):
        with pytest.raises(JsonError, match="out of range"):
            loads(raw)
    for raw in (b'\xef\xbb\xbf{"a": 1}', '{"a": 1}'.encode("utf-16"), b'{"a": "\xed\xa0\x80"}'):
        with pytest.raises(JsonError, match="not valid JSON"):
            loads(raw)
    assert loads(b'{"a": 18446744073709551615, "b": -9223372036854775808}') == {
        "a": 2**64 - 1,
        "b": -(2**63),
    }


KINDS = [requests.OpenRound, requests.Decide, requests.Void, requests.ProgressiveInputs, requests.LoadDeck]


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: str(getattr(k, "__name__", k)))
@given(tree=TREES)
@settings(max_examples=60)
def test_every_request_type_decodes_through_strict_json(kind: Any, tree: Any) -> None:
    """A request body with a fault anywhere is refused before its type is looked at; any body is a
    request or a ``RequestError`` (a 400), never another exception (a 500)."""
    text = write(Obj((("x", tree),))).encode()
    try:
        requests.decode(text, kind)
    except requests.RequestError as exc:
        if faults(tree):
            assert any(m in str(exc) for m in MESSAGE.values()), str(exc)
    else:
        raise AssertionError("an unknown field was accepted")


def test_the_sign_in_body_of_the_attack_is_refused() -> None:
    with pytest.raises(requests.RequestError, match=r"\$\.pin: NaN is not valid JSON"):
        requests.decode(b'{"badge":1.0,"pin":NaN}', requests.Decide)
    with pytest.raises(requests.RequestError, match=r"\$\.seats\[0\]: the member name 'ante' appears twice"):
        requests.decode(
            b'{"game":"mississippi-stud","jurisdiction":"NY","seats":[{"seat":1,"ante":500,"ante":0}]}',
            requests.OpenRound,
        )
