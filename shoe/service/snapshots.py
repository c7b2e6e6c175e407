"""The snapshots other threads read: plain values the owner thread replaces whole, never edits in place.

HTTP threads (``/v1/round``, ``/v1/status``), the metrics scrape and the watchdog read these without a
lock: each attribute is one reference, swapped by the owner thread (``link`` also by the link's reader
thread, when it posts a lost or restored link). Readers copy what they hand on.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from shoe.service.registry import callable_now

if TYPE_CHECKING:
    from shoe.service.rounds import RoundRun

__all__ = ["Snapshots", "round_view"]


def round_view(run: RoundRun) -> dict[str, Any]:
    """The round as anyone may see it, with the actions callable now (``actions``, from the registry:
    issue 11 point 1); the rules engine still decides each one."""
    return {**run.view(), "actions": callable_now(run.game, not run.closed)}


@dataclass
class Snapshots:
    link: str = "down"  # "up", "reconnecting" or "down"
    identity: dict[str, Any] | None = None  # the shoe's IDENTITY (shoe.present)
    status: dict[str, Any] | None = None  # its last STATUS
    view: dict[str, Any] | None = None  # the current or last round, as anyone may see it
    summary: dict[str, Any] | None = None  # that round's id, game, state, closed
    heartbeat: float = field(default_factory=time.monotonic)  # when the owner last looped (the watchdog)

    def publish_round(self, run: RoundRun | None) -> None:
        """The round's view and summary, after every item the owner handled."""
        self.view = None if run is None else round_view(run)
        self.summary = (
            None if run is None else {"id": run.round_id, "game": run.game, "state": run.state, "closed": run.closed}
        )
