"""The shoe's firmware answer (FIRMWARE_DIGEST, protocols/SPEC.md §12) judged against the approved images.

An HMAC keyed by a fresh seed can only be checked by a party that holds the image itself: a list of
expected HMACs would have to be made for every seed in advance, and a list of image SHA-256s cannot be
turned into the HMAC of a new seed. So the **approved list** maps a firmware identity (as the shoe names
it in IDENTITY and in the answer) to the certified image's file, and the host computes the expected
value itself: ``HMAC-SHA256(seed, image)``. The host sends a fresh random seed at every ask.

Verdicts: ``approved`` (the echoed seed is the one sent, the identity is listed and the HMAC equals the
approved image's), ``unapproved`` (an alarm: a replayed answer, an identity not listed, an HMAC that
differs: a changed image or a stale value computed for another seed), ``unverified`` (the shoe lacks
FIRMWARE_DIGEST, or no approved list is configured: never reported as ``ok``).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from shoe.release.regular import read_regular

__all__ = ["FirmwareAnswer", "FirmwareVerdict", "expected_hmac", "judge"]

MAX_IMAGE = 64 << 20
"""An approved image larger than this is refused unread (a shoe's is kilobytes; a link to /dev/zero is not one)."""

Verdict = Literal["approved", "unapproved", "unverified"]


@dataclass(frozen=True)
class FirmwareAnswer:
    seed: bytes
    hmac: bytes
    firmware: str
    bootloader: str
    image_size: int


@dataclass(frozen=True)
class FirmwareVerdict:
    verdict: Verdict
    cause: str  # approved, not-supported, no-approved-list, replayed-answer, firmware-not-approved, digest-differs, ...
    detail: str
    seed: str
    answer: FirmwareAnswer | None = None

    def as_dict(self) -> dict[str, Any]:
        a = self.answer
        return {
            "verdict": self.verdict,
            "cause": self.cause,
            "detail": self.detail,
            "seed": self.seed,
            "firmware": a.firmware if a else None,
            "bootloader": a.bootloader if a else None,
            "image_size": a.image_size if a else None,
            "hmac": a.hmac.hex() if a else None,
        }


def expected_hmac(seed: bytes, image: bytes) -> bytes:
    return hmac.new(seed, image, hashlib.sha256).digest()


def judge(seed: bytes, answer: FirmwareAnswer | None, approved: Mapping[str, Path]) -> FirmwareVerdict:
    """The verdict on one answer to the seed the host sent (``None``: the shoe answered NOT_SUPPORTED)."""
    shown = seed.hex()
    if answer is None:
        return FirmwareVerdict(
            "unverified",
            "not-supported",
            "the shoe does not support FIRMWARE_DIGEST: its firmware is unverified",
            shown,
        )
    if not hmac.compare_digest(answer.seed, seed):
        return FirmwareVerdict(
            "unapproved",
            "replayed-answer",
            f"the answer echoes seed {answer.seed.hex()}, not the seed sent ({shown}): a replayed or forwarded answer",
            shown,
            answer,
        )
    if not approved:
        return FirmwareVerdict(
            "unverified",
            "no-approved-list",
            f"firmware {answer.firmware!r} answered, but no approved firmware list is configured ([verify] firmware)",
            shown,
            answer,
        )
    path = approved.get(answer.firmware)
    if path is None:
        names = ", ".join(sorted(approved))
        return FirmwareVerdict(
            "unapproved",
            "firmware-not-approved",
            f"firmware {answer.firmware!r} is not on the approved list ({names})",
            shown,
            answer,
        )
    try:
        image = read_regular(path, MAX_IMAGE)
    except OSError as exc:
        return FirmwareVerdict(
            "unverified",
            "approved-image-unreadable",
            f"the approved image of {answer.firmware!r} ({path}) cannot be read: {exc}",
            shown,
            answer,
        )
    if not hmac.compare_digest(answer.hmac, expected_hmac(seed, image)):
        size = f"; the shoe's image is {answer.image_size} bytes, the approved one {len(image)}"
        return FirmwareVerdict(
            "unapproved",
            "digest-differs",
            f"the shoe's firmware digest for {answer.firmware!r} "
            "differs from the approved image's: a changed image, or a stale value computed "
            f"for another seed{size if answer.image_size != len(image) else ''}",
            shown,
            answer,
        )
    return FirmwareVerdict(
        "approved",
        "approved",
        f"firmware {answer.firmware!r} matches its approved image (bootloader {answer.bootloader!r})",
        shown,
        answer,
    )
