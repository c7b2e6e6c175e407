"""Ed25519 signatures over a manifest's canonical bytes (RFC 8032, through the ``cryptography`` package).

A signed manifest file is ``{"manifest": BODY, "signature": {"algorithm": "ed25519", "key_id": ...,
"value": HEX}}``: the signature is over ``canonical(BODY)``; ``key_id`` is the first 16 hex digits of the
SHA-256 of the raw public key, to name the key in messages (it proves nothing: the verifier's own trusted
public key does). Keys are PEM files: the private key PKCS#8 unencrypted, mode 0600 (kept offline,
docs/deploy.md "The signing key"); the public key ``KEYFILE.pub``, SubjectPublicKeyInfo.

``cryptography`` is imported inside the functions: ``shoectl``'s parser and ``shoed``'s start import this
module, and only signing or checking needs the library.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from shoe.release.manifest import Manifest, canonical
from shoe.release.regular import read_regular

__all__ = [
    "ALGORITHM",
    "DEFAULT_PUBKEY",
    "SignatureError",
    "generate_key",
    "key_id",
    "load_public_key",
    "sign",
    "verify_signature",
]

MAX_KEY = 1 << 16
"""A PEM public key is a few hundred bytes: a larger file (or a link to /dev/zero) is refused unread."""

ALGORITHM = "ed25519"
DEFAULT_PUBKEY = Path("/etc/shoed/release-key.pub")
"""The trusted release key's public half, installed by the operator outside every release (docs/deploy.md)."""


class SignatureError(ValueError):
    """The manifest's signature does not hold: the message names why (none, malformed, another key, bad)."""


def key_id(raw_public: bytes) -> str:
    return hashlib.sha256(raw_public).hexdigest()[:16]


def _raw(public_key: Any) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return bytes(public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw))


def generate_key(out: Path) -> tuple[Path, str]:
    """Write a new private key to ``out`` (0600, refused if it exists) and its public key to ``out.pub``."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    public_path = out.with_name(out.name + ".pub")
    for path in (out, public_path):
        if path.exists():
            raise FileExistsError(f"{path} exists: a key is never overwritten; choose another --out")
    key = Ed25519PrivateKey.generate()
    private_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(private_pem)
    public = key.public_key()
    public_path.write_bytes(
        public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    return public_path, key_id(_raw(public))


def sign(manifest: Manifest, key_file: Path) -> dict[str, Any]:
    """The signed manifest file's document."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    try:
        key = serialization.load_pem_private_key(key_file.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise SignatureError(
            f"{key_file} is not a readable unencrypted PEM private key ({exc}): make one with shoectl release keygen"
        ) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SignatureError(f"{key_file} is not an Ed25519 key: make one with shoectl release keygen")
    value = key.sign(canonical(manifest.body))
    block = {"algorithm": ALGORITHM, "key_id": key_id(_raw(key.public_key())), "value": value.hex()}
    return {"manifest": dict(manifest.body), "signature": block}


def load_public_key(path: Path) -> Any:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        key = serialization.load_pem_public_key(read_regular(path, MAX_KEY))
    except (OSError, ValueError) as exc:
        raise SignatureError(
            f"the public key {path} cannot be read ({exc}): give the release key's .pub file"
        ) from None
    if not isinstance(key, Ed25519PublicKey):
        raise SignatureError(f"the public key {path} is not an Ed25519 key")
    return key


def verify_signature(manifest: Manifest, signature: dict[str, Any] | None, public_key_file: Path) -> str:
    """The signing key's id when the signature holds for the trusted key; SignatureError naming why not."""
    from cryptography.exceptions import InvalidSignature

    public = load_public_key(public_key_file)
    trusted = key_id(_raw(public))
    if signature is None:
        raise SignatureError("the manifest is not signed: sign it with shoectl release manifest --sign KEYFILE")
    if signature.get("algorithm") != ALGORITHM or not isinstance(signature.get("value"), str):
        raise SignatureError(f"the signature block is not an {ALGORITHM} signature")
    named = signature.get("key_id")
    try:
        value = bytes.fromhex(signature["value"])
    except ValueError:
        raise SignatureError("the signature value is not hexadecimal") from None
    try:
        public.verify(value, canonical(manifest.body))
    except InvalidSignature:
        if named != trusted:
            raise SignatureError(f"the manifest is signed by key {named}, not by the trusted key {trusted}") from None
        raise SignatureError(f"bad signature: the manifest was changed after key {trusted} signed it") from None
    return trusted
