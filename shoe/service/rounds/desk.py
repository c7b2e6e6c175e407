"""The round desk: the round in hand, and what its steps reach (the ``Desk`` protocol of :mod:`.run`).

``append`` goes to the journal sink, ``dispense``/``scan``/``release_stub`` to the link supervisor,
``drain`` to the owner thread's queue (shoe items that arrived meanwhile; they may pause the round, and
the step that asked is told so). The round's steps reach it through ``rounds.intents.drive``.
The desk also answers for what the shoe says against the round: a contradiction outside a dispense is
an alarm and a misdeal. Only the owner thread calls it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from drivers.errors import ShoeDiscrepancy
from drivers.notices import Discrepancy
from drivers.stacks import Stack
from protocols.fields import CardRead
from shoe.rules.profiles import Irregularity
from shoe.service.errors import ServiceError
from shoe.service.journal.sink import JournalSink
from shoe.service.link.supervisor import LinkSupervisor
from shoe.service.rounds.intents import DrainResult, drive
from shoe.service.rounds.run import RoundRun

__all__ = ["RoundDesk"]


class RoundDesk:
    def __init__(self, sink: JournalSink, supervisor: LinkSupervisor, drain: Callable[[], None]) -> None:
        self.sink = sink
        self.supervisor = supervisor
        self._drain = drain
        self.run: RoundRun | None = None
        """The live round, or the last one closed (the round the view keeps showing)."""
        self.deck_gate: Callable[[], tuple[int | None, dict[str, Any]]] | None = None
        """The open-round gate of the deck cycle (``DeckCycle.for_round``), set by the owner."""
        self.loader: Callable[[Sequence[str]], bool] | None = None
        """The deck cycle's load on top of a live deck (``DeckCycle.load_on_top``), set by the owner."""

    @property
    def known_dispense_id(self) -> int:
        """The last dispense the journal holds completely (reconciliation reads and moves it)."""
        return self.sink.known_dispense_id

    @known_dispense_id.setter
    def known_dispense_id(self, value: int) -> None:
        self.sink.known_dispense_id = value

    def live_id(self) -> str | None:
        return self.run.round_id if self.run is not None and not self.run.closed else None

    def append(self, kind: str, data: dict[str, Any], round_id: str | None) -> int:
        return self.sink.append(kind, data, round_id)

    def dispense(self, size: int) -> Stack:
        self.sink.flush()  # the entries queued so far are committed before the shoe moves
        return self.supervisor.dispense(size)

    def scan(self) -> CardRead:
        self.sink.flush()  # the entries queued so far are committed before the shoe moves
        try:
            return self.supervisor.scan()
        except ShoeDiscrepancy as exc:  # the card is out of the stub, its identity in doubt: never a guess
            self.on_discrepancy(Discrepancy(exc.cause, exc.detail))
            raise ServiceError("shoe-discrepancy", f"the round is void: {exc}", hint=exc.hint) from exc

    def release_stub(self) -> int:
        self.sink.flush()  # the entries queued so far are committed before the shoe moves
        return self.supervisor.release_stub()

    def drain(self) -> DrainResult:
        self._drain()
        run = self.run
        live = run is not None and not run.closed
        return DrainResult(
            paused=live and run is not None and run.paused,
            ended=live and run is not None and run.terminal,
            link_up=self.supervisor.client is not None and self.supervisor.shown.link == "up",
        )

    def shoe_serial(self) -> str | None:
        return self.supervisor.shoe_serial()

    def cards_remaining(self) -> int | None:
        return self.supervisor.cards_remaining()

    def load_on_top(self, codes: Sequence[str]) -> bool:
        return self.loader is not None and self.loader(codes)

    def deck_for_round(self) -> tuple[int | None, dict[str, Any]]:
        if self.deck_gate is None:
            raise ServiceError("deck-not-ready", "the service has no deck cycle", hint="restart the service")
        self.sink.flush()
        return self.deck_gate()

    def raise_alarm(
        self, cause: str, detail: str, *, dispense_id: int | None = None, unjournaled: int | None = None
    ) -> None:
        self.supervisor.raise_alarm(cause, detail, dispense_id=dispense_id, unjournaled=unjournaled)

    def on_discrepancy(self, notice: Discrepancy) -> None:
        """The shoe contradicted itself outside a dispense: an alarm, and the live round is a misdeal."""
        self.supervisor.raise_alarm(notice.cause, notice.detail, dispense_id=notice.dispense_id)
        run = self.run
        if run is not None and not run.closed and not run.terminal:
            drive(run.void(Irregularity.SHOE_DISCREPANCY, f"the shoe contradicted itself: {notice.detail}"), self)
