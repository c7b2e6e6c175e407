"""The table service's journal: an append-only, hash-chained record of every round (docs/journal.md).

``chain`` holds the records and the hash chain (pure), ``store`` the SQLite file, ``paths`` where the
file lives and its permissions, ``reconstruct`` a round rebuilt from its entries (pure).
"""

from shoe.journal.chain import (
    GENESIS,
    Entry,
    JournalDataError,
    JournalError,
    Pending,
    VerifyResult,
    canonical,
    entry_hash,
    prepare,
    verify_entries,
)
from shoe.journal.paths import default_journal_path
from shoe.journal.store import Journal

__all__ = [
    "GENESIS",
    "Entry",
    "Journal",
    "JournalDataError",
    "JournalError",
    "Pending",
    "VerifyResult",
    "canonical",
    "default_journal_path",
    "entry_hash",
    "prepare",
    "verify_entries",
]
