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
