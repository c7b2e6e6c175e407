"""``GET /v1/report``: ``shoectl report`` for the table-system role, on the service's own journal (issue 15).

The same figures as ``shoectl report --json`` (:mod:`shoe.report`): amounts, counts, round ids and
seats, never a card. Query ``by`` (all, table, shift, day, seat) and ``alpha`` as on the command line.
The journal is read through a second connection (its write-ahead log lets it read while the service
appends); nothing is written.
"""

from __future__ import annotations

from typing import Any

from shoe.journal import Journal
from shoe.report.read import read_rounds
from shoe.report.summary import GROUPINGS, build_report
from shoe.service import ServiceError
from shoe.service.errors import ErrorKind

__all__ = ["journal_report"]


def journal_report(service: object, query: dict[str, str]) -> dict[str, Any]:
    """The report of the journal ``service`` writes (a ``TableService``: its ``config.journal``)."""
    by = query.get("by", "all")
    if by not in GROUPINGS:
        raise ServiceError("bad-request", f"by={by!r}: give one of {', '.join(GROUPINGS)}", kind=ErrorKind.BAD_INPUT)
    try:
        alpha = float(query.get("alpha", "0.001"))
    except ValueError:
        alpha = -1.0
    if not 0 < alpha < 1:
        raise ServiceError("bad-request", "alpha: give a probability between 0 and 1", kind=ErrorKind.BAD_INPUT)
    path = getattr(getattr(service, "config", None), "journal", None)
    if path is None:
        raise ServiceError("no-journal", "this service keeps no journal to report on", kind=ErrorKind.UNAVAILABLE)
    with Journal.open(path) as journal:
        data = build_report(read_rounds(journal), by=by, alpha=alpha)
    data.pop("series")
    return data
