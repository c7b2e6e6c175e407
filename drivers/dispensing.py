"""One dispense, exactly once (SPEC §6), and cross-checked against everything else the shoe says.

:class:`Dispenser` is the part of :class:`~drivers.client.ShoeClient` that moves cards. Besides the
exactly-once rules (after a lost reply or link: STATUS, then ``QUERY_DISPENSE`` about the id in doubt,
never a new id) it checks, for every stack (SPEC §6, "What the host checks"; ``drivers.crosscheck``):

- a new dispense id is answered STARTED; a refusal (NAK) or another answer means no card moved, which
  ``QUERY_DISPENSE`` must confirm (UNKNOWN);
- every CARD_READ agrees with STACK_READY (or with the COMPLETE report read back);
- the shoe's stored result agrees with the stack;
- the counters and cards remaining moved by the stack's cards, and nothing moved between dispenses.

Any disagreement raises :class:`~drivers.errors.ShoeDiscrepancy`, after the dispense has settled in the
shoe (so ``moved`` says what its stored result holds): the caller treats the stack as a misdeal.

**Two exchanges** with a v1.1 shoe (Capability.DISPENSE_POSITION, SPEC §6 check 4): the STARTED report
carries the position before the stack and the read-back report (check 3) the position after it, so
COUNTERS and STATUS are not asked around every stack. "Before" is then the position verified after the
previous dispense, which the STARTED report must repeat (nothing moved in between); with no verified
previous position (the first dispense after connecting, or after anything unverified) it is read first,
as a v1.0 shoe's is every time. A v1.0 shoe: COUNTERS, STATUS, DISPENSE, QUERY_DISPENSE, COUNTERS, STATUS.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import structlog

from drivers.crosscheck import Position, counters_agree, reads_agree, stored_agrees
from drivers.errors import ShoeDiscrepancy, ShoeError, ShoeFault, ShoeIOError, ShoeProtocolError, ShoeTimeout
from drivers.stacks import DispenseFailed, Stack, StackTracker
from protocols import messages as m
from protocols.codes import DispensePhase, FaultCode
from protocols.fields import CardRead

if TYPE_CHECKING:
    from drivers.client import ShoeClient

log = structlog.get_logger("drivers.client")

T = TypeVar("T")


class Dispenser:
    def __init__(self, client: ShoeClient) -> None:
        self.client = client
        self.last_after: Position | None = None
        """Counters and STATUS after the last verified dispense; None after anything unverified."""

    def dispense(self, cards: int) -> Stack:
        # A read's EVENT_ACK rides with the dispense's next request (``Link.holding_acks``, without its object).
        link = self.client.link
        held = link.hold_acks()
        try:
            return self._dispense(cards)
        finally:
            if held:
                link.release_acks()

    def _dispense(self, cards: int) -> Stack:
        c = self.client
        if c._needs_resync:
            # Read-only (IDENTIFY, STATUS, the event log), and nothing of this dispense is sent yet: asked again
            # on silence like the other read-only asks, so a noisy line's four lost answers in a row are not a
            # dispense in doubt that moved nothing.
            self._ask(c.resync)
        positioned = c.positioned  # one IDENTITY for the whole dispense: a resync within it makes it unverified
        before = self._position_before(positioned)
        dispense_id = c._next_dispense_id
        c._next_dispense_id += 1
        tracker = StackTracker(dispense_id)
        c._trackers[dispense_id] = tracker
        confirmed: ShoeError | None = None  # a refusal the shoe's stored results confirm: nothing moved
        try:
            try:
                # A lost reply or link is settled by reconcile (QUERY_DISPENSE), not by re-sending.
                report = c._call(m.Dispense(dispense_id, cards), m.DispenseReport, retries=0, survive_loss=False)
            except (ShoeTimeout, ShoeIOError) as exc:
                log.warning("dispense reply lost; reconciling", dispense_id=dispense_id, error=str(exc))
                c._needs_resync = True
                report = self.reconcile(dispense_id, cards)
                before = self._before_in_doubt(before, report)
            except (ShoeProtocolError, ShoeFault) as exc:
                verdict = self._refused(dispense_id, exc)
                confirmed = exc if verdict is exc else None
                raise verdict from exc
            else:
                if report.phase is not DispensePhase.STARTED:
                    self._started(report)  # raises
                before = self._nothing_moved(before, report, positioned)
            try:
                dealt, replayed = self.finish(tracker, report, cards)
            except DispenseFailed as failed:
                self._verify(dispense_id, before, failed.cards, failed=True, positioned=positioned)
                raise
            after = self._verify(dispense_id, before, dealt, failed=False, positioned=positioned)
            stack = Stack(dispense_id, dealt, replayed, (before.cards, after.cards))  # one frozen dataclass built
            c._remember(stack)
            return stack
        except ShoeDiscrepancy:
            self.last_after = None
            c._needs_resync = True
            raise
        except (ShoeTimeout, ShoeIOError, DispenseFailed):
            raise  # in doubt (the caller pauses and reconciles), or a fault the shoe's stored result confirms
        except ShoeError as exc:
            if exc is confirmed:
                raise
            # Sent, and then an answer that fits no rule (a resync answered by another type...): cards may
            # have moved, so never a plain error that the caller could retry with a new id.
            self.last_after = None
            c._needs_resync = True
            raise self._settled("unexpected-answer", f"dispense {dispense_id}: {exc}", dispense_id) from exc
        finally:
            del c._trackers[dispense_id]

    # -- the checks ----------------------------------------------------------------------------------

    def _ask(self, ask: Callable[[], T]) -> T:
        """A read-only request, asked again on silence until ``reconnect_give_up`` (it moves nothing)."""
        deadline = time.monotonic() + self.client.timeouts.reconnect_give_up
        while True:
            try:
                return ask()
            except (ShoeTimeout, ShoeIOError):
                if time.monotonic() >= deadline:
                    raise

    def _position(self) -> Position:
        return Position.read(self._ask(self.client.counters), self._ask(self.client.status))

    def _query(self, dispense_id: int) -> m.DispenseReport:
        try:
            return self.client.query_dispense(dispense_id)  # the usual case, without ``_ask``'s clock and closure
        except (ShoeTimeout, ShoeIOError):
            return self._ask(lambda: self.client.query_dispense(dispense_id))

    def _position_before(self, positioned: bool) -> Position:
        """Counters and STATUS now; nothing may have moved since the last verified dispense.

        ``positioned`` (v1.1): the last verified position stands for "before" and the STARTED report's own
        position is compared with it (``_nothing_moved``); it is read only when there is none."""
        last, self.last_after = self.last_after, None
        if positioned and last is not None:
            return last
        before = self._position()
        if last is not None:
            self._same_cards(last, before)
        return before

    @staticmethod
    def _same_cards(last: Position, now: Position) -> None:
        if now.cards != last.cards:
            moved = now.cards - last.cards
            raise ShoeDiscrepancy(
                "unasked-cards",
                f"the shoe's card counter moved by {moved} since the last dispense, with no dispense asked",
                moved=moved,
            )

    def _before_in_doubt(self, before: Position, report: m.DispenseReport) -> Position:
        """After a lost reply: a re-sent STARTED carries "before"; a report read back does not (it is "after").

        Then "before" is the last verified position, whose cards remaining a deck loaded since may have
        changed: that one figure is left unchecked (cards and stacks still are)."""
        if report.phase is DispensePhase.STARTED:
            return self._nothing_moved(before, report, self.client.positioned)
        if self.client.positioned:
            return before._replace(cards_remaining=m.Status.UNKNOWN_REMAINING)
        return before

    def _nothing_moved(self, before: Position, report: m.DispenseReport, positioned: bool) -> Position:
        """The STARTED report's position (v1.1) is the one before the stack: the counter did not move since.

        It becomes "before" (cards remaining included: a deck loaded between dispenses changes it)."""
        carried = Position.carried(report)
        if carried is None or not positioned:
            return before
        try:
            self._same_cards(before, carried)
            if carried.stacks != before.stacks:
                raise ShoeDiscrepancy("unasked-cards", f"the shoe's stack counter moved by "
                                      f"{carried.stacks - before.stacks} since the last dispense")  # fmt: skip
        except ShoeDiscrepancy as exc:
            raise self._settled(exc.cause, exc.detail, report.dispense_id) from exc
        return carried

    def _started(self, report: m.DispenseReport) -> None:
        """A new id is answered STARTED (SPEC §6 rule 2): anything else is a shoe that contradicts the id's history."""
        if report.phase is not DispensePhase.STARTED:
            did = report.dispense_id
            raise self._settled(
                "phase-not-started",
                f"dispense {did} was new, but the shoe answered {report.phase.name}"
                + (" (replayed)" if report.replayed else "")
                + " instead of STARTED",
                did,
            )

    def _refused(self, dispense_id: int, exc: ShoeError) -> ShoeError:
        """A refusal or a wrong answer means nothing moved: the shoe must not know the id (QUERY: UNKNOWN)."""
        try:
            report = self._query(dispense_id)
        except ShoeError as query_failed:
            return self._settled("refusal-unconfirmed", f"dispense {dispense_id}: {exc}; {query_failed}", dispense_id)
        if report.phase is DispensePhase.UNKNOWN:
            return exc
        return self._settled(
            "refused-but-moved",
            f"the shoe refused dispense {dispense_id} ({exc}) but reports it {report.phase.name}",
            dispense_id,
        )

    def _settled(self, cause: str, detail: str, dispense_id: int) -> ShoeDiscrepancy:
        """The discrepancy, once the shoe has finished the dispense: ``moved`` from its stored result."""
        moved: int | None = None
        deadline = time.monotonic() + self.client.timeouts.dispense(4)
        try:
            while True:
                # One request (with its retries), not ``_ask``'s wait for the link: a liar that rewrites every
                # answer about this dispense (refused frames) must not hold the table for reconnect_give_up.
                report = self.client.query_dispense(dispense_id)
                if report.phase in (DispensePhase.COMPLETE, DispensePhase.FAILED):
                    moved = len(report.cards)
                elif report.phase is DispensePhase.UNKNOWN:
                    moved = 0
                if moved is not None or time.monotonic() > deadline:
                    break
                time.sleep(0.05)
        except ShoeError as exc:
            log.warning("could not learn what the shoe moved", dispense_id=dispense_id, error=str(exc))
        log.error("shoe discrepancy", cause=cause, dispense_id=dispense_id, moved=moved)
        return ShoeDiscrepancy(cause, detail, dispense_id=dispense_id, moved=moved)

    def _no_conflict(self, tracker: StackTracker) -> None:
        if tracker.conflict is not None:
            refused = tracker.conflict.startswith("refused-frame")
            cause = "refused-frame" if refused else "card-read-mismatch"
            raise self._settled(cause, tracker.conflict, tracker.dispense_id)

    def _agree(self, tracker: StackTracker, stack: tuple[CardRead, ...], *, every_card: bool, what: str) -> None:
        try:
            reads_agree(tracker.dispense_id, tracker.reads, stack, every_card=every_card, what=what)
        except ShoeDiscrepancy as exc:
            raise self._settled(exc.cause, exc.detail, tracker.dispense_id) from exc

    def _verify(
        self, dispense_id: int, before: Position, cards: tuple[CardRead, ...], *, failed: bool, positioned: bool
    ) -> Position:
        """The stored result and the counters against the stack the events gave; any refusal is a discrepancy."""
        try:
            stored = self._query(dispense_id)
            stored_agrees(dispense_id, stored, cards, failed=failed)
            carried = Position.carried(stored) if positioned else None
            after = self._position() if carried is None else carried
            counters_agree(dispense_id, before, after, len(cards), failed=failed)
        except ShoeDiscrepancy as exc:
            raise self._settled(exc.cause, exc.detail, dispense_id) from exc
        except ShoeProtocolError as exc:
            raise self._settled("unverifiable", f"dispense {dispense_id} not checkable: {exc}", dispense_id) from exc
        self.last_after = after
        return after

    # -- exactly once ------------------------------------------------------------------------------

    def reconcile(self, dispense_id: int, cards: int) -> m.DispenseReport:
        """After a lost reply or link: learn what became of ``dispense_id`` without ever doubling it.

        A dispense in doubt is not abandoned after one round of re-sends: the client keeps asking
        until ``reconnect_give_up`` has passed, since giving up would leave the table not knowing
        whether cards moved.
        """
        c = self.client
        deadline = time.monotonic() + c.timeouts.reconnect_give_up
        while True:
            try:
                c._await_link()
                c.resync()
                report = c.query_dispense(dispense_id)
                if report.phase is DispensePhase.UNKNOWN:
                    # The shoe never received it: the same id is safe to send again (SPEC §6 rule 2).
                    try:
                        report = c._call(m.Dispense(dispense_id, cards), m.DispenseReport)
                    except (ShoeProtocolError, ShoeFault) as exc:
                        raise self._refused(dispense_id, exc) from exc
                    self._started(report)
                return report
            except (ShoeTimeout, ShoeIOError) as exc:
                if time.monotonic() >= deadline:
                    raise
                log.warning("reconciliation interrupted; asking again", dispense_id=dispense_id, error=str(exc))

    def finish(self, tracker: StackTracker, report: m.DispenseReport, cards: int) -> tuple[tuple[CardRead, ...], bool]:
        """The stack's card reads once it is in the tray, and whether the shoe's report was a replay."""
        c = self.client
        dispense_id = tracker.dispense_id
        for _ in range(c.timeouts.retries + 2):
            if tracker.conflict is not None:
                self._no_conflict(tracker)  # raises
            if report.phase is DispensePhase.COMPLETE:
                # Read back (after a lost reply or link): its CARD_READs may still be on their way.
                self._agree(tracker, report.cards, every_card=False, what="the COMPLETE report")
                if tracker.result is not None and tracker.result != report.cards:
                    raise self._settled("card-read-mismatch", "STACK_READY and the COMPLETE report differ", dispense_id)
                return report.cards, report.replayed
            if report.phase is DispensePhase.FAILED:
                self._agree(tracker, report.cards, every_card=False, what="the FAILED report")
                raise DispenseFailed(FaultCode(report.fault or FaultCode.INTERNAL_ERROR), dispense_id, report.cards)
            if tracker.result is None and tracker.fault is None and tracker.conflict is None:
                c.link.flush_acks()  # no request carries them while the stack is in motion
            tracker.wait(c.timeouts.dispense(cards))
            if tracker.conflict is not None:
                self._no_conflict(tracker)  # raises
            if tracker.result is not None:
                self._agree(tracker, tracker.result, every_card=True, what="STACK_READY")
                return tracker.result, False
            if tracker.fault is not None:
                raise DispenseFailed(tracker.fault, dispense_id, tracker.cards_so_far())
            tracker.interrupted = False
            c._needs_resync = True
            report = self.reconcile(dispense_id, cards)
        raise ShoeTimeout(f"dispense {dispense_id} did not complete; shoe reports {report.phase.name}")
