"""Where the journal lives, and keeping its file private to the service's user.

The journal holds every card dealt and every payout: it is created mode 0600 and an existing file that
others can read or write is refused rather than used.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

from shoe.journal.chain import JournalError

FILE_NAME = "journal.sqlite"
PRIVATE_MODE = 0o600


def default_journal_path(environ: Mapping[str, str] | None = None) -> Path:
    """``$SHOED_JOURNAL`` if set, else ``$XDG_STATE_HOME/shoed/journal.sqlite`` (``~/.local/state`` by default).

    A relative ``XDG_STATE_HOME`` is ignored, as the XDG base directory specification asks.
    """
    env = os.environ if environ is None else environ
    explicit = env.get("SHOED_JOURNAL", "")
    if explicit:
        return Path(explicit).expanduser()
    state = env.get("XDG_STATE_HOME", "")
    if state and Path(state).is_absolute():
        base = Path(state)
    else:
        home = env.get("HOME", "")
        base = (Path(home) if home else Path.home()) / ".local" / "state"
    return base / "shoed" / FILE_NAME


def check_private(path: Path) -> None:
    """Refuse a journal file that is not a regular file or that group or others may read or write."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise JournalError(f"cannot read the journal {path}: {exc.strerror}") from exc
    if not stat.S_ISREG(st.st_mode):
        raise JournalError(f"{path} is not a regular file, so it cannot be the journal; pass the journal's path")
    if st.st_mode & 0o077:
        raise JournalError(
            f"the journal {path} is open to other users (mode {stat.S_IMODE(st.st_mode):04o}); it holds card "
            f"identities and the audit trail, so it must be private: run `chmod 600 {path}` and check who read it"
        )


def ensure_private_file(path: Path) -> bool:
    """Create ``path`` (and its missing parent folders) mode 0600, or check the existing file is private.

    Returns True when the file was created now. ``O_EXCL`` means a file someone else created in the
    meantime is checked, never silently adopted.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, PRIVATE_MODE)
    except FileExistsError:
        check_private(path)
        return False
    except OSError as exc:
        raise JournalError(
            f"cannot create the journal {path}: {exc.strerror}; check the folder exists and is writable "
            "by the service's user, or choose another path (--journal or SHOED_JOURNAL)"
        ) from exc
    try:
        os.fchmod(fd, PRIVATE_MODE)  # whatever the umask said
    finally:
        os.close(fd)
    return True
