"""What an approval covers, and the journal's rules for approval entries. Pure: no I/O, no clocks.

A step put under a second person is journaled as an ``approval`` ``requested`` entry that shows the
step's ``kind``, the service ``step`` that waits, its ``params`` and every ``inputs`` the step depends on
(the round's id, state and record count; a payout's seat, bets, amounts and meter readings; the deck a
maintenance dispense takes from). Its ``digest`` is :func:`approval_digest` of exactly those four, so
anyone holding the journal recomputes it with the standard library alone, and the ``approved`` entry
names the digest it approved. The service refuses to run the step when the digest of the inputs at the
approval differs from the request's: the request lapses (docs/people.md, "What an approval covers").

:class:`ApprovalLedger` is the verify rule (``shoectl journal verify``, the technician's
``verify-journal``): a request's digest matches what it shows; a request is asked once and decided
(approved, rejected, lapsed) at most once; an approval names the digest it was asked with. A journal
checked from its first entry also has every decision follow its request; a slice that starts later
cannot tell, and leaves decisions of requests before it alone.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from shoe.journal.chain import JournalError, canonical

__all__ = ["DECIDED", "ApprovalLedger", "approval_digest"]

DECIDED = frozenset({"approved", "rejected", "lapsed"})
"""The fates of a request: each request has at most one."""


def approval_digest(kind: str, step: str, params: Mapping[str, Any], inputs: Mapping[str, Any]) -> str:
    """``sha256:`` and the hex SHA-256 of the canonical JSON of ``{kind, step, params, inputs}``.

    Raises :class:`JournalError` (a ``JournalDataError``) when they are not plain JSON.
    """
    text = canonical({"kind": kind, "step": step, "params": dict(params), "inputs": dict(inputs)})
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class _Asked:
    seq: int
    digest: str | None  # None: a request of a release before digests (nothing to compare)
    decided: int | None = None  # the seq of its fate


@dataclass
class ApprovalLedger:
    """The approval entries seen so far in one verify pass (``chain.verify_records``)."""

    complete: bool
    """The pass starts at the journal's first entry: a decision must follow its request."""
    asked: dict[str, _Asked] = field(default_factory=dict)

    def check(self, seq: int, data: Mapping[str, Any]) -> str | None:
        """One ``approval`` entry's data: ``None`` when it fits what came before, else the problem."""
        action, request_id = data.get("action"), data.get("request_id")
        if not isinstance(request_id, str):
            return f"entry {seq}: approval entry without a request id (edited?)"
        if action == "requested":
            return self._requested(seq, request_id, data)
        if action not in DECIDED:
            return None  # refused: an attempt that changed nothing, as often as it was tried
        asked = self.asked.get(request_id)
        if asked is None:
            if self.complete:
                return f"entry {seq}: approval request {request_id} is {action} but was never requested"
            return None
        if asked.decided is not None:
            return (
                f"entry {seq}: approval request {request_id} is {action} after its decision at entry "
                f"{asked.decided} (a replayed approval?)"
            )
        asked.decided = seq
        if action == "approved" and asked.digest is not None and data.get("digest") != asked.digest:
            return (
                f"entry {seq}: approval of request {request_id} names digest {data.get('digest')!r}, "
                f"not the {asked.digest} it was requested with"
            )
        return None

    def _requested(self, seq: int, request_id: str, data: Mapping[str, Any]) -> str | None:
        if request_id in self.asked:
            first = self.asked[request_id].seq
            return f"entry {seq}: approval request {request_id} is requested again (first at entry {first})"
        digest = data.get("digest")
        if digest is not None:
            kind, step, params, inputs = (data.get(k) for k in ("kind", "step", "params", "inputs"))
            if not (isinstance(kind, str) and isinstance(step, str)) or not (
                isinstance(params, Mapping) and isinstance(inputs, Mapping)
            ):
                return f"entry {seq}: approval request {request_id} has a digest but not what it covers (edited?)"
            try:
                recomputed = approval_digest(kind, step, params, inputs)
            except JournalError:
                return f"entry {seq}: approval request {request_id} shows data that is not plain JSON (edited?)"
            if recomputed != digest:
                return (
                    f"entry {seq}: approval request {request_id}'s digest does not match the step and inputs "
                    "it shows (edited?)"
                )
        self.asked[request_id] = _Asked(seq, digest if isinstance(digest, str) else None)
        return None
