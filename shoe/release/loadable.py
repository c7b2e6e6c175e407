"""What the interpreter would load besides the covered files: the environment's ``pyvenv.cfg``, the folders
``.pth`` files add to ``sys.path``, and (for the environment that runs this check) the live ``sys.path``.

A release's Python code comes from three places only: the operating system's standard library
(``debsums python3.11`` checks it), the release's own ``site-packages`` (every file covered by the
manifest) and nothing else. Each way around that is named a ``loadable`` difference:

- ``pyvenv.cfg`` missing, or ``include-system-site-packages`` not ``false``: the system's site-packages
  (and the user's) would load, unverified;
- a ``.pth`` file line that names a folder outside the release's site-packages (an editable install, a
  path dropped in): ``site`` adds it to ``sys.path`` at start. A ``.pth`` file's ``import`` lines are code
  the manifest covers like any file's (an unlisted ``.pth`` is ``added``);
- for the environment this check runs in (``shoed`` verifying itself, ``shoectl verify`` with no ``--root``):
  a ``sys.path`` entry that is neither the standard library nor the release's site-packages
  (``PYTHONPATH``, a ``.pth`` folder, a user site), or bytecode writing left on (``PYTHONDONTWRITEBYTECODE``
  unset: the interpreter would write ``__pycache__`` into the release, where verification refuses it).

A laboratory's copy (``--root``) is judged by the first two only: it is not the running interpreter.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from collections.abc import Sequence
from pathlib import Path

from shoe.release.difference import Difference
from shoe.release.regular import NotRegular, read_regular
from shoe.release.tree import site_dirs

__all__ = ["loadable_differences", "path_differences"]

MODULE_SUFFIXES = (".py", ".pyc", ".pyo", ".pyw", ".so", ".pth")
MAX_SMALL = 1 << 20
"""``pyvenv.cfg`` and ``.pth`` files are a few lines; larger ones are refused unread."""


def _diff(what: str, detail: str) -> Difference:
    return Difference("loadable", what, detail)


def _venv_differences(root: Path) -> list[Difference]:
    cfg = root / "pyvenv.cfg"
    try:
        text = read_regular(cfg, MAX_SMALL, follow=False).decode("utf-8", "replace")
    except NotRegular as exc:
        return [_diff("pyvenv.cfg", str(exc).removeprefix(str(cfg) + " "))]
    except OSError:
        return [_diff("pyvenv.cfg", "missing: the root is not a virtual environment the interpreter keeps to itself")]
    values = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            values[key.strip().lower()] = value.strip().lower()
    if values.get("include-system-site-packages", "false") != "false":
        return [_diff("pyvenv.cfg", "include-system-site-packages is not false: the system's packages load unverified")]
    return []


def _bin_differences(root: Path) -> list[Difference]:
    """``bin/`` is ``sys.path[0]`` for a console script: a module or package there shadows every other."""
    try:
        entries = sorted(os.scandir(root / "bin"), key=lambda e: e.name)
    except OSError:
        return []
    out = []
    for entry in entries:
        if entry.name.endswith(MODULE_SUFFIXES) or (
            entry.is_dir(follow_symlinks=False) and entry.name != "__pycache__"
        ):
            out.append(
                _diff(f"bin/{entry.name}", "importable from bin/, which a console script puts first on sys.path")
            )
        elif entry.name == "__pycache__":
            out.append(_diff("bin/__pycache__", "bytecode in bin/, first on a console script's sys.path"))
    return out


def _pth_differences(root: Path) -> list[Difference]:
    out: list[Difference] = []
    for site in site_dirs(root):
        inside = os.path.realpath(site)
        for entry in sorted(os.scandir(site), key=lambda e: e.name):
            if not entry.name.endswith(".pth"):
                continue
            rel = Path(entry.path).relative_to(root).as_posix()
            try:
                text = read_regular(Path(entry.path), MAX_SMALL, follow=False).decode("utf-8", "replace")
            except OSError:
                continue  # the walk names it (refused or unreadable) as a file of its own
            for raw in text.splitlines():
                line = raw.strip()
                if not line or line.startswith(("#", "import ", "import\t")):
                    continue
                folder = os.path.realpath(os.path.join(site, line))
                if folder != inside and not folder.startswith(inside + "/") and os.path.isdir(folder):
                    out.append(_diff(rel, f"adds {folder} to sys.path: code outside the release loads unverified"))
    return out


def _standard_library() -> list[str]:
    paths = sysconfig.get_paths()
    found = {os.path.realpath(paths[k]) for k in ("stdlib", "platstdlib") if k in paths}
    found.add(os.path.realpath(os.path.join(sysconfig.get_paths()["stdlib"], "lib-dynload")))
    base = sys.base_prefix
    found.add(os.path.realpath(os.path.join(base, "lib", f"python{sys.version_info[0]}{sys.version_info[1]}.zip")))
    return sorted(found)


def path_differences(root: Path, sys_path: Sequence[str], *, writes_bytecode: bool) -> list[Difference]:
    """The running interpreter's ``sys.path`` and bytecode flag judged against the release at ``root``."""
    allowed = {os.path.realpath(s) for s in site_dirs(root)} | {os.path.realpath(root / "bin")}
    stdlib = _standard_library()
    out: list[Difference] = []
    for entry in sys_path:
        real = os.path.realpath(entry or os.getcwd())
        if real in allowed or real in stdlib:
            continue
        if not os.path.exists(real) and any(real.startswith(s + "/") or real == s for s in stdlib):
            continue
        if not os.path.exists(real) and real.endswith(".zip"):
            continue  # the standard library's zip Python always lists, absent on Debian
        out.append(
            _diff("sys.path", f"{entry or '(the current folder)'} is not the release's: code there loads unverified")
        )
    if writes_bytecode:
        out.append(
            _diff("bytecode-writing", "on: run with PYTHONDONTWRITEBYTECODE=1 so nothing is written into the release")
        )
    return out


def _is_running(root: Path) -> bool:
    return os.path.realpath(root) == os.path.realpath(sys.prefix)


def loadable_differences(root: Path) -> list[Difference]:
    """Every ``loadable`` difference of the release at ``root`` (the module docstring lists them)."""
    out = _venv_differences(root) + _bin_differences(root) + _pth_differences(root)
    if _is_running(root):
        out += path_differences(root, sys.path, writes_bytecode=not sys.dont_write_bytecode)
    return out
