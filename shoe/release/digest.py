"""Compare what is installed with a manifest, and the seeded digest an inspector compares (GLI-11 §4.3-style
field verification; GSA GAT's "seeded program verification").

:func:`verify_tree` reads every file the manifest lists once, in manifest order, and for each: its SHA-256
against the manifest's, and, with a seed, the **seeded digest**: HMAC-SHA256 keyed by the seed over, per
file, ``path`` (UTF-8), a NUL byte, the size as 8 bytes big-endian, then the file's bytes; then the same
for every **added** file (sorted by path), so a file dropped into the tree changes the value too. Framing
each file with its path and size means no two different trees hash the same stream (bytes moved from one
file to the next, a file renamed). A laboratory that holds the certified release computes the same value
with the same command on its copy (``--root``); a missing file's path is framed with size
``0xFFFFFFFFFFFFFFFF`` and no bytes.

Every difference is named: ``changed PATH``, ``removed PATH``, ``added PATH``, ``version NAME: manifest
X, installed Y``, ``distribution NAME added`` / ``removed``.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shoe.release.manifest import CHUNK, Manifest
from shoe.release.tree import covered_bytes, installed, walk_added

__all__ = ["MAX_SEED", "MIN_SEED", "Difference", "TreeCheck", "parse_seed", "verify_tree"]

MIN_SEED, MAX_SEED = 4, 64
"""A seed is 4 to 64 bytes (8 to 128 hex digits): a GAT seed is commonly 32 bits; HMAC takes any length."""
MISSING = (1 << 64) - 1


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


@dataclass(frozen=True)
class Difference:
    kind: str  # changed, removed, added, version, distribution-added, distribution-removed
    what: str
    detail: str = ""

    def __str__(self) -> str:
        if self.kind == "version":
            return f"version {self.what}: {self.detail}"
        if self.kind.startswith("distribution-"):
            return f"distribution {self.what} {self.kind.removeprefix('distribution-')}"
        return f"{self.kind} {self.what}" + (f" ({self.detail})" if self.detail else "")

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "what": self.what, "detail": self.detail, "text": str(self)}


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


def _read(full: Path, path: str, mac: hmac.HMAC | None, check: TreeCheck) -> str | None:
    """The file's SHA-256 (and fed to ``mac``), or None when it is missing or unreadable."""
    digest = hashlib.sha256()
    try:
        size, chunks = covered_bytes(full, path, CHUNK)
        if mac is not None:
            mac.update(_frame(path, size))
        for chunk in chunks:
            digest.update(chunk)
            if mac is not None:
                mac.update(chunk)
            check.bytes_read += len(chunk)
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
    listed = set()
    for path, expected, _size in manifest.files:
        listed.add(path)
        actual = _read(root / path, path, mac, check)
        check.checked += 1
        if actual is None:
            check.differences.append(Difference("removed", path))
        elif actual != expected:
            check.differences.append(
                Difference("changed", path, f"sha256 {actual[:16]}..., manifest {expected[:16]}...")
            )
    for path in walk_added(root, listed):
        check.differences.append(Difference("added", path))
        _read(root / path, path, mac, check)
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
