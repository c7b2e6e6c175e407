"""Orchestrating one round: what every game shares, and opening or rebuilding a round.

A :class:`RoundRun` wraps one rules-engine round (``MississippiRound`` or ``StudHand``). Everything it
does that reaches past its own memory is a **step** (:mod:`.intents`): a generator that yields one
intent at a time (journal this entry, dispense a stack, scan, release the stub, drain the shoe items
that arrived meanwhile, raise an alarm, load cards on top, the open-round gate), is sent each intent's
result and returns the reply. A step never waits, reads a clock or randomness, or touches a socket, a
file or the shoe; the round id and the shuffle's entropy come in with the command.
:func:`~.intents.drive` runs a step against a :class:`Desk`, one intent to one desk method: the owner
thread's ``RoundDesk`` in production, a simulator's or a test's desk elsewhere, the same steps in all.

The one point where the world may change the round under a step is ``Drain``: the shoe items handled
there may pause or void the round (a lost link, a discrepancy). A step yields it between two stacks
and looks at its :class:`~.intents.DrainResult` (and its own state) before it deals on; nothing else
can reach the round while the step is suspended, because only the owner thread drives steps and it is
inside this one. Every record is journaled before the step that made it returns. The games are in
:mod:`.mississippi` and :mod:`.stud`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Protocol

import msgspec

from drivers.errors import ShoeDiscrepancy, ShoeIOError, ShoeTimeout
from drivers.stacks import DispenseFailed, Stack
from protocols.fields import CardRead
from shoe.rules.errors import RuleViolation
from shoe.rules.profiles import Irregularity
from shoe.service.api.requests import OpenRound
from shoe.service.errors import ErrorKind, ServiceError
from shoe.service.journal.codec import CodecError, decode_record, encode_record
from shoe.service.rounds.intents import DrainResult, Step, alarm, append, dispense, drain

__all__ = ["Desk", "JournalEntry", "RoundRun", "card_entry", "new_round_id", "rebuild"]


class JournalEntry(Protocol):
    @property
    def seq(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def round_id(self) -> str | None: ...
    @property
    def data(self) -> Mapping[str, Any]: ...


class Desk(Protocol):
    """What a step's intents reach (:func:`~.intents.drive`): the journal and the shoe, owned by the owner thread."""

    def append(self, kind: str, data: dict[str, Any], round_id: str | None) -> int: ...
    def dispense(self, size: int) -> Stack: ...
    def scan(self) -> CardRead: ...
    def release_stub(self) -> int: ...
    def drain(self) -> DrainResult:
        """Handle the shoe items that arrived meanwhile; what they did to the round in hand."""
        ...

    def shoe_serial(self) -> str | None: ...
    def cards_remaining(self) -> int | None: ...
    def deck_for_round(self) -> tuple[int | None, dict[str, Any]]:
        """The open-round gate (``shoe.service.deck.cycle``): the shoe's count and the checked deck, or a refusal."""
        ...

    def load_on_top(self, codes: Sequence[str]) -> bool:
        """An emulator shoe: ``codes`` loaded on top of the cards it holds, as a dealer would (seven-card
        stud's reshuffled burns); ``False`` on a real shoe, whose dealer loads them by hand."""
        ...

    def raise_alarm(
        self, cause: str, detail: str, *, dispense_id: int | None = None, unjournaled: int | None = None
    ) -> None: ...


def new_round_id(table: str, utc: str, token: str) -> str:
    """A round's id from the table, the command's UTC time (``YYYYmmddTHHMMSSZ``) and a random ``token``,
    both given by the edge that received the command (a step reads no clock and no randomness)."""
    return f"{table}-{utc}-{token}"


def card_entry(
    target: str,
    seat: int | None,
    index: int,
    *,
    dispense_id: int | None,
    position: int | None,
    read: CardRead,
    face: str,
) -> dict[str, Any]:
    """The journal data of one card, in dealing order."""
    return {
        "target": target,
        "seat": seat,
        "index": index,
        "dispense_id": dispense_id,
        "position": position,
        "card": read.card,
        "face": face,
        "status": read.status.name.lower(),
    }


class RoundRun(ABC):
    """One live round. Subclasses implement the game's actions; all run on the owner thread."""

    game: ClassVar[str]

    def __init__(self, round_id: str, opened: Mapping[str, Any]) -> None:
        self.round_id = round_id
        self.opened = dict(opened)
        self.closed = False
        self.cards_dealt = 0  # running card index within the round (dealing order)
        self.announced: dict[str, Any] | None = None  # a stack announced and not yet recorded
        self.scan_announced: int | None = None  # the community card whose SCAN is journaled as about to happen
        self.scan_in_doubt: int | None = None
        """A community card whose SCAN was journaled and whose card was not, found by a rebuild from the journal:
        the reader may have taken it from the stub already, so the shoe is not asked again (a second SCAN
        would read the next card); the dealer enters the card on the table."""
        # every card entry of this round that came from a dispense: (dispense_id, position) -> its data
        self.shoe_cards: dict[tuple[int, int], Mapping[str, Any]] = {}
        self._counter_base: int | None = None  # the shoe's card counter less this round's cards (_check_moved)

    # -- what each game provides ---------------------------------------------------------------

    @property
    @abstractmethod
    def state(self) -> str: ...

    @property
    @abstractmethod
    def terminal(self) -> bool: ...

    @property
    @abstractmethod
    def paused(self) -> bool: ...

    @abstractmethod
    def view(self) -> dict[str, Any]: ...

    @abstractmethod
    def act(self, action: str, request: msgspec.Struct, entropy: bytes) -> Step[dict[str, Any]]:
        """The step of one of the registry's round actions for this game, with its typed request.

        ``entropy``: random bytes the edge drew for this command (a step reads no randomness of its own).
        """

    @abstractmethod
    def pause(self, cause: Irregularity, detail: str) -> Step[None]: ...

    @abstractmethod
    def resume(self) -> Step[None]: ...

    @abstractmethod
    def void(self, cause: Irregularity, detail: str, **extra: Any) -> Step[None]: ...

    @abstractmethod
    def absorb(self, stack: Stack) -> Step[dict[str, Any]]:
        """Record a stack the shoe dispensed for the announced target (also one found by reconciliation)."""

    @abstractmethod
    def closing(self) -> dict[str, Any]:
        """The data of the ``round-closed`` entry (no card identities)."""

    @classmethod
    @abstractmethod
    def open(cls, round_id: str, request: OpenRound) -> Step[tuple[RoundRun, dict[str, Any]]]:
        """A new round from the dealer's ``open-round`` request, and its ``round-opened`` data."""

    @classmethod
    @abstractmethod
    def replayed(cls, round_id: str, opened: Mapping[str, Any], records: Sequence[Any]) -> RoundRun: ...

    def dispense_and_absorb(self, cards: int, what: str) -> Step[tuple[dict[str, Any], bool]]:
        """Dispense one announced stack and record it; ``(record, stop)``: stop after a fault or pause.

        A fault ends the deal with the cards read before it (the fault is journaled first); a lost link
        pauses the round with the stack in doubt and answers ``shoe-unavailable`` (recovery reconciles it).
        The shoe items handled after the stack (``Drain``) may have paused or voided the round: the deal
        stops there, and a failed stack found on a round paused meanwhile is left to reconciliation
        (its cards are read back from the shoe, or the round is void with an alarm), never dealt into
        a paused round.
        """
        try:
            stack = yield from dispense(cards)
        except DispenseFailed as exc:
            drained = yield from drain()
            if self._changed_under(drained):
                yield from self._journal_stray(Stack(exc.dispense_id, exc.cards))
                return {"dispense_id": exc.dispense_id, "cards": len(exc.cards), "paused": self.paused}, True
            record = yield from self.absorb(Stack(exc.dispense_id, exc.cards))
            return record, True
        except ShoeDiscrepancy as exc:  # journaled as an alarm by the desk; never a guess at the cards
            self.announced = None
            yield from drain()
            detail = f"the shoe contradicted itself about {what}: {exc.detail}"
            yield from self.void(Irregularity.SHOE_DISCREPANCY, detail, alarm=exc.cause, dispense_id=exc.dispense_id,
                                 known_dispense_id=exc.dispense_id or 0)  # fmt: skip
            return {"alarm": exc.cause, "dispense_id": exc.dispense_id, "voided": True}, True
        except (ShoeIOError, ShoeTimeout) as exc:
            yield from self.pause(Irregularity.LINK_LOST, f"{what} in doubt: {exc}")
            raise ServiceError(
                "shoe-unavailable",
                f"the shoe link failed during a dispense: {exc}",
                kind=ErrorKind.UNAVAILABLE,
                hint=exc.hint,
            ) from exc
        journaled = len(self.shoe_cards)
        record = yield from self.absorb(stack)
        drained = yield from drain()
        yield from self._check_moved(stack, journaled)
        return record, drained.stop or self.paused or self.terminal

    def _changed_under(self, drained: DrainResult) -> bool:
        """The items a ``Drain`` handled paused or ended this round (its own state says so too)."""
        return drained.stop or self.paused or self.terminal

    def _journal_stray(self, stack: Stack) -> Step[None]:
        """The cards of a failed stack the round can no longer take (paused or void meanwhile): journaled as
        what the shoe moved, face down, without a rules record; reconciliation decides (the shoe reports the
        stack failed: the round is void, its cards accounted for)."""
        target, seat = (self.announced or {}).get("target", "seat"), (self.announced or {}).get("seat")
        for position, read in enumerate(stack.cards, 1):
            if self.journaled(stack.dispense_id, position):
                continue
            self.cards_dealt += 1
            data = card_entry(str(target), seat, self.cards_dealt, dispense_id=stack.dispense_id, position=position,
                              read=read, face="down")  # fmt: skip
            yield from self.journal_card(data)

    def _check_moved(self, stack: Stack, journaled_before: int) -> Step[None]:
        """Cards the shoe's counter moved in this round against cards this round journaled.

        The driver checked the stack against the counters; this checks what the round made of it. The base
        is taken at the first dispense this process makes for the round (a rebuilt round keeps its cards).
        """
        if stack.counters is None or self.terminal:
            return
        before, after = stack.counters
        if self._counter_base is None:
            self._counter_base = before - journaled_before
        moved, journaled = after - self._counter_base, len(self.shoe_cards)
        if moved != journaled:
            detail = f"the shoe's counter moved {moved} card(s) in this round, the journal holds {journaled}"
            yield from alarm("cards-unjournaled", detail, dispense_id=stack.dispense_id, unjournaled=moved - journaled)
            yield from self.void(Irregularity.SHOE_DISCREPANCY, detail, alarm="cards-unjournaled",
                                 known_dispense_id=stack.dispense_id)  # fmt: skip

    def alarm_in_doubt(self) -> Step[None]:
        """Before a void is journaled: an alarm for each thing the round leaves in doubt, named, in this round's
        journal (before its ``round-closed``, so before any next round opens).

        - A stack announced (``stack-for-seat``) whose record never came: the shoe may have dispensed it
          (a failure between the dispense and its entries, and no reconciliation since: the link failed
          again, or the round is voided while paused). Its cards are in no ``card`` entry, so the void
          alone would leave cards the shoe moved unaccounted for.
        - A community card whose SCAN is in doubt (journaled as about to happen, its card never) and that
          nobody entered: the reader may or may not have taken a card from the stub. The rules digest,
          "Irregularities": a card the shoe cannot read may be identified by the dealer, "otherwise
          misdeal"; the stub is then in doubt by one card.
        """
        stack, self.announced = self.announced, None
        if stack is not None:
            detail = (
                f"stack {stack.get('number')} for {stack.get('target')} {stack.get('seat')} ({stack.get('size')} "
                f"cards) of round {self.round_id} was announced and its record never journaled: the shoe may have "
                "dispensed it, cards the journal may not name; compare the shoe's dispense count with the journal "
                "before the next round"
            )
            yield from alarm("stack-in-doubt", detail)
        index, self.scan_in_doubt = self.scan_in_doubt, None
        if index is not None:
            detail = (
                f"community card {index} of round {self.round_id}: its SCAN is in doubt and no card was entered; "
                "the round's stub may be one card short: check the stub and the reader before the next round"
            )
            yield from alarm("scan-in-doubt", detail)

    def shoe_count_at_open(self) -> int | None:
        """The cards the shoe held when the round opened, as journaled then; None where that count cannot
        tell what the round dispensed since (unknown at the opening, cards loaded on top since). The default:
        None."""
        return None

    def carry_on(self, *, stub_released: bool) -> Step[str | None]:
        """After a resume: finish a command that a restart cut short between two journal entries.

        Only steps that need neither the shoe nor a dealer's decision are taken; ``stub_released``
        says the shoe reports its stub out. Returns why the round cannot go on (the caller voids it),
        or ``None``. The default has nothing to finish.
        """
        yield from ()  # a step, like every game's: nothing to ask
        return None

    def accepts_load(self) -> bool:
        """Whether cards loaded into the shoe now belong to this round (DECK_LOADED while it deals: SPEC §11).

        ``False`` (the default): a load on top of the round's deck mixes two decks, and the round is void.
        """
        return False

    def closed_answer(self, action: str) -> dict[str, Any] | None:
        """What ``action`` answers once this round is closed (while it is still the round shown).

        ``None``: nothing; the action is refused ``no-round``.
        """
        return None

    def journaled_reads(self, dispense_id: int) -> dict[int, str | None]:
        """The cards of ``dispense_id`` this round's journal already holds: position -> card."""
        return {pos: data.get("card") for (did, pos), data in self.shoe_cards.items() if did == dispense_id}

    def note(self, kind: str, data: Mapping[str, Any]) -> None:
        """Rebuild service-side state from one journal entry of this round (after the records replay)."""
        if kind == "card":
            self.cards_dealt = max(self.cards_dealt, int(data.get("index") or 0))
            self._remember(data)
        if kind == "decision" and data.get("action") == "scan-for-community":
            self.scan_announced = self.scan_in_doubt = int(data["community_index"])
        elif kind == "card" and data.get("community_index") is not None:
            self.scan_announced = self.scan_in_doubt = None
        if kind == "decision" and data.get("action") == "stack-for-seat":
            self.announced = dict(data)
        elif "dispense_id" in data and "record" in data:
            self.announced = None

    # -- shared helpers --------------------------------------------------------------------------

    def meta(self) -> dict[str, Any]:
        return {"round_id": self.round_id, "game": self.game, "jurisdiction": self.opened.get("jurisdiction")}

    def _remember(self, data: Mapping[str, Any]) -> None:
        did, pos = data.get("dispense_id"), data.get("position")
        if isinstance(did, int) and isinstance(pos, int):
            self.shoe_cards[(did, pos)] = dict(data)

    def journaled(self, dispense_id: int, position: int) -> bool:
        """Whether the card at ``position`` of ``dispense_id`` is in the journal already.

        A restart can cut a command short after a stack's ``card`` entries and before its record;
        reconciliation then hands the same stack over again, and its cards must not be journaled twice.
        """
        return (dispense_id, position) in self.shoe_cards

    def journal_card(self, data: dict[str, Any]) -> Step[int]:
        """Journal one ``card`` entry (see :func:`card_entry`) and remember it."""
        seq = yield from append("card", data, self.round_id)
        self._remember(data)
        return seq

    def record(self, kind: str, record: Any, **extra: Any) -> Step[int]:
        """Journal a rules record (with ``extra`` fields) for this round."""
        return (yield from append(kind, {**extra, "record": encode_record(record)}, self.round_id))

    def announce(self, target: str, seat: int | None, number: int, size: int, **extra: Any) -> Step[None]:
        """The ``stack-for-seat`` entry: journaled (and shown) before the shoe is asked for the stack."""
        data = {"action": "stack-for-seat", "target": target, "seat": seat, "number": number, "size": size, **extra}
        if self.announced == data:
            return  # a retry after a refused dispense: that stack is announced already and no card moved
        yield from append("decision", data, self.round_id)
        self.announced = data


def rebuild(opened: JournalEntry, entries: Sequence[JournalEntry], games: Mapping[str, type[RoundRun]]) -> RoundRun:
    """A round rebuilt from its journal entries; :class:`ServiceError` ``replay-failed`` if it cannot be."""
    data = opened.data
    game = games.get(str(data.get("game")))
    if game is None or opened.round_id is None:
        raise ServiceError("replay-failed", f"round of unknown game {data.get('game')!r}", kind=ErrorKind.INTERNAL)
    raw: list[Any] = list(data.get("records", []))
    for entry in entries:
        if entry.seq == opened.seq:
            continue
        if "record" in entry.data:
            raw.append(entry.data["record"])
        raw.extend(entry.data.get("records", []))
    try:
        run = game.replayed(opened.round_id, data, [decode_record(r) for r in raw])
    except (CodecError, RuleViolation, ValueError, TypeError, KeyError) as exc:
        raise ServiceError("replay-failed", f"round {opened.round_id}: {exc}", kind=ErrorKind.INTERNAL) from exc
    for entry in entries:
        run.note(entry.kind, entry.data)
    return run
