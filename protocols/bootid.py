"""The one form of a boot id that people and clients read: 8 lower-case hex digits (``9c0e5a2c``).

The wire (SPEC §3, ``IDENTITY``/``STATUS``) carries a boot id as a U32 and the journal stores that
integer (its format is a stable data format: docs/journal.md); every log line, API response, event
and CLI output shows it through :func:`boot_id_text`, so one boot reads the same everywhere.
"""

from __future__ import annotations

__all__ = ["BOOT_ID_KEYS", "boot_id_text"]

BOOT_ID_KEYS = frozenset({"boot_id", "old_boot_id", "new_boot_id"})
"""The field names that hold a boot id in journal payloads, events and log lines."""


def boot_id_text(boot_id: int) -> str:
    """``3154970348`` -> ``"bc0d06ec"``: 8 lower-case hex digits, zero-padded."""
    return f"{boot_id:08x}"
