"""The floor's refusal, journaled on the table: an alarm on both sides (docs/floor.md, "The shipper").

The shipper (``shoe.service.floor.shipper``) runs on a thread of its own and never writes the journal; when the
floor refuses this table's journal (a fork, an entry edited after it was shipped, a replaced journal:
docs/floor.md, "The receiving side") it only sets its ``alarm``. The owner thread looks at it at every tick
and journals each new refusal once, as a ``fault`` alarm with cause ``floor-refused``. The alarm does not
block rounds: the table's own journal is still the record of its play; the floor's copy waits for an
operator (docs/floor.md, "A refused journal").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

__all__ = ["CAUSE", "FloorWatch"]

CAUSE = "floor-refused"


class _Alarms(Protocol):
    def raise_alarm(self, cause: str, detail: str, *, blocking: bool = False) -> None: ...


class FloorWatch:
    """Journals the shipper's alarm when it changes to a new refusal; owner thread only."""

    def __init__(self, alarms: _Alarms) -> None:
        self.alarms = alarms
        self.source: Callable[[], str | None] | None = None  # the shipper's alarm, when shoed starts one
        self._raised: str | None = None

    def tick(self) -> None:
        if self.source is None:
            return
        alarm = self.source()
        if alarm == self._raised:
            return
        self._raised = alarm
        if alarm is not None:
            self.alarms.raise_alarm(CAUSE, f"the floor refuses this table's journal: {alarm}", blocking=False)
