"""One service per journal: an exclusive lock on the journal file itself and on a file beside it, and a
marker of what it held.

The lock follows the file's **identity** (its device and inode), never its name: ``flock(2)`` on the
journal file itself, which every name of it shares (a symbolic link, ``/proc/PID/fd/N``, a bind mount, a
relative or ``..`` path), so a second service that reaches the same file by any path is refused while the
first runs. SQLite locks with ``fcntl(2)`` record locks, which Linux keeps apart from ``flock``, so the two
never meet. A journal with more than one hard link is refused outright (:class:`JournalAliased`): SQLite
names its write-ahead log after the name it was opened by, so two names of one file mean two logs, and
entries written through one are lost through the other (seen: seven rounds lost and the chain broken).
The file beside it is found from the journal's resolved path, so every name shares the one marker.

``journal.sqlite.lock`` (mode 0600) is locked with ``flock(2)`` for the service's whole life; the kernel
releases the lock when the process ends, however it ends (``kill -9`` included), so a stale lock cannot
exist. The file holds one JSON line: the holder's pid (named by a second instance that is refused),
and a marker of the journal last used here: its first entry's hash and the highest seq known to be in
its main file. A journal that is missing, empty, of another chain or shorter than the marker says is
refused at start, never silently begun again (docs/journal.md, "What the journal detects").
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog

from shoe.journal.chain import JournalError
from shoe.journal.store import Journal

__all__ = [
    "JournalAliased",
    "JournalLock",
    "JournalLocked",
    "JournalMismatch",
    "checkpoint",
    "lock_path",
    "open_checked",
]

log = structlog.get_logger("shoe.journal")
RECORD_BYTES = 256
"""The lock file's size: its JSON (pid, first entry's hash, last seq, check: under 180 bytes) padded with spaces."""


def _check(first_hash: str | None, last_seq: int) -> str:
    """What a record's ``check`` must be: a digest of its marker. The record is overwritten in place, and a
    power cut may leave the new record's first bytes over the old one's rest; a seq mixed of both (1199 then
    1234 giving 1299) would claim entries the journal never held and refuse the next start. The mix's check
    is one record's, its marker the other's or neither: it does not match, and counts as no marker."""
    return hashlib.blake2s(f"{first_hash}\0{last_seq}".encode(), digest_size=8).hexdigest()


class JournalLocked(JournalError):
    """Another process holds the journal's lock (``holder`` is its pid, when it wrote one)."""

    def __init__(self, message: str, holder: int | None) -> None:
        super().__init__(message)
        self.holder = holder


class JournalAliased(JournalLocked):
    """The journal file has more than one hard link: a configuration error, refused before it is used."""

    def __init__(self, message: str) -> None:
        super().__init__(message, None)


class JournalMismatch(JournalError):
    """The journal is not the one the lock file says was used here: missing, replaced or cut short."""


def lock_path(journal: Path) -> Path:
    """The marker's file: beside the journal's resolved path, so every name of the journal finds the same one."""
    real = Path(os.path.realpath(journal))
    return real.with_name(real.name + ".lock")


@dataclass(frozen=True)
class Marker:
    first_hash: str | None
    last_seq: int

    @classmethod
    def read(cls, raw: bytes) -> Marker | None:
        try:
            data = json.loads(raw.decode("utf-8"))
        except ValueError:
            return None
        if not isinstance(data, dict) or not isinstance(data.get("last_seq"), int):
            return None
        first = data.get("first_hash")
        marker = cls(first if isinstance(first, str) else None, int(data["last_seq"]))
        in_place = "check" in data or len(raw) >= RECORD_BYTES  # a record written in place always carries its check
        if in_place and data.get("check") != _check(marker.first_hash, marker.last_seq):
            return None
        return marker  # or one written whole (truncated first) before records carried a check


def _holder(raw: bytes) -> int | None:
    try:
        pid = json.loads(raw.decode("utf-8")).get("pid")
    except (ValueError, AttributeError):
        return None
    return pid if isinstance(pid, int) else None


class JournalLock:
    """The held lock. ``previous`` is the marker the file held when it was taken (``None``: none)."""

    def __init__(self, path: Path, fd: int, previous: Marker | None) -> None:
        self.path, self._fd, self.previous = path, fd, previous
        self._marker = previous
        self._journal_fd = -1  # the journal file itself, locked by identity (hold_journal)
        self._size = -1  # the file's size as this lock last wrote it (-1: not written yet)

    @classmethod
    def acquire(cls, journal: Path) -> JournalLock:
        """Take the lock beside ``journal`` or raise :class:`JournalLocked` naming the holder's pid."""
        path = lock_path(journal)
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)  # as the journal's own folder is made
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise JournalError(
                f"cannot create the journal's lock file {path}: {exc.strerror}; check the folder is writable by "
                "the service's user, or choose another journal path (--journal or SHOED_JOURNAL)"
            ) from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(os.pread(fd, 4096, 0))
            os.close(fd)
            who = f"pid {holder}" if holder is not None else "a process that has not written its pid yet"
            raise JournalLocked(
                f"the journal {journal} is in use by another shoed ({who}, lock {path}); two services on one "
                "journal would deal and settle the same round twice: stop the other one, or give this one "
                "its own --journal",
                holder,
            ) from None
        except OSError as exc:
            os.close(fd)
            raise JournalError(f"cannot lock the journal's lock file {path}: {exc.strerror}") from exc
        lock = cls(path, fd, Marker.read(os.pread(fd, 4096, 0)))
        lock._write()
        return lock

    def hold_journal(self, journal: Path) -> None:
        """Lock the journal file itself (its inode, whatever name reached it); refuse a second hard link."""
        try:
            fd = os.open(journal, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
        except OSError as exc:
            raise JournalError(f"cannot open the journal {journal} to lock it: {exc.strerror}") from exc
        st = os.fstat(fd)
        if st.st_nlink > 1:
            os.close(fd)
            raise JournalAliased(
                f"the journal {journal} has {st.st_nlink} hard links (device {st.st_dev}, inode {st.st_ino}): "
                "a second name lets a second service write it past its lock, with a write-ahead log of its own; "
                f"find the other names (find / -xdev -samefile {journal}), remove them, and start again"
            )
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise JournalLocked(
                f"the journal {journal} (device {st.st_dev}, inode {st.st_ino}) is in use by another shoed "
                "that reached it by another path (a link, a bind mount); two services on one journal would deal "
                "and settle the same round twice: stop the other one, or give this one its own --journal",
                None,
            ) from None
        self._journal_fd = fd

    def check(self, journal: Path, *, first_hash: str | None, last_seq: int) -> None:
        """Refuse a journal that the marker says is not the one used here (missing, other chain, shorter)."""
        marker = self.previous
        if marker is None or marker.last_seq == 0:
            return
        hint = (
            "restore the journal from its backup (or find out who replaced it) and start again; only to begin "
            "a new journal deliberately, start shoed once with --new-journal"
        )
        if last_seq == 0:
            raise JournalMismatch(
                f"the journal {journal} is missing or empty, but {self.path} says the journal used here held "
                f"{marker.last_seq} entries: it was deleted, replaced or lost its write-ahead log; {hint}"
            )
        if marker.first_hash is not None and first_hash != marker.first_hash:
            raise JournalMismatch(
                f"the journal {journal} is not the one used here: its first entry differs from the one "
                f"{self.path} records; {hint}"
            )
        if last_seq < marker.last_seq:
            raise JournalMismatch(
                f"the journal {journal} ends at entry {last_seq}, but {self.path} says it held entry "
                f"{marker.last_seq}: entries were lost (a deleted write-ahead log, or the file was cut short); {hint}"
            )

    def record(self, *, first_hash: str | None, last_seq: int) -> None:
        """Note that the journal's main file holds ``last_seq`` entries (call after a checkpoint only)."""
        self._marker = Marker(first_hash, last_seq)
        self._write()

    def _write(self) -> None:
        """Write the pid and the marker in place, padded to :data:`RECORD_BYTES`: after the first write the
        file's size never changes, so each checkpoint's record is one overwrite and a data-only sync (no
        truncation, no size or time stamp to write back: half the CPU of ``ftruncate``, ``pwrite``, ``fsync``
        on this disk). A record cut short or mixed with the one before by a power cut does not parse or does
        not match its check (:func:`_check`): no marker, as an empty file was before.
        """
        data: dict[str, Any] = {"pid": os.getpid()}
        if self._marker is not None:
            first_hash, last_seq = self._marker.first_hash, self._marker.last_seq
            data.update(first_hash=first_hash, last_seq=last_seq, check=_check(first_hash, last_seq))
        text = json.dumps(data)
        raw = (text.ljust(RECORD_BYTES - 1) + "\n").encode()
        try:
            if self._size != len(raw):  # the first write, or a record longer than the padding
                os.ftruncate(self._fd, len(raw))
            os.pwrite(self._fd, raw, 0)
            if self._size != len(raw):
                os.fsync(self._fd)
                self._size = len(raw)
            else:
                os.fdatasync(self._fd)
        except OSError as exc:
            self._size = -1  # written again whole, size and all
            raise JournalError(f"cannot write the journal's lock file {self.path}: {exc.strerror}") from exc

    def release(self) -> None:
        """Unlock (the file stays: it is the marker of the journal used here). Call after the journal is closed:
        closing a descriptor of the journal drops the process's ``fcntl`` locks on it, SQLite's too."""
        if self._journal_fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self._journal_fd)
            self._journal_fd = -1
        if self._fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = -1


def open_checked(path: Path, lock: JournalLock, *, new_journal: bool) -> tuple[Journal, dict[str, Any]]:
    """Open the journal under ``lock``, refused if it does not match the lock file's marker.

    Returns the journal and the extra data for the service's start entry: the marker that
    ``new_journal`` overrode, for the audit trail (empty otherwise).
    """
    if not new_journal and not path.exists():
        lock.check(path, first_hash=None, last_seq=0)  # refused before a new file is created
    journal = Journal.open(path)
    try:
        lock.hold_journal(path)
        first, last = journal.first(), journal.last()
        first_hash, last_seq = (first.hash if first else None), (last.seq if last else 0)
        if not new_journal:
            lock.check(path, first_hash=first_hash, last_seq=last_seq)
            return journal, {}
    except BaseException:
        journal.close()
        raise
    marker = lock.previous
    if marker is None:
        return journal, {}
    log.warning("--new-journal: starting on a journal the lock file's marker does not match", journal=str(path),
                marker_last_seq=marker.last_seq)  # fmt: skip
    return journal, {"new_journal": {"marker_last_seq": marker.last_seq, "marker_first_hash": marker.first_hash}}


def checkpoint(journal: Journal, lock: JournalLock) -> None:
    """Copy the WAL into the main file; once every entry is there, record the marker (a lower bound)."""
    if journal.checkpoint():
        first_hash, last_seq = journal.bounds()
        lock.record(first_hash=first_hash, last_seq=last_seq)
