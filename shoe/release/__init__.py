"""Signed releases and seeded program verification (GLI-11 §4.3 and GSA GAT field verification).

| module | job |
|---|---|
| ``tree`` | the release root's site-packages, distributions and the files they own; files added |
| ``manifest`` | the manifest (paths, SHA-256, versions, build), canonical JSON, its hash; reading it back |
| ``signing`` | Ed25519 key pairs, signing and checking a manifest (``cryptography``, imported lazily) |
| ``digest`` | the tree against a manifest (every difference named) and the seeded HMAC-SHA256 |
| ``firmware`` | the shoe's firmware answer judged against the approved images |
"""

from shoe.release.digest import Difference, TreeCheck, parse_seed, verify_tree
from shoe.release.manifest import MANIFEST_NAME, Manifest, ManifestError, build_manifest, canonical, read_manifest_file
from shoe.release.tree import ReleaseTreeError

__all__ = [
    "MANIFEST_NAME",
    "Difference",
    "Manifest",
    "ManifestError",
    "ReleaseTreeError",
    "TreeCheck",
    "build_manifest",
    "canonical",
    "parse_seed",
    "read_manifest_file",
    "verify_tree",
]
