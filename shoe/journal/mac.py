"""The table key: the secret the journal MACs its entries with and the floor holds a copy of.

It lives in its own file beside the journal, ``journal.sqlite.key`` (:func:`key_path`), written once by
``shoectl floor enrol`` with mode 0600 for the service's user alone, and never in the journal or the
service's configuration file. Its content is the key in hex, one line. A key file that others may read
(or another user owns) is refused, as the journal itself is: a key readers share proves nothing.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

from shoe.journal.chain import JournalError

__all__ = ["KEY_BYTES", "key_path", "load_key", "new_key", "write_key"]

KEY_BYTES = 32


def key_path(journal: Path) -> Path:
    """Where the journal at ``journal`` finds its key: ``journal.sqlite.key`` beside it."""
    return journal.with_name(journal.name + ".key")


def new_key() -> bytes:
    return secrets.token_bytes(KEY_BYTES)


def load_key(path: Path) -> bytes | None:
    """The key in ``path``; None when there is no such file (a journal without a key)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise JournalError(f"cannot read the table key {path}: {exc}; it must be a regular file of the "
                           "service's user, mode 0600") from exc  # fmt: skip
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise JournalError(f"the table key {path} is not a regular file: refused")
        if st.st_uid != os.geteuid() or st.st_mode & 0o077:
            raise JournalError(
                f"the table key {path} may be read by others (mode {stat.S_IMODE(st.st_mode):o}, owner uid "
                f"{st.st_uid}): refused; make it the service user's alone (chmod 600, chown)"
            )
        text = f.read(4 * KEY_BYTES).decode("ascii", "replace").strip()
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != KEY_BYTES:
        raise JournalError(f"the table key {path} is not {KEY_BYTES} bytes in hex: re-enrol the table "
                           "(shoectl floor enrol)")  # fmt: skip
    return key


def write_key(path: Path, key: bytes) -> None:
    """Create ``path`` (never overwrite one: an old key may still be needed to check old entries), 0600."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        raise JournalError(f"{path} already exists: a table key is never overwritten; move it away first "
                           "(keep it: it checks the entries it signed)") from None  # fmt: skip
    except OSError as exc:
        raise JournalError(f"cannot create the table key {path}: {exc}") from exc
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(key.hex() + "\n")
        f.flush()
        os.fsync(f.fileno())
