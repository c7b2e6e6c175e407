"""CRC-32C (Castagnoli) for frame integrity.

CRC-32C detects every 1- to 5-bit error in messages up to 655 bytes, more than the 1,032-byte frame
body needs for the common short frames and far stronger than CRC-16/CCITT (which lets some 4-bit
errors through). The ``crc32c`` package uses the CPU's CRC instructions where present.
"""

from __future__ import annotations

from collections.abc import Callable

import crc32c as _crc32c

CHECK_VALUE = 0xE3069283
"""CRC-32C of ``b"123456789"``: the standard check value."""

RESIDUE = 0x48674BC7
"""CRC-32C of any bytes followed by their own CRC-32C, little-endian: the check a receiver can run over a
whole frame body, CRC included, in one call (a reflected CRC's residue, here after the final inversion).
It holds for exactly the one 4-byte tail that is the body's CRC, so it refuses what a comparison refuses."""

crc32c: Callable[[bytes | bytearray | memoryview], int] = _crc32c.crc32c
"""Return the CRC-32C of ``data`` as an unsigned 32-bit integer (the C function itself: no Python
wrapper on the decode path)."""
