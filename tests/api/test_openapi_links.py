"""The OpenAPI document's links walk a whole round: a client that knows nothing but the document (as
schemathesis's stateful phase does) goes from the deck to a settled round by following, from each
answer, a link of that answer, with the request body the link computes from it (runtime expressions
``$response.body#/...``). Before, the document declared no link at all."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import RealShoed


def _operations(doc: dict[str, Any]) -> dict[str, tuple[str, str, dict[str, Any]]]:
    out = {}
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            out[op["operationId"]] = (method.upper(), path, op)
    return out


def _evaluate(expr: Any, body: Any) -> Any:
    if isinstance(expr, dict):
        return {key: _evaluate(value, body) for key, value in expr.items()}
    if isinstance(expr, str) and expr.startswith("$response.body#/"):
        value = body
        for part in expr.removeprefix("$response.body#/").split("/"):
            value = value[int(part)] if isinstance(value, list) else value[part]
        return value
    return expr


def test_following_the_documents_links_settles_a_round(real_shoed: RealShoed) -> None:
    api = real_shoed.api
    ops = _operations(api.get("/v1/openapi.json"))

    def follow(source: str, answer: Any, name: str) -> Any:
        _, _, op = ops[source]
        status = next(s for s in op["responses"] if s.startswith("2"))
        link = op["responses"][status]["links"][name]
        target_method, target_path, _ = ops[link["operationId"]]
        if target_method == "GET":
            return link["operationId"], api.get(target_path)
        body = _evaluate(link.get("requestBody", {}), answer)
        return link["operationId"], api.post(target_path, body)

    step: tuple[str, Any] = ("getDeck", api.get("/v1/deck"))
    if step[1]["state"] != "checked":
        if step[1]["state"] != "awaiting-deck":
            step = follow(*step, "ReleaseStub")
            step = ("getDeck", api.get("/v1/deck"))
        step = follow(*step, "LoadDeck")
    step = follow(*step, "OpenNyRound")
    walked = [step[0]]
    for name in ("NoMoreBets", "Deal", "ReleaseStub", "Round"):
        step = follow(*step, name)
        walked.append(step[0])
    while step[1]["round"]["state"] != "complete":
        view = step[1]["round"]
        name = "Decide" if view["next_to_decide"] is not None else "Reveal" if view["next_reveal"] else "Settle"
        step = follow(*step, name)
        walked.append(step[0])
        step = follow(*step, "Round") if step[0] != "settle" else ("getRound", api.get("/v1/round"))
    assert {"openRound", "deal", "decide", "reveal", "settle"} <= set(walked), walked
    assert step[1]["round"]["state"] == "complete"
