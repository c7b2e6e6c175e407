"""Compare what is installed with a manifest, and the seeded digest an inspector compares (GLI-11 §4.3-style
field verification; GSA GAT's "seeded program verification").

:func:`verify_tree` reads every file the manifest lists once, in manifest order, and for each: its SHA-256
against the manifest's, and, with a seed, the **seeded digest**: HMAC-SHA256 keyed by the seed over, per
file, ``path`` (UTF-8), a NUL byte, the size as 8 bytes big-endian, then the file's bytes; then the same
for every **added** file (sorted by path) its path framed with size ``0xFFFFFFFFFFFFFFFE`` and none of its
bytes (nothing the manifest does not list is read, however large: its presence alone changes the value).
A file whose size differs from the manifest's is framed with its size and not read (it differs already).
Framing
each file with its path and size means no two different trees hash the same stream (bytes moved from one
file to the next, a file renamed). A laboratory that holds the certified release computes the same value
with the same command on its copy (``--root``); a missing file's path is framed with size
``0xFFFFFFFFFFFFFFFF`` and no bytes.

Every difference is named: ``changed PATH``, ``removed PATH``, ``added PATH``, ``bytecode PATH`` (bytecode
in the tree, which a release never holds: ``shoe.release.tree``), ``refused PATH (why)`` (a link, a FIFO,
a device or a path leading out of the tree in place of a file: not read, ``shoe.release.regular``),
``loadable WHAT`` (something else the interpreter would load: ``shoe.release.loadable``), ``version NAME:
manifest X, installed Y``, ``distribution NAME added`` / ``removed``.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from shoe.release.difference import Difference
from shoe.release.loadable import loadable_differences
from shoe.release.manifest import CHUNK, Manifest
from shoe.release.regular import NotRegular, Tree
from shoe.release.tree import covered_bytes, installed, is_bytecode, walk_added

__all__ = ["MAX_SEED", "MIN_SEED", "Difference", "TreeCheck", "parse_seed", "verify_tree"]

MIN_SEED, MAX_SEED = 4, 64
"""A seed is 4 to 64 bytes (8 to 128 hex digits): a GAT seed is commonly 32 bits; HMAC takes any length."""
MISSING = (1 << 64) - 1
ADDED = (1 << 64) - 2


def parse_seed(text: str) -> bytes:
    """An inspector's seed in hex (``0x`` and spaces allowed): ValueError saying what is wrong."""
    cleaned = text.strip().lower().removeprefix("0x").replace(" ", "")
    try:
        seed = bytes.fromhex(cleaned)
    except ValueError:
        raise ValueError(f"seed {text!r} is not hexadecimal: give an even number of 0-9a-f digits") from None
    if not MIN_SEED <= len(seed) <= MAX_SEED:
        raise ValueError(
            f"seed {text!r} is {len(seed)} bytes: give {MIN_SEED} to {MAX_SEED} bytes "
            f"({2 * MIN_SEED} to {2 * MAX_SEED} hex digits)"
        )
    return seed


@dataclass
class TreeCheck:
    root: Path
    checked: int = 0
    bytes_read: int = 0
    differences: list[Difference] = field(default_factory=list)
    seeded_hmac: str | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.differences

    def as_dict(self) -> dict[str, Any]:
        return {
            "root": str(self.root),
            "files_checked": self.checked,
            "bytes_read": self.bytes_read,
            "differences": [d.as_dict() for d in self.differences],
            "seeded_hmac": self.seeded_hmac,
            "seconds": round(self.seconds, 3),
        }


def _frame(path: str, size: int) -> bytes:
    return path.encode() + b"\0" + size.to_bytes(8, "big")


def _read(
    full: Path, path: str, expected_size: int, inside: Tree, *, mac: hmac.HMAC | None, check: TreeCheck
) -> str | Difference | None:
    """The file's SHA-256 (and fed to ``mac``); None when it is missing or unreadable; a Difference when
    it is refused unread (not a regular file, out of the tree) or its size already differs."""
    digest = hashlib.sha256()
    try:
        size, chunks = covered_bytes(full, path, CHUNK, inside)
        if mac is not None:
            mac.update(_frame(path, size))
        if size != expected_size and not path.startswith("bin/"):
            next(chunks, None)  # a generator's finally (closing the file) runs only once it has started
            chunks.close()
            return Difference("changed", path, f"size {size}, manifest {expected_size}")
        for chunk in chunks:
            digest.update(chunk)
            if mac is not None:
                mac.update(chunk)
            check.bytes_read += len(chunk)
    except NotRegular as exc:
        if mac is not None:
            mac.update(_frame(path, MISSING))
        return Difference("refused", path, str(exc).removeprefix(str(full) + " "))
    except OSError:
        if mac is not None:
            mac.update(_frame(path, MISSING))
        return None
    return digest.hexdigest()


def verify_tree(root: Path, manifest: Manifest, seed: bytes | None = None) -> TreeCheck:
    """Every file of the manifest against the tree, the added files, the versions; the seeded digest."""
    started = time.perf_counter()
    check = TreeCheck(root)
    mac = hmac.new(seed, digestmod=hashlib.sha256) if seed is not None else None
    inside = Tree(root)
    listed = set()
    for path, expected, size in manifest.files:
        listed.add(path)
        actual = _read(root / path, path, size, inside, mac=mac, check=check)
        check.checked += 1
        if isinstance(actual, Difference):
            check.differences.append(actual)
        elif actual is None:
            check.differences.append(Difference("removed", path))
        elif actual != expected:
            check.differences.append(
                Difference("changed", path, f"sha256 {actual[:16]}..., manifest {expected[:16]}...")
            )
    for path in walk_added(root, listed):
        check.differences.append(Difference("bytecode" if is_bytecode(PurePosixPath(path)) else "added", path))
        if mac is not None:
            mac.update(_frame(path, ADDED))
    check.differences += loadable_differences(root)
    now = {d.name: d.version for d in installed(root)}
    for name, version in sorted(manifest.versions.items()):
        if name not in now:
            check.differences.append(Difference("distribution-removed", name))
        elif now[name] != version:
            check.differences.append(Difference("version", name, f"manifest {version}, installed {now[name]}"))
    for name in sorted(set(now) - set(manifest.versions)):
        check.differences.append(Difference("distribution-added", name, now[name]))
    check.seeded_hmac = mac.hexdigest() if mac is not None else None
    check.seconds = time.perf_counter() - started
    return check
