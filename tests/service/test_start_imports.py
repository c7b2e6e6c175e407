"""What starting ``shoed`` imports: counted, never timed."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest

ROOT_MODULES = "sorted({name.split('.')[0] for name in sys.modules})"
MODULES = "sorted(sys.modules)"


def _imported(code: str) -> dict[str, object]:
    program = f"import json, sys\n{code}\nprint(json.dumps({{'roots': {ROOT_MODULES}, 'modules': {MODULES}}}))\n"
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=True)
    result: dict[str, object] = json.loads(out.stdout.splitlines()[-1])
    return result


@pytest.mark.skipif(importlib.util.find_spec("rich") is None, reason="rich is not installed here")
def test_shoed_does_not_import_rich_and_leaves_it_importable() -> None:
    """structlog imports rich whenever it is installed; shoed never uses it (~0.2 s, ~4.5 MiB)."""
    roots = _imported("import shoe.shoed, shoe.api")["roots"]
    assert isinstance(roots, list)
    assert "rich" not in roots
    after = _imported("import shoe.shoed\nimport rich.console")["roots"]
    assert isinstance(after, list) and "rich" in after  # hidden from structlog only, not from the process


def test_shoed_on_a_real_port_does_not_import_the_emulator() -> None:
    """The deck cycle imports the emulator only to load an emulator's deck (~0.1 s of every start)."""
    modules = _imported("import shoe.shoed, shoe.api")["modules"]
    assert isinstance(modules, list)
    assert not [name for name in modules if name.startswith("drivers.emulator")]


def test_shoed_serves_its_first_status_before_the_route_table_and_the_release_modules() -> None:
    """What ``shoed`` imports before its first status (itself and the HTTP server) leaves out the route table with
    every route's module, the registry of actions and the release's modules: they load after that answer (the
    start-to-first-200 goal, docs/perf/start.md). A top-level import of any of them fails this."""
    modules = _imported("import shoe.shoed, shoe.api.server, shoe.api.starting")["modules"]
    assert isinstance(modules, list)
    later = ("shoe.api.routes", "shoe.api.people_routes", "shoe.service.api.registry", "shoe.release",
             "shoe.service.core", "shoe.rules")  # fmt: skip
    assert [name for name in modules if name.startswith(later)] == []
    after = _imported("import shoe.api\nshoe.api.ROUTES")["modules"]  # the package's names still all there
    assert isinstance(after, list) and "shoe.api.routes" in after and "shoe.api.people_routes" in after
