"""The host's side of FIRMWARE_DIGEST (SPEC §12): ask the shoe for its seeded firmware digest.

A shoe that lacks the request answers NAK NOT_SUPPORTED (or, older than the request, UNKNOWN_MESSAGE,
SPEC §7): the answer is then ``None`` and the caller reports the firmware *unverified*, never ok. Judging
the answer (the echoed seed, the approved images) is the table's job (``shoe.release.firmware``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drivers.errors import ShoeProtocolError
from protocols import messages as m
from protocols.codes import NakCode

__all__ = ["ask_firmware_digest"]


def ask_firmware_digest(call: Callable[..., Any], seed: bytes) -> m.FirmwareDigestReport | None:
    """``call`` is the client's typed request (``ShoeClient._call``)."""
    try:
        report = call(m.FirmwareDigest(seed), m.FirmwareDigestReport)
    except ShoeProtocolError as exc:
        if exc.nak in (NakCode.NOT_SUPPORTED, NakCode.UNKNOWN_MESSAGE):
            return None
        raise
    assert isinstance(report, m.FirmwareDigestReport)
    return report
