"""What is installed under a release root: its site-packages, its distributions and their files.

A release root is a virtual environment (``/opt/shoed/releases/VERSION``, or a copy of one in a
laboratory's directory). Its files are found the way Python's packaging finds them: every distribution
in the root's ``lib/python3.*/site-packages`` and the files its ``RECORD`` lists
(``importlib.metadata``). What is left out, and why (docs/deploy.md, "What the manifest covers"):

- files a ``RECORD`` places outside site-packages other than in the root's ``bin/``; the console-script
  wrappers there (``bin/shoed``, ``bin/shoectl``) are covered, read with their first line (``#!`` and the
  environment's absolute path, which differs between the table's install and the laboratory's copy) as
  ``#!python`` (:func:`covered_bytes`); the interpreter itself is the operating system's (``debsums``);
- ``__pycache__`` folders and ``*.pyc`` files: written by the interpreter, with the source's time stamp;
- the ``RECORD``, ``INSTALLER``, ``REQUESTED`` and ``direct_url.json`` files of a ``.dist-info``:
  written by the installer about this one install (``direct_url.json`` holds the wheel's absolute path).

**Added** files are found by walking: every file under a top-level entry of site-packages that some
distribution owns (``numpy/``, ``shoe/``, ``shoe_controller-0.1.0.dist-info/``), and every top-level
entry no distribution owns (a stray ``evil.pth``, which Python would run at start), minus the
exclusions above. Symbolic links are listed by their own path and never followed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path, PurePosixPath

__all__ = ["Distribution", "ReleaseTreeError", "covered_bytes", "ignored", "installed", "site_dirs", "walk_added"]

INSTALLER_FILES = frozenset({"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"})


class ReleaseTreeError(ValueError):
    """The root is not a release: no site-packages, unreadable metadata. The message says what to do."""


@dataclass(frozen=True)
class Distribution:
    name: str
    version: str
    files: tuple[str, ...]
    """Paths relative to the root, POSIX style, sorted; only those the manifest covers (``ignored``)."""
    editable: bool


def site_dirs(root: Path) -> list[Path]:
    """The root's site-packages folders (one for a virtual environment; ``lib64`` links are the same)."""
    found: dict[Path, Path] = {}
    for lib in ("lib", "lib64"):
        for candidate in sorted((root / lib).glob("python3*/site-packages")):
            if candidate.is_dir():
                found.setdefault(candidate.resolve(), candidate)
    if not found:
        raise ReleaseTreeError(
            f"{root} holds no lib/python3.*/site-packages: it is not a virtual environment; give the release's "
            "folder (/opt/shoed/releases/VERSION) with --root"
        )
    return sorted(found.values())


def ignored(relative: PurePosixPath) -> bool:
    """A file the manifest never covers (the module docstring says why)."""
    parts = relative.parts
    if "__pycache__" in parts or relative.suffix == ".pyc":
        return True
    return len(parts) >= 2 and parts[-2].endswith(".dist-info") and parts[-1] in INSTALLER_FILES


def _relative(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def installed(root: Path) -> list[Distribution]:
    """Every distribution under the root, with the files of each the manifest covers."""
    dists: list[Distribution] = []
    for site in site_dirs(root):
        for dist in metadata.distributions(path=[str(site)]):
            name = dist.metadata["Name"]
            if not name:
                raise ReleaseTreeError(f"a distribution in {site} has no Name in its METADATA: reinstall it")
            files: list[str] = []
            for entry in dist.files or ():
                relative = PurePosixPath(entry.as_posix())
                if relative.parts and relative.parts[0] == "..":
                    script = _script(root, site, relative)
                    if script is not None:
                        files.append(script)
                    continue  # outside site-packages: only the root's bin/ wrappers (module docstring)
                if not ignored(relative):
                    files.append(_relative(root, site / relative))
            editable = _editable(dist.read_text("direct_url.json"))
            dists.append(Distribution(name, dist.version, tuple(sorted(set(files))), editable))
    dists.sort(key=lambda d: (d.name.lower(), d.version))
    return dists


def _script(root: Path, site: Path, relative: PurePosixPath) -> str | None:
    """``bin/NAME`` for a RECORD entry that lands in the root's ``bin/`` (``../../../bin/shoed``), else None."""
    target = Path(os.path.normpath(site / relative))
    try:
        inside = target.relative_to(Path(os.path.normpath(root)))
    except ValueError:
        return None
    return inside.as_posix() if len(inside.parts) == 2 and inside.parts[0] == "bin" else None


def covered_bytes(full: Path, path: str, chunk: int) -> tuple[int, Iterator[bytes]]:
    """The bytes hashed for a covered file, as (size, chunks): a ``bin/`` wrapper with its ``#!`` line as
    ``#!python`` (it names the environment's own path), every other file as it is, read in ``chunk`` bytes."""
    if path.startswith("bin/"):
        data = full.read_bytes()
        if data.startswith(b"#!"):
            data = b"#!python\n" + data.partition(b"\n")[2]
        return len(data), iter((data,))
    handle = full.open("rb")
    size = os.fstat(handle.fileno()).st_size

    def chunks() -> Iterator[bytes]:
        with handle:
            while block := handle.read(chunk):
                yield block

    return size, chunks()


def _editable(direct_url: str | None) -> bool:
    """``pip install -e``: the project's files live in a checkout, not in site-packages (never a release)."""
    try:
        info = json.loads(direct_url or "{}")
    except ValueError:
        return False
    return bool(isinstance(info, dict) and isinstance(info.get("dir_info"), dict) and info["dir_info"].get("editable"))


def walk_added(root: Path, listed: set[str]) -> list[str]:
    """Files present in the root's site-packages (every top-level entry, owned or not) that ``listed`` lacks."""
    added: list[str] = []
    for site in site_dirs(root):
        for entry in sorted(os.scandir(site), key=lambda e: e.name):
            for path in _files(Path(entry.path)):
                if ignored(PurePosixPath(path.relative_to(site).as_posix())):
                    continue
                rel = _relative(root, path)
                if rel not in listed:
                    added.append(rel)
    return sorted(added)


def _files(path: Path) -> Iterator[Path]:
    if path.is_symlink() or not path.is_dir():
        yield path
        return
    for dirpath, dirnames, filenames in os.walk(path, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        base = Path(dirpath)
        for name in sorted(filenames):
            yield base / name
        for name in dirnames:
            if (base / name).is_symlink():
                yield base / name
