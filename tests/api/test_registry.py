"""One registry of actions (shoe/service/api/registry.py): every action has its route, every route its action.

The review's example of the drift it removes (``reshuffle-burns`` had no route, so an 8-player
short-deck stud hand could not be finished over HTTP) is tests/api/test_edge.py.
"""

from __future__ import annotations

import re
import typing
from pathlib import Path
from typing import Any

import pytest

from shoe.api.routes import ROUTES
from shoe.service import Role, ServiceError, TableService
from shoe.service.api.actions import ROLES, TECHNICIAN_ACTIONS
from shoe.service.api.registry import ACTIONS, BY_NAME, GAMES, Scope, callable_now


def test_every_action_has_one_route_and_every_action_route_one_action() -> None:
    # the people routes (sign-in, employees: shoe/api/people_routes.py) are the API's own, not service actions
    posts = {(r.method, r.path): r for r in ROUTES if r.method == "POST" and r.tag != "people"}
    by_action = {r.action: r for r in ROUTES if r.action is not None}
    for action in ACTIONS:
        route = by_action.get(action.name)
        assert route is not None, f"action {action.name} has no route"
        assert (route.method, route.path) == ("POST", action.path)
        assert route.roles == (action.role,)
        assert route.request is action.request
        assert route.status == action.status
    for key, route in posts.items():
        assert route.action in BY_NAME, f"route {key} has no action in the registry"
    assert len(by_action) == len(ACTIONS) == len(posts)


def test_the_role_check_and_the_maintenance_scope_come_from_the_registry() -> None:
    assert {a.name: a.role for a in ACTIONS} == ROLES
    assert set(TECHNICIAN_ACTIONS) == {a.name for a in ACTIONS if a.scope is Scope.MAINTENANCE}


def test_callable_now_lists_a_games_actions_and_nothing_of_the_other_game() -> None:
    stud = callable_now("seven-card-stud", live=True)
    assert "reshuffle-burns" in stud and "stud-action" in stud and "decide" not in stud
    ny = callable_now("mississippi-stud", live=True)
    assert "decide" in ny and "reshuffle-burns" not in ny and "open-round" not in ny
    assert {"open-round", "release-stub", "verify-journal"} <= set(callable_now(None, live=False))


def test_the_request_types_name_the_profiles_and_faults_there_are() -> None:
    from protocols.codes import FaultCode
    from shoe.rules.profiles import PROFILES, STUD_PROFILES
    from shoe.service.api import requests as rq

    assert set(typing.get_args(rq.MississippiJurisdiction)) == set(PROFILES)
    assert set(typing.get_args(rq.StudJurisdiction)) == set(STUD_PROFILES)
    names = {f.name.lower() for f in FaultCode}
    assert set(typing.get_args(rq.FaultName)) == names | {n.replace("_", "-") for n in names}


def test_the_table_types_name_the_hands_and_side_wagers_there_are() -> None:
    from shoe.hands import Category, ThreeCardCategory
    from shoe.rules.paytables import BaseHand
    from shoe.rules.profiles import SideBet
    from shoe.service.api import requests as rq

    assert list(typing.get_args(rq.FiveCardHand)) == [c.value for c in Category]
    assert list(typing.get_args(rq.ThreeCardHand)) == [c.value for c in ThreeCardCategory]
    assert list(typing.get_args(rq.BaseHandName)) == [c.value for c in BaseHand]
    assert set(typing.get_args(rq.SideBetName)) == {b.value for b in SideBet}


MINIMAL: dict[str, dict[str, Any]] = {
    "chip-count": {"count": 0},
    "decide": {"seat": 1, "multiple": 1},
    "reveal": {"index": 1},
    "forfeit": {"seat": 1},
    "stud-action": {"seat": 1, "action": "check"},
}
OPENINGS: dict[str, dict[str, Any]] = {
    "mississippi-stud": {"game": "mississippi-stud", "jurisdiction": "NY", "seats": [{"seat": 1, "ante": 500}]},
    "seven-card-stud": {"game": "seven-card-stud", "seats": [1, 2],
                        "table": {"bring_in": 100, "small_bet": 200, "big_bet": 400}},
}  # fmt: skip


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_round_action_reaches_its_games_handler_and_no_other(service: TableService, game: str) -> None:
    """Dispatch covers the registry: an action of the game gets past dispatch (the rules may still refuse
    it now), an action of the other game is ``409 wrong-game``."""
    service.submit("open-round", OPENINGS[game], Role.DEALER)
    for action in [a for a in ACTIONS if a.scope is Scope.ROUND and a.name != "void"]:
        try:
            service.submit(action.name, MINIMAL.get(action.name, {}), action.role)
        except ServiceError as exc:
            code = exc.code
        else:
            code = "accepted"
        if game in action.games:
            assert code not in ("wrong-game", "bad-request", "internal"), (action.name, code)
        else:
            assert code == "wrong-game", (action.name, code)


STATIC = Path(__file__).resolve().parents[2] / "shoe" / "ui" / "static"
PAGE_ROLE = {"dealer.js": Role.DEALER, "technician.js": Role.TECHNICIAN}


def _posted_paths(script: str) -> set[str]:
    """The ``/v1/...`` paths a page's script sends POSTs to (``post("/v1/...")`` and ``api("POST", ...)``)."""
    quoted = r"""["'`](/v1/[a-z0-9/-]+)["'`]"""
    found = set(re.findall(r"post\(\s*" + quoted, script))
    found |= set(re.findall(r"""(?:api|act)\(\s*["']POST["']\s*,\s*""" + quoted, script))
    found |= set(re.findall(r"maintenance\(\s*" + quoted, script))
    return found


@pytest.mark.parametrize("page", sorted(PAGE_ROLE))
def test_every_path_a_page_posts_to_is_an_action_of_the_registry_for_its_role(page: str) -> None:
    """The display's buttons cannot drift from the registry: each path it posts to is a registry action's."""
    by_path = {a.path: a for a in ACTIONS}
    posted = _posted_paths((STATIC / page).read_text(encoding="utf-8"))
    assert posted, f"no POST found in {page}: the scan no longer matches how the page posts"
    for path in sorted(posted):
        action = by_path.get(path)
        assert action is not None, f"{page} posts to {path}, which no action of the registry declares"
        assert action.role is PAGE_ROLE[page], f"{page} posts to {path}, an action of the {action.role.value} role"


def test_the_page_scan_finds_a_path_that_is_not_in_the_registry() -> None:
    posted = _posted_paths('x = post("/v1/round/shuffle"); api("POST", "/v1/rounds", body);')
    assert posted == {"/v1/round/shuffle", "/v1/rounds"}
    assert "/v1/round/shuffle" not in {a.path for a in ACTIONS}
