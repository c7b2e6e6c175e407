"""The layer contracts of pyproject.toml ([tool.importlinter]), run with the suite (docs/architecture.md).

``lint-imports`` runs on this checkout and must keep every contract; then, on a copy of the three
packages, each test adds one module whose import points the wrong way and checks that the named
contract breaks, so a contract that could never fail would be caught here.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
PACKAGES = ("protocols", "drivers", "shoe")


def lint_imports(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` in ``cwd`` (it puts ``cwd`` first on the import path), without a cache file."""
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_every_layer_contract_is_kept() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The three packages and pyproject.toml, copied once for the module."""
    root = tmp_path_factory.mktemp("layers")
    for package in PACKAGES:
        shutil.copytree(ROOT / package, root / package, ignore=shutil.ignore_patterns("__pycache__", "static"))
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    yield root


WRONG_WAY = [
    ("shoe/service/_wrong.py", "from shoe.cli import render", "service-below-edges", "shoe.service._wrong -> shoe.cli"),
    ("shoe/service/_wrong.py", "import shoe.api", "service-below-edges", "shoe.service._wrong -> shoe.api"),
    ("shoe/api/_wrong.py", "import shoe.shoed", "shoe-layers", "shoe.api._wrong -> shoe.shoed"),
    ("shoe/journal/_wrong.py", "import shoe.service.core", "shoe-layers", "shoe.journal._wrong -> shoe.service"),
    ("shoe/rules/_wrong.py", "import sqlite3", "rules-pure", "shoe.rules._wrong -> sqlite3"),
    ("shoe/hands/_wrong.py", "import threading", "rules-pure", "shoe.hands._wrong -> threading"),
    ("shoe/rules/_wrong.py", "import drivers.link", "rules-pure", "shoe.rules._wrong -> drivers"),
    ("drivers/_wrong.py", "import shoe.cards", "stack", "drivers._wrong -> shoe.cards"),
    ("protocols/_wrong.py", "import drivers.link", "stack", "protocols._wrong -> drivers.link"),
]


@pytest.mark.parametrize(("path", "line", "contract", "chain"), WRONG_WAY, ids=[w[0] + ": " + w[1] for w in WRONG_WAY])
def test_an_import_pointing_the_wrong_way_breaks_its_contract(
    copy: Path, path: str, line: str, contract: str, chain: str
) -> None:
    module = copy / path
    module.write_text(f'"""An import that points the wrong way (tests/test_layers.py)."""\n\n{line}\n')
    try:
        broken = lint_imports(copy, "--contract", contract)
    finally:
        module.unlink()
    assert broken.returncode == 1 and "1 broken" in broken.stdout, broken.stdout
    assert chain in broken.stdout, broken.stdout
