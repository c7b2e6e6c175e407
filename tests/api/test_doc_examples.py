"""The curl examples of docs/api.md are valid requests: every ``post PATH 'BODY'``
is decoded with the request type the registry gives that path, as the HTTP edge decodes it; and the
seven-card stud hand the document walks through plays, call by call, on the real service (journal
and emulated shoe loaded with the deck the document names) to the answers it documents."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import msgspec
import pytest

from drivers.emu_transport import EmulatorTransport
from drivers.emulator import EmulatedShoe, EmulatorConfig
from shoe.service import Role, ServiceConfig, TableService
from shoe.service.api import requests as rq
from shoe.service.api.registry import ACTIONS
from tests.service.conftest import FAST

DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"
POST = re.compile(r"^post (/v1/\S+)(?: '([^']*)')?", re.M)
BY_PATH = {action.path: action for action in ACTIONS}


def _section(title: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


def _calls(text: str) -> list[tuple[str, str]]:
    return [(m[1], m[2] or "") for m in POST.finditer(text)]


def test_every_documented_body_is_a_valid_request() -> None:
    calls = _calls(DOC.read_text(encoding="utf-8"))
    assert len(calls) >= 20
    for path, body in calls:
        assert path in BY_PATH, f"docs/api.md posts to {path}, which is no route"
        try:
            rq.decode(body.encode(), BY_PATH[path].request)
        except rq.RequestError as exc:
            pytest.fail(f"docs/api.md: post {path} {body!r} is refused by the edge: {exc}")


def test_the_stud_section_opens_with_a_table_and_the_endpoint_table_says_it_is_required() -> None:
    calls = _calls(_section("A seven-card stud hand with curl"))
    opened = json.loads(calls[0][1])
    assert calls[0][0] == "/v1/rounds" and opened["game"] == "seven-card-stud" and "table" in opened
    assert {path for path, _ in calls} >= {"/v1/round/deal", "/v1/round/stud-actions", "/v1/round/settle"}
    without = {k: v for k, v in opened.items() if k != "table"}
    with pytest.raises(rq.RequestError, match="table"):
        rq.decode(json.dumps(without).encode(), rq.OpenRound)
    row = next(line for line in DOC.read_text().splitlines() if line.startswith("| POST | `/v1/rounds` |"))
    assert "seven-card stud `{game, table, seats" in row


def _deck_of(section: str) -> tuple[str, ...]:
    """The emulator deck a section starts shoed with: inline (``emu://?deck=...``) or, as the doc advises, from
    a file (``emu://?deck_file=...``) its first command writes (``echo``, or out of an example's ``shoe``)."""
    inline = re.search(r'emu://\?deck=([2-9TJQKAcdhs]+)"', section) or re.search(
        r"echo ([2-9TJQKAcdhs]+) > ~/[a-z0-9-]+\.txt", section
    )
    if inline is not None:
        return tuple(inline[1][i : i + 2] for i in range(0, len(inline[1]), 2))
    example = re.search(r'json\.load\(open\("(examples/[a-z0-9-]+\.json)"\)\)\["shoe"\]', section)
    assert example is not None and "emu://?deck_file=" in section, "the section names no emulator deck"
    return tuple(json.loads((DOC.parents[1] / example[1]).read_text())["shoe"])


def test_the_documented_stud_hand_plays_to_its_documented_award(tmp_path: Path) -> None:
    section = _section("A seven-card stud hand with curl")
    codes = _deck_of(section)
    shoe = EmulatedShoe(EmulatorConfig(deck=codes))
    config = ServiceConfig(shoe_port="emu://", journal=tmp_path / "journal.sqlite", timeouts=FAST, submit_timeout=20.0)
    service = TableService(config, transport_factory=lambda: EmulatorTransport(shoe))
    service.start()
    try:
        deadline = time.monotonic() + 10.0
        while service.health()["shoe"]["link"] != "up":
            assert time.monotonic() < deadline
            time.sleep(0.02)
        replies: list[dict[str, Any]] = []
        for path, body in _calls(section):
            params = msgspec.json.decode(body.encode()) if body else {}
            replies.append(service.submit(BY_PATH[path].name, params, Role.DEALER))
        view = service.round_view(Role.OBSERVER)
    finally:
        service.stop()
        shoe.close()
    assert replies[0]["state"] == "deal-3rd" and replies[1]["state"] == "bring-in"
    assert replies[-1]["awards"] == {"4": 2300}
    assert view is not None and view["winners"] == [4] and view["pot_shares"] == {"4": 2300}


def _run_section(title: str, tmp_path: Path) -> list[tuple[str, dict[str, Any]]]:
    """Every ``post`` of a section, verbatim, on the real service with the emulator deck it names, each
    under the role its action takes (the table-system's inputs too); (path, answer) in order."""
    section = _section(title)
    codes = _deck_of(section)
    shoe = EmulatedShoe(EmulatorConfig(deck=codes))
    config = ServiceConfig(shoe_port="emu://", journal=tmp_path / "journal.sqlite", timeouts=FAST, submit_timeout=20.0)
    service = TableService(config, transport_factory=lambda: EmulatorTransport(shoe))
    service.start()
    replies: list[tuple[str, dict[str, Any]]] = []
    try:
        deadline = time.monotonic() + 10.0
        while service.health()["shoe"]["link"] != "up":
            assert time.monotonic() < deadline
            time.sleep(0.02)
        for path, body in _calls(section):
            params = msgspec.json.decode(body.encode()) if body else {}
            action = BY_PATH[path]
            replies.append((path, service.submit(action.name, params, action.role)))
    finally:
        service.stop()
        shoe.close()
    return replies


def _example_settlement(name: str) -> dict[int, tuple[int, dict[str, int]]]:
    """What ``shoectl play`` settles for an example: each seat's net and side wagers' nets."""
    from shoe.play import dry_run, load_script

    record = dry_run(load_script(DOC.parents[1] / "examples" / f"{name}.json"))
    return {
        int(seat): (s["net"], {bet: line["net"] for bet, line in s.get("side", {}).items()})
        for seat, s in record["seats"].items()
    }


@pytest.mark.parametrize(
    ("title", "example"),
    [
        ("A Pennsylvania round with every side wager, with curl", "pa-mississippi-stud"),
        ("A New Jersey round with a better paytable, with curl", "nj-mississippi-stud"),
    ],
)
def test_the_documented_mississippi_round_settles_as_its_play_script(title: str, example: str, tmp_path: Path) -> None:
    replies = _run_section(title, tmp_path)
    assert replies[-1][0] == "/v1/round/settle" and replies[-1][1]["state"] == "complete"
    settled = {
        line["seat"]: (line["net"], {side["bet"]: side["net"] for side in line["side"]})
        for line in replies[-1][1]["lines"]
    }
    expected = _example_settlement(example)
    assert {seat: got for seat, got in settled.items()} == {s: expected[s] for s in settled}
    assert set(settled) | {s for s, (net, side) in expected.items() if not side and net < 0} >= set(expected)
    for path, reply in replies:  # each comment's state is the answer's
        line = next(x for x in _section(title).splitlines() if x.startswith(f"post {path}"))
        if '# "state": ' in line and path not in ("/v1/round/decisions", "/v1/round/reveal"):
            assert f'"state": "{reply["state"]}"' in line, (line, reply["state"])


def test_the_documented_eight_seat_stud_hand_reshuffles_the_burns(tmp_path: Path) -> None:
    replies = _run_section("An 8-seat seven-card stud hand with the burn reshuffle, with curl", tmp_path)
    paths = [p for p, _ in replies]
    reshuffle = paths.index("/v1/round/reshuffle-burns")
    assert replies[reshuffle][1]["burns_loaded"] is True
    seventh = replies[reshuffle + 1]
    assert seventh[0] == "/v1/round/deal" and [c["target"] for c in seventh[1]["cards"]] == ["burn", "common"]
    assert replies[-1][0] == "/v1/round/settle" and sum(replies[-1][1]["awards"].values()) == 8 * (25 + 100)
