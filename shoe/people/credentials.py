"""Credentials: badge + PIN for the touch display, random tokens for services and sessions (pure).

A PIN is stored as ``scrypt$N$r$p$SALT$HASH`` (``hashlib.scrypt``, a 16-byte random salt per PIN:
slow on purpose, so a copied store does not give the PINs away in minutes). A token is 32 random
bytes (``secrets.token_urlsafe``) behind a prefix that says what it is (``shoe_t_`` an API token,
``shoe_s_`` a session); the store keeps only its SHA-256 digest, enough for a secret of that entropy.
Neither a PIN nor a token is ever journaled or logged.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

__all__ = [
    "API_PREFIX",
    "BADGE",
    "EMPLOYEE_ID",
    "NAME",
    "PIN",
    "SESSION_PREFIX",
    "digest",
    "hash_pin",
    "is_people_token",
    "new_token",
    "verify_pin",
]

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
API_PREFIX, SESSION_PREFIX = "shoe_t_", "shoe_s_"
PIN = re.compile(r"^[0-9]{4,12}$", re.ASCII)
BADGE = re.compile(r"^[A-Za-z0-9-]{1,32}$", re.ASCII)
EMPLOYEE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$", re.ASCII)
NAME = re.compile(r"^[A-Za-z0-9À-ɏ][A-Za-z0-9À-ɏ .,'_-]{0,63}$")
"""A name or a label: Latin letters (accents too), digits, space and ``.,'_-``; 1-64 characters."""


def _scrypt(pin: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(pin.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=32, maxmem=64 * 1024 * 1024)


def hash_pin(pin: str) -> str:
    salt = secrets.token_bytes(16)
    out = _scrypt(pin, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${out.hex()}"


def verify_pin(pin: str, stored: str) -> bool:
    """Whether ``pin`` is the one ``stored`` was made from (constant time in the comparison)."""
    try:
        scheme, n, r, p, salt, want = stored.split("$")
        if scheme != "scrypt":
            return False
        got = _scrypt(pin, bytes.fromhex(salt), int(n), int(r), int(p))
    except ValueError:
        return False
    return hmac.compare_digest(got, bytes.fromhex(want))


_DUMMY = (
    "scrypt$16384$8$1$00000000000000000000000000000000$c3be8696f272cde38106ae21b68d53ad8b2cdc56866bb7facb76d0ab764104fd"
)
"""``hash_pin("0000")`` with an all-zero salt, written out: hashing it at import cost every process that
imported the API ~0.2 s (more under load) and 16 MiB of scrypt memory (start to first 200). It
is no secret (nothing verifies against it but :func:`burn_time`); tests/people/test_credentials.py holds
it to the current ``SCRYPT_N``, ``SCRYPT_R``, ``SCRYPT_P``, so a check of an unknown badge costs what a
real one does."""


def burn_time(pin: str) -> None:
    """Spend the time a PIN check takes, for a badge that is unknown: the answer's timing tells nothing."""
    verify_pin(pin, _DUMMY)


def new_token(prefix: str) -> str:
    return prefix + secrets.token_urlsafe(32)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def is_people_token(token: str) -> bool:
    """A token this package issued (the API checks it even with no configuration tokens)."""
    return token.startswith((API_PREFIX, SESSION_PREFIX))
