"""The report's rounds kept as entries are appended: what ``read_rounds`` gives, without rereading the journal.

``RoundLedger.add(entry)`` takes each journal entry once, in seq order (a seq already taken is
ignored, so a rebuild from the file and the live entries may overlap); ``rounds()`` yields the same
:class:`~shoe.report.read.RoundInfo` sequence ``read_rounds`` yields for the same entries: closed
rounds in the order their ``round-closed`` entry came, then the rounds still open in the order their
first entry came. A closed round is kept only as its ``RoundInfo`` (amounts, seats, decisions, the
cards the report values: no entry), so memory follows the number of rounds, not of entries, and only
the open round's entries are held.
"""

from __future__ import annotations

from collections.abc import Iterator

from shoe.journal import Entry
from shoe.report.read import RoundInfo, rounds_of

__all__ = ["RoundLedger"]


class RoundLedger:
    def __init__(self) -> None:
        self._closed: list[RoundInfo] = []
        self._open: dict[str, list[Entry]] = {}
        self._first_seen: dict[str, int] = {}  # an open round's id -> when its first entry came (read_rounds' order)
        self._rounds_seen = 0  # a counter, not len(_first_seen): a closed round's id is let go
        self.last_seq = 0
        self.version = 0
        """Moves whenever what :meth:`rounds` yields may have changed (an entry of a round)."""

    def add(self, entry: Entry) -> None:
        """One entry, in seq order; one at or below :attr:`last_seq` was taken already and changes nothing."""
        if entry.seq <= self.last_seq:
            return
        self.last_seq = entry.seq
        rid = entry.round_id
        if rid is None:
            return
        self.version += 1
        if rid not in self._first_seen:
            self._first_seen[rid] = self._rounds_seen
            self._rounds_seen += 1
        self._open.setdefault(rid, []).append(entry)
        if entry.kind == "round-closed":
            self._closed.append(rounds_of(self._open.pop(rid)))
            del self._first_seen[rid]  # only open rounds are ordered by it: a shift of rounds does not pile up ids

    def rounds(self) -> Iterator[RoundInfo]:
        """Every round, as :func:`~shoe.report.read.read_rounds` orders them."""
        yield from self._closed
        for rid in sorted(self._open, key=self._first_seen.__getitem__):
            yield rounds_of(list(self._open[rid]))

    @property
    def closed_rounds(self) -> int:
        return len(self._closed)
