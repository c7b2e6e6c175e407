"""The emulated shoe's firmware image and its FIRMWARE_DIGEST answer (SPEC §12).

The emulator carries a firmware image, a file: ``firmware/emu-1.0.bin`` in this package (a test image,
not real firmware) or the file ``firmware_image`` names. It is read at every request, so a byte changed in
the file changes the next answer, as a reflashed shoe's would. ``firmware_image=none`` is a shoe without
the request: NAK NOT_SUPPORTED, and no FIRMWARE_DIGEST bit in IDENTITY's capabilities.
"""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path

from drivers.emulator.config import EmulatorConfig
from protocols import messages as m
from protocols.codes import Capability, NakCode

__all__ = ["DEFAULT_IMAGE", "MAX_SEED", "MIN_SEED", "capabilities", "digest", "image_path"]

DEFAULT_IMAGE = Path(__file__).with_name("firmware") / "emu-1.0.bin"
MIN_SEED, MAX_SEED = 4, 64


def image_path(config: EmulatorConfig) -> Path | None:
    if config.firmware_image.lower() == "none":
        return None
    return Path(config.firmware_image) if config.firmware_image else DEFAULT_IMAGE


def capabilities(config: EmulatorConfig, base: int) -> int:
    return base if image_path(config) is not None else base & ~int(Capability.FIRMWARE_DIGEST)


def digest(config: EmulatorConfig, seed: bytes) -> m.FirmwareDigestReport:
    from drivers.emulator.handlers import RequestError  # the handlers import this module

    path = image_path(config)
    if path is None:
        raise RequestError(NakCode.NOT_SUPPORTED, "this shoe has no firmware digest")
    if not MIN_SEED <= len(seed) <= MAX_SEED:
        raise RequestError(NakCode.BAD_ARGUMENT, f"seed of {len(seed)} bytes: 4 to 64 bytes")
    try:
        image = path.read_bytes()
    except OSError as exc:
        raise RequestError(NakCode.NOT_SUPPORTED, f"firmware image unreadable: {exc.strerror}") from None
    value = hmac.new(seed, image, hashlib.sha256).digest()
    return m.FirmwareDigestReport(seed, value, config.firmware, config.bootloader, len(image))
