"""Reading a file of the release, its manifest or its keys only when it is a regular file, and never past a bound.

Verification reads what an attacker may have put in place of a file: a link to ``/dev/zero`` or to a
file outside the release, a FIFO (opening one for reading waits for a writer), a device, a manifest of
gigabytes. Each is refused **before a byte is read**: the file is opened with ``O_NONBLOCK`` (a FIFO opens
at once instead of waiting) and, for a file of the release tree, ``O_NOFOLLOW`` (a link is refused, never
followed); then ``fstat`` on the open descriptor (not on the name, which can be swapped after the check)
says whether it is a regular file. A release tree's file must also stay inside the tree after every link
in its folders is resolved. Every read stops at the size ``fstat`` gave and at a caller's bound, so a file
that grows while it is read cannot keep the check going (docs/deploy.md, "What verification refuses").
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Generator
from pathlib import Path

__all__ = ["NotRegular", "Tree", "chunks_of", "open_regular", "read_regular"]


class NotRegular(OSError):
    """Not read: not a regular file, a link where none may be, outside the tree, or larger than allowed."""


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a folder"),
    ):
        if test(mode):
            return name
    return "not a regular file"


class Tree:
    """The folder a release's files must stay inside, for one check: each folder resolved once (a check
    of 8,275 files resolved every path in 1.7 s; once per folder it is a few hundredths)."""

    def __init__(self, root: Path) -> None:
        self.real = os.path.realpath(root)
        self._folders: dict[str, str] = {}

    def resolved(self, path: Path) -> str:
        """``path`` with its folders resolved and its last component as it is."""
        folder = str(path.parent)
        real = self._folders.get(folder)
        if real is None:
            real = self._folders[folder] = os.path.realpath(folder)
        return os.path.join(real, path.name)

    def holds(self, real: str) -> bool:
        return real.startswith(self.real.rstrip("/") + "/")


def open_regular(path: Path, *, inside: Tree | None = None, follow: bool = True) -> tuple[int, int]:
    """An open descriptor on ``path`` and its size, or :class:`NotRegular` (or OSError) with nothing read.

    ``follow=False``: the last component may not be a link. ``inside``: the resolved path must lie under
    this folder (itself resolved by the caller), so no link in the path's folders leads out of the tree.
    """
    if inside is not None:  # the folders resolved; the last component is O_NOFOLLOW's (or the link's own) to judge
        real = inside.resolved(path)
        if not follow and os.path.islink(real):
            raise NotRegular(f"{path} is a symbolic link (to {os.readlink(real)}), not a file: not read")
        if not inside.holds(real):
            raise NotRegular(f"{path} leads out of the release tree (to {real}): not read")
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if not follow and exc.errno == errno.ELOOP:  # O_NOFOLLOW: the last component is a link
            target = os.readlink(path) if os.path.islink(path) else "?"
            raise NotRegular(f"{path} is a symbolic link (to {target}), not a file: not read") from None
        raise
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise NotRegular(f"{path} is {_kind(st.st_mode)}, not a regular file: not read")
    return fd, st.st_size


def chunks_of(fd: int, size: int, chunk: int) -> Generator[bytes, None, None]:
    """The file's bytes up to ``size`` (its size when opened), in ``chunk``-byte blocks; closes ``fd``."""
    try:
        left = size
        while left > 0:
            block = os.read(fd, min(chunk, left))
            if not block:
                return
            left -= len(block)
            yield block
    finally:
        os.close(fd)


def read_regular(path: Path, limit: int, *, inside: Tree | None = None, follow: bool = True) -> bytes:
    """The whole of a regular file of at most ``limit`` bytes, else :class:`NotRegular` before reading it."""
    fd, size = open_regular(path, inside=inside, follow=follow)
    if size > limit:
        os.close(fd)
        raise NotRegular(f"{path} is {size} bytes, more than the {limit} allowed for it: not read")
    return b"".join(chunks_of(fd, size, 1 << 20))
