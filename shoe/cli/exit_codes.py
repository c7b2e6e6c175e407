"""Exit codes of ``shoectl``: documented in ``--help`` and docs/shoectl.md; scripts may rely on them."""

from __future__ import annotations

from enum import IntEnum

from drivers.errors import (
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


def exit_code_for(error: ShoeError) -> Exit:
    for cls, code in (
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


EPILOG = """\
exit codes:
  0 ok   2 usage error   3 shoe unavailable   4 shoe could not be initialised   5 link lost
  6 timeout   7 protocol error (shoe refused)   8 device fault (jam, door open, ...)
  9 rules violation (illegal script)   1 a bug: a traceback is printed, please report it
"""
