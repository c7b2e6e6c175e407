"""Reconciling a paused round with the shoe, as a pure step: the shoe's facts in, the decision out.

The shoe is asked first, by the edge (:func:`shoe.service.rounds.recovery.reconcile`): its settled
``STATUS``, its serial, the cards of the one stack it dispensed after the journal's last (when the
round had announced it), and how many cards each stack it moved beyond the journal holds. Then
:func:`reconcile_step` decides from those facts and the round alone (rules digest, "Irregularities";
docs/service.md, "Recovery"):

- the same dispense id: nothing is unexplained, the round resumes;
- the shoe is one ahead and the journal had announced that stack: its cards (those the journal does not
  hold yet) are journaled and applied, and the round resumes;
- anything else (several unknown stacks, a stack the shoe cannot report or that failed, cards that
  differ from those journaled, the shoe behind the journal, another shoe's serial): an alarm per stack
  the journal cannot hold, and the round is void.

Once resumed, the round finishes a command the restart cut short where that needs neither the shoe
nor the dealer (``RoundRun.carry_on``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from drivers.stacks import Stack
from protocols.fields import CardRead
from shoe.rules.errors import RuleViolation
from shoe.rules.profiles import Irregularity
from shoe.service.rounds.intents import Step, alarm, append
from shoe.service.rounds.run import RoundRun

__all__ = ["ShoeFacts", "Verdict", "reconcile_step", "wants_stack"]


@dataclass(frozen=True)
class ShoeFacts:
    """What the shoe said, read before anything is decided."""

    serial: str | None
    last_dispense_id: int
    stub_released: bool
    stack: tuple[CardRead, ...] | None = None
    """The cards of the one stack after the journal's last (asked only when :func:`wants_stack`)."""
    stack_problem: str = ""
    """Why the shoe could not report that stack (with ``stack`` None)."""
    moved: dict[int, int | None] = field(default_factory=dict)
    """Each stack the shoe moved after the journal's last: the cards its stored result holds (None: unknown)."""
    cards_remaining: int | None = None
    """The cards the shoe holds now (its settled ``STATUS``; None: not reported)."""


@dataclass(frozen=True)
class Verdict:
    decision: str
    known_dispense_id: int | None
    """The journal's last known dispense once decided (None: unchanged)."""


def wants_stack(run: RoundRun, known: int, last: int, serial: str | None) -> bool:
    """Whether the decision needs the cards of stack ``last`` (the one stack after the journal's ``known``)."""
    opened_serial = (run.opened.get("shoe") or {}).get("serial")
    same_shoe = not (opened_serial and serial and serial != opened_serial)
    return same_shoe and last == known + 1 and run.announced is not None


def reconcile_step(run: RoundRun, facts: ShoeFacts, known: int) -> Step[Verdict]:
    """Resume or void the paused ``run`` from the shoe's ``facts`` and the journal's ``known`` dispense id."""
    last = facts.last_dispense_id
    opened_serial = (run.opened.get("shoe") or {}).get("serial")
    problem: str | None = None
    recovered: tuple[CardRead, ...] | None = None
    if opened_serial and facts.serial and facts.serial != opened_serial:
        problem = f"the shoe now connected ({facts.serial}) is not the one the round opened with ({opened_serial})"
    elif last < known:
        problem = f"the shoe reports dispense {last} as its last, the journal recorded {known}"
    elif last > known:
        problem, recovered = _recoverable(run, facts, known)
    if problem is None:
        yield from run.resume()
        if recovered is not None:
            already = len(run.journaled_reads(last))
            data = {"event": "stack-recovered", "dispense_id": last, "cards": len(recovered), "journaled": already}
            yield from append("link", data, run.round_id)
            try:
                yield from run.absorb(Stack(last, recovered))
            except RuleViolation as exc:
                problem = f"stack {last} read back from the shoe does not fit the round: {exc.message}"
    unnamed = 0 if problem is not None or run.terminal else _unnamed_cards(run, facts)
    if unnamed:
        problem = (
            f"the shoe moved {unnamed} card(s) in this round that the journal does not name (its count now against "
            "the count at the opening less the round's dispensed cards)"
        )
        yield from alarm("cards-unjournaled", problem, dispense_id=last or None, unjournaled=unnamed)
        run.announced = None
        yield from run.void(Irregularity.SHOE_DISCREPANCY, problem, alarm="cards-unjournaled",
                            known_dispense_id=max(known, last))  # fmt: skip
        return Verdict("void", max(known, last))
    if problem is None and not run.terminal:
        problem = yield from run.carry_on(stub_released=facts.stub_released)
    if problem is None:
        return Verdict(f"resumed to {run.state}", None)
    run.announced = None  # the shoe's facts decide the announced stack: each one it moved is alarmed below
    for did in range(max(known + 1, last - 7), last + 1):  # stacks the shoe moved that the journal cannot hold
        moved = facts.moved.get(did)
        unjournaled = None if moved is None else max(0, moved - len(run.journaled_reads(did)))
        yield from alarm("stack-unreconciled", problem, dispense_id=did, unjournaled=unjournaled)
    yield from run.void(Irregularity.LINK_UNRECONCILED, problem, known_dispense_id=max(known, last))
    return Verdict("void", max(known, last))


def _unnamed_cards(run: RoundRun, facts: ShoeFacts) -> int:
    """Cards the shoe moved in this round beyond those the round's journal names from its dispenses.

    The shoe's count now against its count at the opening (journaled then) less every dispensed card the
    journal holds for the round (a stack read back just now included). A card the mechanism moved without
    reporting it (the driver's cross-check raises it as an alarm, and a power cut can lose that alarm with
    its commit) shows here, before the round resumes. Not asked once the stub is out (the stub count is the
    check then), or when the round cannot say what the shoe held at its opening.
    """
    at_open = run.shoe_count_at_open()
    if at_open is None or facts.cards_remaining is None or facts.stub_released:
        return 0
    return max(0, at_open - len(run.shoe_cards) - facts.cards_remaining)


def _recoverable(run: RoundRun, facts: ShoeFacts, known: int) -> tuple[str | None, tuple[CardRead, ...] | None]:
    """The one stack the shoe dispensed after the journal's last: its cards, or why it cannot be used."""
    last = facts.last_dispense_id
    if last - known > 1:
        return f"the shoe dispensed {last - known} stacks the journal did not record", None
    if run.announced is None:
        return f"the shoe dispensed stack {last}, which the journal had not announced", None
    cards = facts.stack
    if cards is None:
        return facts.stack_problem, None
    journaled = run.journaled_reads(last)
    if any(pos > len(cards) or cards[pos - 1].card != card for pos, card in journaled.items()):
        return f"stack {last} as the shoe reports it differs from the cards the journal holds for it", None
    return None, cards
