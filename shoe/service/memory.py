"""Memory is a cache of the journal (docs/journal.md, "Journal before state"): after a failed item,
make the round, the deck's state and ``known_dispense_id`` equal the journal again, or stop the service.

:func:`recover` decides; :func:`rebuild_from_journal` replaces the round on the desk by the journal's;
:func:`void_unreadable` and :func:`journal_unrecorded_stacks` are also used at start (``Owner.boot``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import structlog

from drivers.errors import ShoeError
from shoe.journal import Journal, JournalDataError, JournalError
from shoe.rules.errors import RuleViolation
from shoe.rules.profiles import Irregularity
from shoe.service.errors import ErrorKind, ServiceError
from shoe.service.journal.sink import JournalSink
from shoe.service.link.supervisor import LinkSupervisor
from shoe.service.rounds.desk import RoundDesk
from shoe.service.rounds.intents import drive
from shoe.service.rounds.recovery import read_stack, scan_journal
from shoe.service.rounds.run import RoundRun, rebuild

if TYPE_CHECKING:
    from shoe.service.owner import Owner

__all__ = ["journal_unrecorded_stacks", "rebuild_from_journal", "recover", "void_unreadable"]

log = structlog.get_logger("shoe.service")


def recover(owner: Owner, exc: BaseException) -> ServiceError | None:
    """After ``exc`` ended a command or a shoe item: make memory equal the journal again.

    - A refusal (``ServiceError``, ``RuleViolation``, ``ShoeError``) raised before anything was
      appended changed nothing: nothing to do.
    - The journal file failed (a ``JournalError`` other than ``JournalDataError``: disk full, I/O,
      a deleted write-ahead log): the service stops; the restart rebuilds from the journal.
    - Anything else (data the journal cannot record, a bug, a refusal after an append): the round
      and ``known_dispense_id`` are rebuilt from the journal (:func:`rebuild_from_journal`).

    Returns the error to answer with instead of the translated one, or ``None``.
    """
    refused = isinstance(exc, ServiceError | RuleViolation | ShoeError)
    if refused and not owner.sink.appended_in_item():
        return None
    if isinstance(exc, JournalError) and not isinstance(exc, JournalDataError):
        log.critical("journal write failed: the service stops; a restart recovers from the journal", error=str(exc))
        owner.sink.killed = True
        return None
    try:
        rebuild_from_journal(owner, doubt=not refused)
    except Exception as again:
        log.critical("memory could not be rebuilt from the journal: the service stops", exc_info=again)
        owner.sink.killed = True
        return None
    if isinstance(exc, JournalDataError):
        return ServiceError(
            "unrecordable",
            f"the journal cannot record this action's data ({exc}); the round is as the journal has it",
            kind=ErrorKind.BAD_INPUT,
            hint="send plain JSON text (no lone surrogates, NaN or unusual nesting)",
        )
    return None


def rebuild_from_journal(owner: Owner, *, doubt: bool) -> None:
    """Replace the round and ``known_dispense_id`` by what the journal holds, then publish the view.

    With ``doubt`` (the command failed part-way, so the shoe may have moved cards the journal never
    saw) a live round is paused and reconciled with the shoe as after a restart (PC_RESTART, remedy
    "rebuild", rules digest "Irregularities"): a stack the journal announced is read back from the
    shoe, anything else voids the round with the cause. With no live round, stacks the shoe
    dispensed beyond the journal's are read back and journaled as an alarm.
    """
    sink, desk = owner.sink, owner.desk
    journal = sink.journal
    if journal is None:
        raise JournalError("the journal is closed")
    facts = scan_journal(journal)
    sink.known_dispense_id = facts.known_dispense_id
    run: RoundRun | None = None
    if facts.open_round is not None:
        try:
            run = rebuild(facts.open_round, facts.round_entries, owner.games)
        except ServiceError as exc:
            void_unreadable(desk, facts.open_round.round_id or "", facts.open_round.data, exc)
    else:
        run = _last_closed_round(journal, owner.games)
    desk.run = run
    owner.deck.rebuild(journal, ask_shoe=False)  # the deck's state is a fold over the journal too
    log.warning("memory rebuilt from the journal", round_id=run.round_id if run else None, state=run and run.state)
    if doubt and run is not None and not run.closed and not run.terminal:
        if not run.paused:
            detail = "an action failed part-way: the round was rebuilt from the journal"
            drive(run.pause(Irregularity.PC_RESTART, detail), desk)
        if run.paused and owner.supervisor.client is not None and owner.shown.link == "up":
            owner.reconcile()
    elif doubt and (run is None or run.closed):
        journal_unrecorded_stacks(sink, owner.supervisor)
    owner.after()


def void_unreadable(desk: RoundDesk, round_id: str, opened: Mapping[str, Any], exc: ServiceError) -> None:
    """A round the journal opened but its records cannot rebuild: voided, with why (PC_RESTART)."""
    detail = f"the round could not be rebuilt from the journal: {exc.message}"
    data = {"action": "void", "cause": Irregularity.PC_RESTART.value, "detail": detail}
    desk.append("irregularity", data, round_id)
    desk.append("round-closed", {"outcome": "void", "cause": Irregularity.PC_RESTART.value}, round_id)


def _last_closed_round(journal: Journal, games: Mapping[str, type[RoundRun]]) -> RoundRun | None:
    """The last round, closed, as the journal holds it (the round the view keeps showing)."""
    opened = journal.last("round-opened")
    if opened is None or opened.round_id is None:
        return None
    try:
        run = rebuild(opened, list(journal.entries(round_id=opened.round_id)), games)
    except ServiceError:
        return None
    run.closed = True
    return run


def journal_unrecorded_stacks(sink: JournalSink, supervisor: LinkSupervisor) -> None:
    """Stacks the shoe completed beyond the journal's last (no round live): read back and journaled."""
    client = supervisor.client
    if client is None or supervisor.shown.link != "up":
        return
    try:
        last = client.status().last_dispense_id
        for did in range(max(sink.known_dispense_id + 1, last - 7), last + 1):  # at most 8
            cards, why = read_stack(client, did)
            data = {
                "action": "unjournaled-dispense",
                "cause": Irregularity.LINK_UNRECONCILED.value,
                "detail": why or "the shoe dispensed this stack but the journal had not recorded it",
                "dispense_id": did,
                "cards": None if cards is None else [read.card for read in cards],
                "known_dispense_id": did,
            }
            sink.append("irregularity", data, None)
            log.critical("the shoe dispensed a stack the journal had not recorded", dispense_id=did)
    except ShoeError as exc:
        log.warning("could not read back the shoe's stacks after a failure", error=str(exc))
