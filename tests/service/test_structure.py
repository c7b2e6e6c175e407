"""The service layer's shape: the owner composed of parts, no module over 500
lines, and no HTTP status in the service (errors carry a kind; shoe.api maps kinds to statuses)."""

from __future__ import annotations

import ast
from pathlib import Path

import shoe.service
from shoe.service.deck.cycle import DeckCycle
from shoe.service.floor.watch import FloorWatch
from shoe.service.journal.sink import JournalSink
from shoe.service.link.supervisor import LinkSupervisor
from shoe.service.owner import Owner
from shoe.service.rounds.desk import RoundDesk
from shoe.service.snapshots import Snapshots
from shoe.service.verify.integrity import Integrity

SERVICE = Path(shoe.service.__file__).parent
LIMIT = 500
"""A warning sign, never a reason to split one job across files: api/requests.py (every request type of the
API, the play script's table included) and deck/cycle.py (the deck cycle, burn reloads included) grew past
400 with jobs of their own."""

TOP_LEVEL = {"__init__.py", "core.py", "owner.py", "answer.py", "memory.py", "snapshots.py", "errors.py", "metrics.py",
             "notify.py"}
"""What stays beside the subpackages: the owner and its facade, and what every part shares."""


def test_no_service_module_is_over_the_limit() -> None:
    sizes = {
        str(path.relative_to(SERVICE)): len(path.read_text(encoding="utf-8").splitlines())
        for path in SERVICE.rglob("*.py")
    }
    assert {name: lines for name, lines in sizes.items() if lines > LIMIT} == {}


def test_the_service_is_subpackages_by_job() -> None:
    assert {path.name for path in SERVICE.glob("*.py")} == TOP_LEVEL
    packages = sorted(path.parent for path in SERVICE.glob("*/__init__.py"))
    assert {path.name for path in packages} >= {"journal", "link", "rounds", "deck", "people", "config", "api"}
    for package in packages:
        reason = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8")))
        assert reason and len(reason.split()) >= 20, f"{package.name}/__init__.py says why the package exists"


def test_the_owner_is_composed_of_parts_not_mixins() -> None:
    for part in (Owner, JournalSink, LinkSupervisor, RoundDesk, Snapshots, DeckCycle, Integrity, FloorWatch):
        assert part.__bases__ == (object,), part
    owner_attributes = {
        node.attr
        for node in ast.walk(ast.parse((SERVICE / "owner.py").read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"
        and isinstance(node.ctx, ast.Store)
    }  # fmt: skip
    assert owner_attributes == {"config", "metrics", "games", "inbox", "deferred", "stopping", "shown", "sink",
                                "supervisor", "desk", "deck", "integrity", "floor_watch", "approvals"}  # fmt: skip


def test_the_service_knows_no_http_status() -> None:
    for path in SERVICE.rglob("*.py"):
        assert "http_status" not in path.read_text(encoding="utf-8"), path.name
