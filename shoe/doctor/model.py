"""What a check is given (``Context``: every root injectable), what it returns (``CheckResult``), the registry.

A check never raises for a missing facility: no udev, no USB, no systemd, no ``/proc`` give a *skipped*
result with the reason. It fails only when the thing it exists to verify is wrong or absent, and then
``fix`` holds the command that mends it.
"""

from __future__ import annotations

import getpass
import os
import pwd
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from drivers.usb_ids import PRODUCT_ID, VENDOR_ID
from shoe.journal.paths import default_journal_path
from shoe.udev_rules import RULES_FILE_NAME, shipped_rules_path

DEFAULT_SERVICE_URL = "http://127.0.0.1:8470"
DEFAULT_RULES_DIR = Path("/etc/udev/rules.d")
GROUP = "cardshoe"


class Status(Enum):
    OK = "ok"
    FAILED = "failed"
    SKIPPED = "skipped"


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One check's answer. ``ok`` is False only for a failure; a skipped check is ok and says why in ``detail``."""

    name: str
    ok: bool
    detail: str
    fix: str = ""
    skipped: bool = False

    @property
    def status(self) -> Status:
        return Status.SKIPPED if self.skipped else Status.OK if self.ok else Status.FAILED

    def as_dict(self) -> dict[str, str]:
        return {"name": self.name, "status": self.status.value, "detail": self.detail, "fix": self.fix}


def passed(name: str, detail: str) -> CheckResult:
    return CheckResult(name, True, detail)


def failed(name: str, detail: str, fix: str) -> CheckResult:
    return CheckResult(name, False, detail, fix)


def skipped(name: str, reason: str) -> CheckResult:
    return CheckResult(name, True, reason, skipped=True)


def current_user() -> str:
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return getpass.getuser()


def _release_pubkey() -> Path | None:
    from shoe.release.signing import DEFAULT_PUBKEY

    return DEFAULT_PUBKEY if DEFAULT_PUBKEY.exists() else None


@dataclass(frozen=True, slots=True)
class Context:
    """Where the checks look. The defaults are the real machine; tests point every root into ``tmp_path``."""

    rules_dir: Path = DEFAULT_RULES_DIR
    shipped_rules: Path = field(default_factory=shipped_rules_path)
    sysfs_root: Path = Path("/sys")
    dev_root: Path = Path("/dev")
    proc_root: Path = Path("/proc")
    group_file: Path = Path("/etc/group")
    journal: Path = field(default_factory=default_journal_path)
    service_url: str = DEFAULT_SERVICE_URL
    timeout_s: float = 2.0
    user: str = field(default_factory=current_user)
    uid: int = field(default_factory=os.getuid)
    gid: int = field(default_factory=os.getgid)
    process_gids: frozenset[int] = field(default_factory=lambda: frozenset(os.getgroups()))
    group: str = GROUP
    vendor_id: int = VENDOR_ID
    product_id: int = PRODUCT_ID
    release_root: Path = Path(sys.prefix)  # the installed program checked against its manifest
    release_pubkey: Path | None = field(default_factory=_release_pubkey)

    @property
    def installed_rules(self) -> Path:
        return self.rules_dir / RULES_FILE_NAME

    @property
    def install_fix(self) -> str:
        return (
            f"sudo install -m 644 {self.shipped_rules} {self.rules_dir}/ && sudo udevadm control --reload "
            "&& sudo udevadm trigger"
        )


Check = Callable[[Context], CheckResult]
CHECKS: list[tuple[str, Check]] = []


def check(name: str) -> Callable[[Check], Check]:
    """Register a check under ``name``; ``run_checks`` runs them in registration order."""

    def register(fn: Check) -> Check:
        CHECKS.append((name, fn))
        return fn

    return register


def run_checks(ctx: Context, checks: list[tuple[str, Check]] | None = None) -> list[CheckResult]:
    """Every registered check. An unexpected ``OSError`` inside one is that check's failure, not a crash."""
    results = []
    for name, fn in CHECKS if checks is None else checks:
        try:
            results.append(fn(ctx))
        except OSError as exc:
            results.append(failed(name, f"could not check: {exc}", "run shoectl doctor as the service's user, or root"))
    return results
