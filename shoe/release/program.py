"""One check of an installed program against its signed manifest, as ``shoed``, doctor and the HIL report use it.

``shoectl verify`` prints the whole of it; this is the summary a journal entry, a status or a report holds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from shoe.release.digest import verify_tree
from shoe.release.manifest import ManifestError, read_manifest_file
from shoe.release.tree import ReleaseTreeError

__all__ = ["NO_IDENTITY", "check_program"]


NO_IDENTITY: dict[str, Any] = {
    "release": None,
    "manifest_sha256": None,
    "key_id": None,
    "files": 0,
    "differences": 0,
    "named": [],
}
"""A program check's fields when no manifest was read: no release, no key, nothing counted."""


def check_program(path: Path, pubkey: Path | None, root: Path, *, named: int = 20) -> dict[str, Any]:
    """One check of the program under ``root`` against the manifest at ``path`` (signature under ``pubkey``).

    Never raises for a bad tree: a dict with ``result`` (ok, mismatch, bad-signature, unverified), the
    identity (``release``, ``manifest_sha256``), ``key_id``, ``files``, ``differences`` (a count), ``named``
    (the first ``named`` differences) and ``detail``, a sentence saying why.
    """
    empty = dict(NO_IDENTITY)
    if not path.exists():
        return {**empty, "result": "unverified", "detail": f"no release manifest at {path}: the program is unverified"}
    try:
        manifest, signature = read_manifest_file(path)
    except ManifestError as exc:
        return {**empty, "result": "bad-signature", "detail": str(exc)}
    out = {**empty, "release": manifest.release, "manifest_sha256": manifest.sha256, "files": len(manifest.files)}
    problem = None
    if pubkey is not None:
        from shoe.release.signing import SignatureError, verify_signature

        try:
            out["key_id"] = verify_signature(manifest, signature, pubkey)
        except SignatureError as exc:
            problem = str(exc)
    try:
        tree = verify_tree(root, manifest)
    except ReleaseTreeError as exc:
        return {**out, "result": "mismatch", "detail": str(exc)}
    names = [str(d) for d in tree.differences]
    out.update(differences=len(names), named=names[:named])
    if problem is not None:
        return {**out, "result": "bad-signature", "detail": problem}
    if names:
        more = f"; and {len(names) - 3} more" if len(names) > 3 else ""
        detail = f"the installed program differs from release {manifest.release}: {'; '.join(names[:3])}{more}"
        return {**out, "result": "mismatch", "detail": detail}
    if pubkey is None:
        return {
            **out,
            "result": "unverified",
            "detail": "every file matches, but no trusted public key checks the manifest's signature ([verify] pubkey)",
        }
    return {**out, "result": "ok", "detail": f"release {manifest.release} verified: {len(manifest.files)} files"}
