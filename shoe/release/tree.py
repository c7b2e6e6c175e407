"""What is installed under a release root: its site-packages, its distributions and their files.

A release root is a virtual environment (``/opt/shoed/releases/VERSION``, or a copy of one in a
laboratory's directory). Its files are found the way Python's packaging finds them: every distribution
in the root's ``lib/python3.*/site-packages`` and the files its ``RECORD`` lists
(``importlib.metadata``). What is left out, and why (docs/deploy.md, "What the manifest covers"):

- files a ``RECORD`` places outside site-packages other than in the root's ``bin/``; the console-script
  wrappers there (``bin/shoed``, ``bin/shoectl``) are covered, read with their first line (``#!`` and the
  environment's absolute path, which differs between the table's install and the laboratory's copy) as
  ``#!python`` (:func:`covered_bytes`); the interpreter itself is the operating system's (``debsums``);
- bytecode (``__pycache__`` folders, ``*.pyc`` and ``*.pyo`` files) is never covered: a release holds
  none (installed with ``pip install --no-compile``, run with ``PYTHONDONTWRITEBYTECODE=1``), and every
  bytecode file found is named a difference (``bytecode PATH``): the interpreter would run it instead of the
  verified source (a replaced ``.pyc`` with its header kept, a sourceless ``__init__.pyc``);
- the ``RECORD``, ``INSTALLER``, ``REQUESTED`` and ``direct_url.json`` files of a ``.dist-info``:
  written by the installer about this one install (``direct_url.json`` holds the wheel's absolute path).

**Added** files are found by walking: every file under a top-level entry of site-packages that some
distribution owns (``numpy/``, ``shoe/``, ``shoe_controller-0.1.0.dist-info/``), and every top-level
entry no distribution owns (a stray ``evil.pth``, which Python would run at start), minus the
exclusions above, and every bytecode file anywhere in site-packages. Symbolic links are listed by their own
path and never followed; reading one (or a FIFO, a device, a file whose folders lead out of the root) is
refused before a byte is read (``shoe.release.regular``).
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path, PurePosixPath

from shoe.release.regular import Tree, chunks_of, open_regular

__all__ = [
    "Distribution",
    "ReleaseTreeError",
    "covered_bytes",
    "ignored",
    "installed",
    "is_bytecode",
    "site_dirs",
    "walk_added",
]

INSTALLER_FILES = frozenset({"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"})
BYTECODE_SUFFIXES = (".pyc", ".pyo")
MAX_METADATA = 16 << 20
"""A ``.dist-info`` file larger than this is refused unread (the largest RECORD here is well under 1 MiB)."""
MAX_WRAPPER = 1 << 20
"""A ``bin/`` console-script wrapper is a few hundred bytes: one larger than this is hashed as it is."""


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


def is_bytecode(relative: PurePosixPath) -> bool:
    """Bytecode the interpreter may load instead of a source: refused in a release (module docstring)."""
    return "__pycache__" in relative.parts or relative.suffix in BYTECODE_SUFFIXES


def ignored(relative: PurePosixPath) -> bool:
    """A file the manifest never covers and the walk never names (the module docstring says why)."""
    parts = relative.parts
    return len(parts) >= 2 and parts[-2].endswith(".dist-info") and parts[-1] in INSTALLER_FILES


def _check_metadata(site: Path) -> None:
    """Every ``.dist-info`` file is a regular file of bounded size before ``importlib.metadata`` reads it."""
    for entry in sorted(os.scandir(site), key=lambda e: e.name):
        if not entry.name.endswith(".dist-info"):
            continue
        if entry.is_symlink() or not entry.is_dir(follow_symlinks=False):
            raise ReleaseTreeError(f"{entry.path} is not a folder (a link or a file): reinstall that distribution")
        for item in os.scandir(entry.path):
            st = item.stat(follow_symlinks=False)
            if not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode):
                raise ReleaseTreeError(
                    f"{item.path} is not a regular file (a link, a FIFO or a device): not read; reinstall that "
                    "distribution and find out who put it there"
                )
            if st.st_size > MAX_METADATA:
                raise ReleaseTreeError(f"{item.path} is {st.st_size} bytes: not read; reinstall that distribution")


def _relative(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def installed(root: Path) -> list[Distribution]:
    """Every distribution under the root, with the files of each the manifest covers."""
    dists: list[Distribution] = []
    for site in site_dirs(root):
        _check_metadata(site)
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
                if not ignored(relative) and not is_bytecode(relative):
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


def covered_bytes(
    full: Path, path: str, chunk: int, inside: Tree | None = None
) -> tuple[int, Generator[bytes, None, None]]:
    """The bytes hashed for a covered file, as (size, chunks): a ``bin/`` wrapper with its ``#!`` line as
    ``#!python`` (it names the environment's own path), every other file as it is, read in ``chunk`` bytes.

    Only a regular file is read, never through a link, never past the size it had when opened, and with
    ``inside`` (the root) never outside that folder: :class:`~shoe.release.regular.NotRegular`.
    """
    fd, size = open_regular(full, inside=inside, follow=False)
    if path.startswith("bin/") and size <= MAX_WRAPPER:  # a larger one is a program of its own (bin/ruff)
        data = b"".join(chunks_of(fd, size, chunk))
        if data.startswith(b"#!"):
            data = b"#!python\n" + data.partition(b"\n")[2]
        return len(data), _once(data)
    return size, chunks_of(fd, size, chunk)


def _once(data: bytes) -> Generator[bytes, None, None]:
    yield data


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
        dirnames[:] = sorted(dirnames)
        base = Path(dirpath)
        for name in sorted(filenames):
            yield base / name
        for name in dirnames:
            if (base / name).is_symlink():
                yield base / name
