"""The shoe's USB identity: the one place the ids live (the driver, the fake bus and the udev rules read it).

``VENDOR_ID:PRODUCT_ID`` = ``1209:0001`` is the pid.codes *test* id pair, free for development and
never unique in the field. They are placeholders: a manufacturer shipping a shoe replaces them with its
own USB-IF vendor id (or a pid.codes allocation) here, and nowhere else.

The interface layout is SPEC.md §1: one vendor-class interface with one bulk OUT and one bulk IN
endpoint.
"""

from __future__ import annotations

from typing import Final

VENDOR_ID: Final = 0x1209  # pid.codes, test range: placeholder
PRODUCT_ID: Final = 0x0001  # pid.codes test PID: placeholder
INTERFACE_CLASS: Final = 0xFF  # vendor specific

__all__ = ["INTERFACE_CLASS", "PRODUCT_ID", "VENDOR_ID"]
