"""The repository's promises: README commands that CI runs, and every package listed for installation."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```sh\n(.+?)\n```", text)


def test_readme_starts_with_two_commands_and_ci_runs_the_test_one() -> None:
    commands = readme_commands()
    assert len(commands) >= 2
    run, test = commands[0], commands[1]
    assert "shoectl" in run or "shoed" in run
    assert "pytest" in test
    assert test in (ROOT / ".ci" / "run").read_text()


def test_every_package_directory_is_listed_in_pyproject() -> None:
    """shoe, drivers and protocols are generic names: auto-discovery is off, so a missed package would not install."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for top in ("protocols", "drivers", "shoe")
        for p in (ROOT / top).rglob("__init__.py")
    }
    assert found - listed == set(), "add these to [tool.setuptools] packages"
    assert listed - found == set()


def test_the_slowest_files_the_suite_starts_with_exist() -> None:
    """``tests/conftest.py`` orders the run by file name: a renamed or removed file would silently drop out."""
    from tests.conftest import SLOWEST_FIRST

    missing = [name for name in SLOWEST_FIRST if not (ROOT / name).is_file()]
    assert not missing, f"tests/conftest.py SLOWEST_FIRST names files that do not exist: {missing}"
    assert len(set(SLOWEST_FIRST)) == len(SLOWEST_FIRST)
