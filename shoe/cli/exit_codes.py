"""Exit codes of ``shoectl``: documented in ``--help`` and docs/shoectl.md; scripts may rely on them."""

from __future__ import annotations

from enum import IntEnum

from drivers.errors import (
    BadPort,
    ShoeError,
    ShoeFault,
    ShoeInitError,
    ShoeIOError,
    ShoeProtocolError,
    ShoeTimeout,
    ShoeUnavailable,
)


class Exit(IntEnum):
    OK = 0
    BUG = 1
    USAGE = 2
    UNAVAILABLE = 3
    INIT = 4
    LINK_LOST = 5
    TIMEOUT = 6
    PROTOCOL = 7
    DEVICE_FAULT = 8
    RULES = 9
    """An illegal script or action refused by the rules engine (shoectl play)."""
    JOURNAL_BAD = 10
    """The journal's hash chain is broken (shoectl journal verify)."""
    DOCTOR_FAILED = 11
    """A shoectl doctor check failed."""
    PROGRAM_MISMATCH = 12
    """shoectl verify: a file added, removed or changed, a version differs; --shoe: firmware unapproved."""
    SIGNATURE_BAD = 13
    """shoectl verify: the manifest's signature does not hold for the trusted key."""
    UNVERIFIED = 14
    """shoectl verify: nothing to check against (no trusted key; --shoe: no digest, no approved image)."""
    MISDEAL = 15
    """shoectl play: the round was played to its end as void (a misdeal: an unreadable or wrong card); every
    wager returned, the record says why."""


MEANING: dict[Exit, str] = {
    Exit.OK: "ok",
    Exit.BUG: "a bug: a traceback is printed, please report it",
    Exit.USAGE: "usage error (a bad option, a malformed port URL or emu:// option)",
    Exit.UNAVAILABLE: "shoe unavailable",
    Exit.INIT: "shoe could not be initialised",
    Exit.LINK_LOST: "link lost",
    Exit.TIMEOUT: "timeout",
    Exit.PROTOCOL: "protocol error (shoe refused)",
    Exit.DEVICE_FAULT: "device fault (jam, door open, a deck that fails its check, ...)",
    Exit.RULES: "rules violation (illegal script)",
    Exit.JOURNAL_BAD: "journal tampered or damaged (shoectl journal verify)",
    Exit.DOCTOR_FAILED: "a shoectl doctor check failed",
    Exit.PROGRAM_MISMATCH: "program mismatch: a file added, removed or changed; firmware unapproved (shoectl verify)",
    Exit.SIGNATURE_BAD: "the release manifest's signature does not hold (shoectl verify)",
    Exit.UNVERIFIED: "unverified: no trusted key, or a shoe without a firmware digest (shoectl verify)",
    Exit.MISDEAL: "misdeal: the round is void, every wager returned; its record says why (shoectl play)",
}
"""The one table of exit codes: --help prints it, docs/shoectl.md lists it, tests hold both to it."""


def exit_code_for(error: ShoeError) -> Exit:
    for cls, code in (
        (BadPort, Exit.USAGE),
        (ShoeFault, Exit.DEVICE_FAULT),
        (ShoeTimeout, Exit.TIMEOUT),
        (ShoeUnavailable, Exit.UNAVAILABLE),
        (ShoeInitError, Exit.INIT),
        (ShoeIOError, Exit.LINK_LOST),
        (ShoeProtocolError, Exit.PROTOCOL),
    ):
        if isinstance(error, cls):
            return code
    return Exit.BUG


EPILOG = "exit codes:\n" + "\n".join(f"  {int(code):>2} {text}" for code, text in MEANING.items()) + "\n"
