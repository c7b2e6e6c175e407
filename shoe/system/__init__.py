"""The files a table PC needs outside the virtual environment, shipped inside the package, and their installer.

``60-card-shoe.rules`` (udev: the shoe's group, mode, links, ModemManager kept off; udev/README.md) and
``shoed.service`` (the systemd unit; docs/deploy.md) are package data, so a wheel installed into a fresh
virtual environment carries them: ``shoectl system install`` copies them into ``/etc`` (or under a
``--root`` for a chroot, an image being built, or a test) and reports, per file, whether it was created,
updated or already the same. It never runs a program: reloading udev and systemd is the operator's next
command, which the report names. In a checkout ``udev/60-card-shoe.rules`` and ``deploy/shoed.service``
are links to these files.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from shoe.udev_rules import RULES_FILE_NAME

UNIT_FILE_NAME = "shoed.service"

FILES: dict[str, tuple[str, PurePosixPath]] = {
    "rules": (RULES_FILE_NAME, PurePosixPath("etc/udev/rules.d") / RULES_FILE_NAME),
    "unit": (UNIT_FILE_NAME, PurePosixPath("etc/systemd/system") / UNIT_FILE_NAME),
}
"""name -> (the shipped file in this package, where it goes relative to the root)."""

FILE_MODE = 0o644
DIR_MODE = 0o755
RELEASE_SHOED = PurePosixPath("opt/shoed/current/bin/shoed")
"""The program the unit's ExecStart names (the release in service, through its symlink)."""

NEXT_STEPS = {
    "rules": "udevadm control --reload && udevadm trigger",
    "unit": "systemctl daemon-reload",
}


class InstallError(Exception):
    """The root is not a directory, or a target is in the way (a directory where a file belongs)."""


def shipped_file(name: str) -> Path:
    """The shipped copy of ``name`` (``rules`` or ``unit``), a real file inside this installed package."""
    return Path(__file__).resolve().parent / FILES[name][0]


@dataclass(frozen=True, slots=True)
class Change:
    """What installing one file did (or, in a dry run, would do)."""

    name: str
    path: str
    """The target as the system will see it (``/etc/...``), whatever the root."""
    action: str
    """``created``, ``updated`` (content or mode differed) or ``unchanged``."""

    def as_dict(self) -> dict[str, str]:
        return {"name": self.name, "path": self.path, "action": self.action}


def _action(target: Path, content: bytes) -> str:
    if target.is_symlink():
        return "updated"  # a link in the target's place is replaced by the file itself, never written through
    if not target.exists():
        return "created"
    if target.is_dir():
        raise InstallError(f"{target} is a directory, where the file belongs")
    same = target.read_bytes() == content and (target.stat().st_mode & 0o7777) == FILE_MODE
    return "unchanged" if same else "updated"


def _write(target: Path, content: bytes) -> None:
    """Atomically: a temporary file beside the target, mode 0644, then renamed over it."""
    target.parent.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(content)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def install(root: Path, names: list[str] | None = None, *, dry_run: bool = False) -> list[Change]:
    """Install the shipped files named (default: all) under ``root``; returns one ``Change`` per file."""
    if not root.is_dir():
        raise InstallError(f"the root {root} is not a directory")
    changes = []
    for name in names or list(FILES):
        rel = FILES[name][1]
        target = root / rel
        content = shipped_file(name).read_bytes()
        action = _action(target, content)
        if action != "unchanged" and not dry_run:
            _write(target, content)
        changes.append(Change(name, "/" + str(rel), action))
    return changes


def next_steps(changes: list[Change]) -> list[str]:
    """The commands that make the running system read what changed (none when nothing did)."""
    return [NEXT_STEPS[c.name] for c in changes if c.action != "unchanged"]


def missing_program(root: Path, changes: list[Change]) -> str | None:
    """A note when the unit is installed but the program its ExecStart names is not there (yet)."""
    if any(c.name == "unit" for c in changes) and not (root / RELEASE_SHOED).exists():
        return (
            f"the unit starts /{RELEASE_SHOED}, which does not exist under {root}: "
            "link the release first (docs/deploy.md, Install step 2)"
        )
    return None


__all__ = [
    "FILES",
    "RULES_FILE_NAME",
    "UNIT_FILE_NAME",
    "Change",
    "InstallError",
    "install",
    "missing_program",
    "next_steps",
    "shipped_file",
]
