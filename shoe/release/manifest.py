"""The release manifest: every covered file's path and SHA-256, every distribution's version, the build.

A manifest is a JSON object, written canonically (keys sorted, no spaces, UTF-8) so that its bytes, and
so its SHA-256 (the **manifest hash**, the release's software identity), are the same wherever it is
written::

    {"format": 1,
     "build": {"release": "0.1.0", "built_at": "...Z", "python": "3.11.2", "platform": "linux-x86_64", ...},
     "distributions": [{"name": "numpy", "version": "2.1.0", "editable": false}, ...],
     "files": [{"path": "lib/python3.11/site-packages/numpy/__init__.py", "sha256": "...", "size": 4096}, ...]}

``files`` is sorted by path: that is the **manifest order** the seeded digest (``shoe.release.digest``)
reads them in. Paths are relative to the release root (the virtual environment), POSIX style. Which files
are covered is ``shoe.release.tree``'s docstring. A signed manifest file wraps it: ``{"manifest": {...},
"signature": {...}}`` (``shoe.release.signing``).
"""

from __future__ import annotations

import hashlib
import json
import platform
import sys
import sysconfig
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from shoe.release.regular import NotRegular, read_regular
from shoe.release.tree import ReleaseTreeError, covered_bytes, installed, is_bytecode, walk_added

__all__ = [
    "FORMAT",
    "MANIFEST_NAME",
    "PROJECT",
    "Manifest",
    "ManifestError",
    "build_manifest",
    "canonical",
    "file_sha256",
    "read_manifest_file",
]

FORMAT = 1
MANIFEST_NAME = "release-manifest.json"
"""Its default place: the release root's top folder (``/opt/shoed/releases/VERSION/release-manifest.json``)."""
PROJECT = "shoe-controller"
CHUNK = 1 << 20
MAX_MANIFEST = 64 << 20
"""A manifest larger than this is refused unread (one of 8,125 files is about 1.3 MB)."""


class ManifestError(ValueError):
    """A manifest file that cannot be used (missing, not JSON, another format): the message says what to do."""


def canonical(obj: Any) -> bytes:
    """The one byte form of a JSON value: keys sorted, no spaces, UTF-8 (what is hashed and signed)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def file_sha256(path: Path, relative: str = "") -> tuple[str, int]:
    """The SHA-256 and size of a covered file's bytes (``tree.covered_bytes``: a ``bin/`` wrapper normalised)."""
    digest = hashlib.sha256()
    size, chunks = covered_bytes(path, relative, CHUNK)
    for chunk in chunks:
        digest.update(chunk)
    return digest.hexdigest(), size


@dataclass(frozen=True)
class Manifest:
    body: Mapping[str, Any]

    @property
    def sha256(self) -> str:
        """The manifest hash: the SHA-256 of its canonical bytes (signature excluded)."""
        return hashlib.sha256(canonical(self.body)).hexdigest()

    @property
    def files(self) -> list[tuple[str, str, int]]:
        return [(f["path"], f["sha256"], f["size"]) for f in self.body["files"]]

    @property
    def versions(self) -> dict[str, str]:
        return {d["name"]: d["version"] for d in self.body["distributions"]}

    @property
    def release(self) -> str:
        return str(self.body["build"].get("release", "unknown"))

    def identity(self) -> dict[str, Any]:
        """The software identity shown in the journal, ``/v1/status``, doctor and the HIL report."""
        return {"release": self.release, "manifest_sha256": self.sha256, "files": len(self.body["files"])}

    @classmethod
    def from_json(cls, doc: Any, where: str) -> Manifest:
        body = doc.get("manifest", doc) if isinstance(doc, dict) else None
        if not isinstance(body, dict) or body.get("format") != FORMAT:
            raise ManifestError(
                f"{where} is not a release manifest of format {FORMAT}: write it with shoectl release manifest"
            )
        try:
            for f in body["files"]:
                if not (isinstance(f["path"], str) and isinstance(f["sha256"], str) and isinstance(f["size"], int)):
                    raise TypeError
            for d in body["distributions"]:
                if not (isinstance(d["name"], str) and isinstance(d["version"], str)):
                    raise TypeError
            if not isinstance(body["build"], dict):
                raise TypeError
        except (KeyError, TypeError):
            raise ManifestError(
                f"{where}: a file, distribution or build entry is malformed: write it anew with "
                "shoectl release manifest"
            ) from None
        paths = [f["path"] for f in body["files"]]
        if paths != sorted(set(paths)) or any(p.startswith("/") or ".." in p.split("/") for p in paths):
            raise ManifestError(f"{where}: its file paths are not sorted, unique and inside the root")
        return cls(body)


def build_manifest(root: Path, *, build: Mapping[str, Any] | None = None) -> Manifest:
    """The manifest of what is installed under ``root`` now (every covered file read and hashed)."""
    dists = installed(root)
    if not dists:
        raise ReleaseTreeError(f"{root} has no installed distributions: install the release into it first")
    listed = {p for d in dists for p in d.files}
    bytecode = [p for p in walk_added(root, listed) if is_bytecode(PurePosixPath(p))]
    if bytecode:
        raise ReleaseTreeError(
            f"{root} holds bytecode ({bytecode[0]} and {len(bytecode) - 1} more): a release holds none, since the "
            "interpreter would run it in place of the verified source; install with pip install --no-compile "
            "into a fresh environment (docs/deploy.md)"
        )
    files = []
    for path in sorted(listed):
        full = root / path
        try:
            sha256, size = file_sha256(full, path)
            files.append({"path": path, "sha256": sha256, "size": size})
        except OSError as exc:
            raise ReleaseTreeError(
                f"{path} is listed in its distribution's RECORD but cannot be read ({exc}): reinstall that distribution"
            ) from None
    versions = {d.name: d.version for d in dists}
    identity: dict[str, Any] = {
        "release": versions.get(PROJECT, "unknown"),
        "built_at": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "python": platform.python_version(),
        "implementation": sys.implementation.name,
        "platform": sysconfig.get_platform(),
    }
    identity.update(build or {})
    body = {
        "format": FORMAT,
        "build": identity,
        "distributions": [{"name": d.name, "version": d.version, "editable": d.editable} for d in dists],
        "files": files,
    }
    return Manifest(body)


def read_manifest_file(path: Path) -> tuple[Manifest, dict[str, Any] | None]:
    """The manifest in a file and its signature block (None for an unsigned manifest)."""
    try:
        doc = json.loads(read_regular(path, MAX_MANIFEST))
    except NotRegular as exc:
        raise ManifestError(f"{exc}: give the release's manifest file ([verify] manifest, --manifest)") from None
    except FileNotFoundError:
        raise ManifestError(
            f"no manifest at {path}: give --manifest FILE, or install the release's "
            f"{MANIFEST_NAME} beside it (docs/deploy.md)"
        ) from None
    except (OSError, ValueError) as exc:
        raise ManifestError(f"{path} cannot be read as JSON ({exc}): fetch the release's manifest again") from None
    manifest = Manifest.from_json(doc, str(path))
    signature = doc.get("signature") if "manifest" in doc else None
    if signature is not None and not isinstance(signature, dict):
        raise ManifestError(f"{path}: its signature block is not an object")
    return manifest, signature
