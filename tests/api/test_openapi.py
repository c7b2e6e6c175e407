"""The OpenAPI document: valid 3.1, generated from the route table, served as is."""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

import pytest

from shoe.api.errors import STATUS_CODES
from shoe.api.openapi import build_document
from shoe.api.routes import ROUTES
from tests.api.conftest import Client


def test_the_document_is_valid_openapi_3_1() -> None:
    validator = pytest.importorskip("openapi_spec_validator")
    document = build_document()
    assert document["openapi"] == "3.1.0"
    validator.validate(document)


def test_every_route_of_the_table_is_documented_once_with_its_roles() -> None:
    paths = build_document()["paths"]
    documented = {(method.upper(), path) for path, ops in paths.items() for method in ops}
    assert documented == {(r.method, r.path) for r in ROUTES}
    ids = [r.operation_id for r in ROUTES]
    assert len(ids) == len(set(ids))
    for route in ROUTES:
        op = paths[route.path][route.method.lower()]
        assert op["operationId"] == route.operation_id
        for role in route.roles:
            assert role.value in op["description"]
        assert op["security"] == ([{"bearer": []}] if route.roles else [])


def _resolve(document: dict[str, Any], ref: str) -> dict[str, Any]:
    node: Any = document
    for part in ref.removeprefix("#/").split("/"):
        node = node[part]
    assert isinstance(node, dict)
    return node


def test_every_error_response_carries_the_envelope_schema() -> None:
    document = build_document()
    for route in ROUTES:
        responses = document["paths"][route.path][route.method.lower()]["responses"]
        assert str(route.status) in responses
        errors = {int(s): r for s, r in responses.items() if int(s) >= 400}
        assert 500 in errors
        if route.roles:
            assert {401, 403} <= set(errors)
        if route.method == "POST":
            assert {400, 413, 415} <= set(errors)
        for response in errors.values():
            content = _resolve(document, response["$ref"])["content"]
            assert content["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
    envelope = document["components"]["schemas"]["Error"]["properties"]["error"]
    assert envelope["required"] == ["code", "message", "rule"]


def test_every_http_layer_error_code_has_a_documented_status() -> None:
    statuses = {int(k[1:]) for k in build_document()["components"]["responses"]}
    assert set(STATUS_CODES.values()) <= statuses


def test_request_bodies_are_the_schemas_of_the_types_the_server_decodes() -> None:
    doc = build_document()
    components = doc["components"]["schemas"]
    for route in ROUTES:
        if route.method != "POST":
            continue
        assert route.request is not None, route.path
        schema = doc["paths"][route.path]["post"]["requestBody"]["content"]["application/json"]["schema"]
        kinds = typing.get_args(route.request) or (route.request,)
        refs = [s["$ref"] for s in schema["anyOf"]] if "anyOf" in schema else [schema["$ref"]]
        assert refs == [f"#/components/schemas/{k.__name__}" for k in kinds]
        for kind in kinds:
            body = components[kind.__name__]
            fields = set(kind.__struct_fields__)
            tag = kind.__struct_config__.tag_field
            assert set(body["properties"]) == fields | ({tag} if tag else set())
            assert body["additionalProperties"] is False


def test_the_served_document_is_the_built_one_and_needs_no_token(secured_client: Client) -> None:
    answer = secured_client.call("GET", "/v1/openapi.json", token=None)
    assert answer.status == 200
    assert answer.headers["Content-Type"] == "application/json"
    assert json.loads(answer.body) == build_document()


def test_the_api_guide_names_every_route() -> None:
    guide = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
    for route in ROUTES:
        assert f"| {route.method} | `{route.path}` |" in guide, f"docs/api.md lacks {route.method} {route.path}"


def test_the_event_stream_is_declared_as_text_event_stream_of_events() -> None:
    """OpenAPI 3.1: the ``schema`` of a sequential media type describes one item (one event), not a string."""
    content = build_document()["paths"]["/v1/events"]["get"]["responses"]["200"]["content"]
    assert set(content) == {"text/event-stream"}
    event = content["text/event-stream"]["schema"]
    assert event["type"] == "object" and set(event["required"]) == {"data", "event"}
    assert event["properties"]["data"]["contentMediaType"] == "application/json"
    assert event["properties"]["id"]["pattern"] == "^[0-9]+$"


def test_every_integer_of_a_request_schema_has_a_range() -> None:
    """Request schemas carry their ranges: ``{"stacks": 0}`` was schema-valid but refused."""
    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            if node.get("type") == "integer":
                assert "minimum" in node and "maximum" in node, where
            if node.get("type") == "string" and "enum" not in node:
                assert "maxLength" in node or "pattern" in node, where
            for key, value in node.items():
                walk(value, f"{where}.{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{where}[{i}]")

    doc = build_document()
    for name, schema in doc["components"]["schemas"].items():
        if name != "Error":
            walk(schema, name)
    for path, ops in doc["paths"].items():
        if "post" in ops:
            walk(ops["post"]["requestBody"], path)
