"""The service's phase while ``shoed`` starts: ``GET /v1/status`` answers at once, every other route waits.

``shoed`` binds its HTTP address, takes the journal lock and serves before it reads the journal or
connects the shoe, so the first answer does not wait for either (a journal's size no longer delays
it). Until the service is ready, :meth:`Starting.gate` answers ``GET /v1/status`` with
``service.state = "starting"`` and the ``step`` in hand, and refuses every other route ``503
starting`` with ``Retry-After: 1``. The handler calls it after the Host, Origin and token checks, so
a hostile request is refused as it always was. ``ready()`` lifts the gate on the same socket: no
connection is dropped, no gap in which the address is closed.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from shoe.version import version

__all__ = ["STATES", "PendingService", "Starting"]

STATES = ("starting", "ready", "stopped")
RETRY_AFTER_S = 1


class Starting:
    """Where ``shoed``'s start is: ``state`` (one of :data:`STATES`) and the ``step`` in hand."""

    def __init__(self, *, table: str = "", journal: str = "") -> None:
        self._lock = threading.Lock()
        self._table, self._journal = table, journal
        self.state = "starting"
        self.step = "listening"
        self._since = time.monotonic()

    def at(self, step: str) -> None:
        with self._lock:
            self.step = step

    def ready(self) -> None:
        with self._lock:
            self.state, self.step = "ready", "serving"

    def stopped(self) -> None:
        with self._lock:
            self.state, self.step = "stopped", "stopped"

    @property
    def is_ready(self) -> bool:
        return self.state == "ready"

    def view(self) -> dict[str, Any]:
        """``service.state`` and ``step`` (merged into the ready service's own ``service`` object too)."""
        with self._lock:
            return {"state": self.state, "step": self.step}

    def status(self) -> dict[str, Any]:
        """The whole ``GET /v1/status`` body before the service is ready, in the ready body's shape: the journal
        is not read yet (``journal_seq`` null), the shoe not connected (``link`` down)."""
        service = {"version": version(), "uptime_s": round(time.monotonic() - self._since, 3),
                   "journal": self._journal, "journal_seq": None, "table": self._table, "running": False}  # fmt: skip
        return {
            "service": {**service, **self.view()},
            "shoe": {"link": "down", "port": None, "identity": None, "status": None},
            "round": None,
            "deck": None,
            "floor": None,
            "integrity": None,
        }

    def refusal(self) -> tuple[str, dict[str, str]]:
        """The message and headers of the ``503 starting`` every other route answers meanwhile."""
        message = f"the service is starting ({self.step}); retry in a moment, GET /v1/status says when it is ready"
        return message, {"Retry-After": str(RETRY_AFTER_S)}


class PendingService:
    """What the server holds for the service before ``shoed`` builds it (after its first status: the service's
    modules are the larger part of the start's imports): its configuration, and what is to be handed over."""

    def __init__(self, config: Any) -> None:
        self.config = config
        self.followers: list[Any] = []
        self.service: Any = None

    def follow_journal(self, follower: Any) -> None:
        """Kept, and given to the service at ``ApiServer.attach`` (the report's summary)."""
        self.followers.append(follower)

    def journal_people(self, data: Any, by: Any) -> None:
        """The people desk's journal (``shoe.api.people_routes.open_people``): the service's once it is built."""
        if self.service is None:
            from shoe.service.errors import ErrorKind, ServiceError

            raise ServiceError("starting", "the service is starting", kind=ErrorKind.UNAVAILABLE,
                               hint="retry in a moment: GET /v1/status says when it is ready")  # fmt: skip
        self.service.journal_people(data, by)
