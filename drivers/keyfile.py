"""The host's copy of the pairing key (SPEC §13.2): one file that only the service's user may read.

The file holds the 32-byte key as 64 hex digits and a newline. ``load_key`` refuses a file that is a
symbolic link, is not a regular file, belongs to another user, or that anyone but its owner may read or
write (any bit of 0o077): a key others could read is a key others could use to lie to the table. The
pairing record (``record_path``) beside it says who paired, when, and which key id, one JSON line each.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from pathlib import Path
from typing import Any

from drivers.errors import ShoeAuthError
from protocols import auth

__all__ = [
    "KEY_ENV",
    "KeyFileError",
    "append_record",
    "create_key",
    "key_from_env",
    "load_key",
    "new_key_path",
    "record_path",
    "write_key",
]


class KeyFileError(ShoeAuthError):
    def __init__(self, path: Path, problem: str, hint: str) -> None:
        super().__init__("key-file", f"pairing key file {str(path)!r}: {problem}", hint=hint)
        self.path = path


def load_key(path: Path) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise KeyFileError(path, "does not exist", "pair the shoe first: shoectl pair --key-file PATH") from None
    except OSError as exc:
        raise KeyFileError(path, f"cannot be opened ({exc.strerror}); a symbolic link is refused",
                           "give the key file itself, owned by the service's user, mode 0600") from None  # fmt: skip
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise KeyFileError(path, "is not a regular file", "give the key file written by shoectl pair")
        if info.st_uid != os.geteuid():
            raise KeyFileError(path, "belongs to another user", "chown it to the service's user")
        if info.st_mode & 0o077:
            mode = stat.S_IMODE(info.st_mode)
            hint = "chmod 600 it, and rotate the key (shoectl pair): others may have read it"
            raise KeyFileError(path, f"mode {mode:04o} lets others read or write it", hint)
        text = os.read(fd, 256).decode("ascii", "replace").strip()
    finally:
        os.close(fd)
    try:
        return auth.check_key(bytes.fromhex(text))
    except ValueError:
        raise KeyFileError(path, "does not hold a key (64 hex digits)", "pair again: shoectl pair") from None


KEY_ENV = "SHOE_KEY_FILE"
"""Names the key file the technician's commands (``shoectl identify``, ``dispense``...) authenticate with."""


def key_from_env() -> bytes | None:
    """The key in ``$SHOE_KEY_FILE`` (checked as shoed's is), or None when the variable is unset."""
    path = os.environ.get(KEY_ENV)
    return load_key(Path(path)) if path else None


def write_key(path: Path, key: bytes) -> None:
    """Write ``key`` to ``path`` (mode 0600), replacing it atomically; the directory must exist."""
    auth.check_key(key)
    tmp = path.with_name(path.name + ".tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, key.hex().encode() + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def create_key(path: Path) -> bytes:
    """A new random key written to ``path`` (which must not exist yet; its directory is made 0700)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = os.urandom(auth.KEY_SIZE)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, key.hex().encode() + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    return key


def new_key_path(path: Path) -> Path:
    """Where a rotation keeps the new key until the shoe took it (found again if the step was cut short)."""
    return path.with_name(path.name + ".new")


def record_path(path: Path) -> Path:
    return path.with_name(path.name + ".pairing.jsonl")


def append_record(path: Path, record: dict[str, Any]) -> None:
    """One line of the pairing record (who, when, key id: never the key)."""
    fd = os.open(record_path(path), os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, (json.dumps(record, sort_keys=True) + "\n").encode())
    finally:
        os.close(fd)
