"""A Mississippi stud round driven through the shoe (NY 5324.38(d), PA 655a.10-11, NJ 13:69F-35.9).

The service commands exactly the stacks the round needs: one two-card stack per wagering seat, in
seat order, each announced (``stack-for-seat``) and journaled before the shoe is asked for it; never
before "no more bets" (nor, in PA with the Progressive offered, before the lock-out and chip count).
The stub count comes from the shoe; community cards are identified at their reveal, by the shoe's
reader (``scan``) or by the dealer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec

from drivers.errors import LinkDown, ShoeIOError, ShoeTimeout
from drivers.stacks import Stack
from protocols.fields import CardRead
from shoe.cards import Card, CardError
from shoe.rules.errors import RuleViolation
from shoe.rules.mississippi import (
    MisdealRecord,
    MississippiRound,
    RoundState,
    StackRecord,
    new_round,
    replay,
)
from shoe.rules.mississippi.records import SeatSettlement
from shoe.rules.mississippi.states import TERMINAL
from shoe.rules.profiles import Irregularity, MississippiProfile, get_profile
from shoe.service.api import requests as rq
from shoe.service.errors import ErrorKind, ServiceError
from shoe.service.journal.codec import encode_record
from shoe.service.journal.secrecy import mississippi_view, public_record
from shoe.service.rounds.intents import Step, append, deck_for_round, release_stub, scan, shoe_serial
from shoe.service.rounds.params import bad_request, journaled_table, mississippi_seats, table_config, table_params
from shoe.service.rounds.run import RoundRun, card_entry

__all__ = ["MississippiRun"]

_DEALABLE = frozenset({RoundState.NO_MORE_BETS, RoundState.CHIPS_VERIFIED, RoundState.DEALING_STACKS})
_BEFORE_STUB = _DEALABLE | {RoundState.OPEN, RoundState.PROGRESSIVE_LOCKED}


class MississippiRun(RoundRun):
    game = "mississippi-stud"

    def __init__(self, round_id: str, opened: Mapping[str, Any], r: MississippiRound) -> None:
        super().__init__(round_id, opened)
        self.r = r
        self.hold: Callable[[SeatSettlement], dict[str, Any] | None] | None = None
        """Set by the approvals desk for an employee's settle: a reply when the next seat's payout must wait."""
        self._view: tuple[tuple[int, RoundState, bool], dict[str, Any]] | None = None  # (what it showed, the view)

    @classmethod
    def open(cls, round_id: str, request: rq.OpenRound) -> Step[tuple[RoundRun, dict[str, Any]]]:
        assert isinstance(request, rq.OpenMississippi)
        table = table_params(request.table)
        config = table_config(table)
        seats = mississippi_seats(request.seats)
        remaining, deck = yield from deck_for_round()  # a checked deck the shoe still holds whole, on a live link
        r = new_round(request.jurisdiction, config)
        records = [r.place_wagers(seat, w["ante"], w["side"]) for seat, w in sorted(seats.items())]
        opened = {
            "game": cls.game,
            "jurisdiction": r.profile.jurisdiction,
            "table": table.given(),
            "seats": {str(s): w for s, w in sorted(seats.items())},
            "shoe": {"serial": (yield from shoe_serial())},
            "cards_remaining": remaining,
            "records": [encode_record(x) for x in records],
            "deck": deck,
        }
        return cls(round_id, opened, r), opened

    @classmethod
    def replayed(cls, round_id: str, opened: Mapping[str, Any], records: Sequence[Any]) -> MississippiRun:
        profile = get_profile("mississippi-stud", str(opened["jurisdiction"]))
        assert isinstance(profile, MississippiProfile)
        return cls(round_id, opened, replay(profile, table_config(journaled_table(opened.get("table"))), records))

    # -- state -----------------------------------------------------------------------------------

    @property
    def state(self) -> str:
        return self.r.state.value

    @property
    def terminal(self) -> bool:
        return self.r.state in TERMINAL

    @property
    def paused(self) -> bool:
        return self.r.state is RoundState.PAUSED

    def view(self) -> dict[str, Any]:
        """The round as anyone may see it; computed again only when the round changed (it was
        rebuilt after every owner item). Every change of a rules round is a record (``RoundCore.commit``)."""
        key = (self.r.record_count, self.r.state, self.closed)
        if self._view is None or self._view[0] != key:
            self._view = (key, {**mississippi_view(self.r, self.meta()), "closed": self.closed})
        return self._view[1]

    def closing(self) -> dict[str, Any]:
        result = self.r.result()
        misdeal = result.misdeal
        return {
            "outcome": "void" if misdeal is not None else "complete",
            "cause": None if misdeal is None else misdeal.cause.value,
            "returned": None if misdeal is None else misdeal.total_returned,
            "seats": {str(s.seat): {"outcome": s.outcome, "net": s.net} for s in result.seats},
        }

    # -- actions ---------------------------------------------------------------------------------

    def act(self, action: str, request: msgspec.Struct, entropy: bytes) -> Step[dict[str, Any]]:
        """The step of ``action`` (one of the registry's, for this game) with its typed ``request``."""
        handlers: dict[str, Callable[[Any], Step[dict[str, Any]]]] = {
            "no-more-bets": lambda p: self._simple("no-more-bets", self.r.no_more_bets),
            "lock-progressive": lambda p: self._simple("lock-progressive", self.r.lock_progressive),
            "chip-count": lambda p: self._simple("chip-count", lambda: self.r.count_progressive_chips(p.count)),
            "deal": self._deal,
            "release-stub": self._release_stub,
            "decide": self._decide,
            "reveal": self._reveal,
            "settle": self._settle,
            "forfeit": self._forfeit,
            "void": self._void_action,
            "progressive-inputs": self._table_system,
        }
        handler = handlers.get(action)
        if handler is None:
            raise ServiceError("wrong-game", f"{action!r} is not an action of {self.game}")
        return (yield from handler(request))

    def _simple(self, action: str, do: Callable[[], Any], **extra: Any) -> Step[dict[str, Any]]:
        record = do()
        encoded = encode_record(record)  # once, for the journal and the answer
        if isinstance(record, MisdealRecord):
            yield from self._voided(record, encoded=encoded)
        else:
            yield from append("decision", {"action": action, **extra, "record": encoded}, self.round_id)
        return {"record": public_record(encoded)}

    def _decide(self, request: rq.Decide) -> Step[dict[str, Any]]:
        seat, multiple = request.seat, request.multiple
        return (yield from self._simple("decide", lambda: self.r.decide(seat, multiple), seat=seat, multiple=multiple))

    def _forfeit(self, request: rq.Forfeit) -> Step[dict[str, Any]]:
        seat = request.seat
        return (yield from self._simple("forfeit", lambda: self.r.forfeit_information_sharing(seat), seat=seat))

    def _table_system(self, request: rq.ProgressiveInputs) -> Step[dict[str, Any]]:
        meters, magic, lucky = dict(request.meters), request.magic_card, request.lucky_seat
        return (yield from self._simple("progressive-inputs", lambda: self.r.record_table_system(meters, magic, lucky)))

    def _void_action(self, request: rq.Void) -> Step[dict[str, Any]]:
        cause = request.cause or "other"
        try:
            irregularity = Irregularity(cause)
        except ValueError:
            irregularity = Irregularity.OTHER
        self.r.verify_declare_misdeal(irregularity, cause)
        yield from self.void(irregularity, cause)
        return {"voided": True}

    # -- the deal --------------------------------------------------------------------------------

    def _check_stack_due(self) -> None:
        r, rules = self.r, self.r.rules
        if r.state is RoundState.PAUSED:
            raise ServiceError("paused", "the round is paused: the shoe is being reconciled", rule=rules.irregularity)
        if r.state is RoundState.OPEN:
            raise ServiceError("out-of-order", 'no stack before "no more bets"', rule=rules.stacks)
        if r.state in (RoundState.NO_MORE_BETS, RoundState.PROGRESSIVE_LOCKED) and r.table.progressive_lockout:
            raise ServiceError(
                "out-of-order",
                "lock the progressive and count its chips before the first stack",
                rule=rules.progressive_lock,
            )
        if r.state not in _DEALABLE or r.next_stack_seat is None:
            raise ServiceError("out-of-order", f"no stack is due in state {r.state.value}", rule=rules.stacks)

    def _deal(self, request: rq.Empty) -> Step[dict[str, Any]]:
        self._check_stack_due()
        dealt: list[dict[str, Any]] = []
        while self.r.state in _DEALABLE and self.r.next_stack_seat is not None:
            seat = self.r.next_stack_seat
            number = sum(isinstance(x, StackRecord) for x in self.r.records) + 1
            yield from self.announce("seat", seat, number, self.r.profile.stack_size)
            record, stop = yield from self.dispense_and_absorb(self.r.profile.stack_size, f"stack for seat {seat}")
            dealt.append(record)
            if stop:
                break
        return {"stacks": dealt, "paused": self.paused}

    def absorb(self, stack: Stack) -> Step[dict[str, Any]]:
        seat = (self.announced or {}).get("seat") or self.r.next_stack_seat
        number = (self.announced or {}).get("number")
        for position, read in enumerate(stack.cards, 1):
            if self.journaled(stack.dispense_id, position):
                continue  # journaled before a restart cut the command short (recovery hands the stack over again)
            self.cards_dealt += 1
            data = card_entry(
                "seat", seat, self.cards_dealt, dispense_id=stack.dispense_id, position=position, read=read, face="down"
            )
            yield from self.journal_card(data)
        self.announced = None
        record = self.r.deal_stack(int(seat or 0), [read.card for read in stack.cards])
        if isinstance(record, MisdealRecord):
            yield from self._voided(record, known_dispense_id=stack.dispense_id)
        else:
            yield from self.record(
                "decision",
                record,
                action="stack-dealt",
                seat=seat,
                number=number,
                dispense_id=stack.dispense_id,
                known_dispense_id=stack.dispense_id,
            )
        return {"seat": seat, "number": number, "dispense_id": stack.dispense_id, "cards": len(stack.cards)}

    def _release_stub(self, request: rq.Empty) -> Step[dict[str, Any]]:
        self.r.verify_release_stub(0)
        count = yield from release_stub()
        out = yield from self._simple("release-stub", lambda: self.r.release_stub(count), count=count)
        yield from self._deal_community()
        return {**out, "count": count}

    def _deal_community(self) -> Step[None]:
        """The stub is counted: the three community cards go down by hand, face down, recorded at once."""
        if self.r.state is RoundState.STUB_COUNTED:
            yield from self._simple("community-dealt", self.r.deal_community)

    def shoe_count_at_open(self) -> int | None:
        count = self.opened.get("cards_remaining")
        return count if type(count) is int else None

    def carry_on(self, *, stub_released: bool) -> Step[str | None]:
        """Finish a ``release-stub`` that a restart cut short.

        - The stub count is journaled but not the community cards (``stub-counted``): deal them.
        - The shoe released the stub but the journal never recorded it: with every stack dealt, the
          count the shoe presented is the count it held when the round opened (``cards_remaining``,
          journaled then) less the cards it dispensed since, every one of which the journal holds
          (the dispense ids are reconciled before this). A shoe that could not count at the opening
          leaves no count to check: the round cannot go on. Nor can it with stacks still to deal.
        """
        if stub_released and self.r.state in _BEFORE_STUB:
            if self.r.state is not RoundState.DEALING_STACKS or self.r.next_stack_seat is not None:
                return "the shoe's stub is out before every stack was dealt"
            at_open, dispensed = self.opened.get("cards_remaining"), len(self.shoe_cards)
            if type(at_open) is not int:
                return (
                    "the shoe released the stub before the journal recorded its count, and the shoe could not "
                    "count the deck when the round opened: the stub count cannot be checked"
                )
            count = at_open - dispensed
            data = {"event": "stub-recovered", "count": count, "cards_at_open": at_open, "dispensed": dispensed}
            yield from append("link", data, self.round_id)
            release = lambda: self.r.release_stub(count)  # noqa: E731
            yield from self._simple("release-stub", release, count=count, source="reconciled")
        yield from self._deal_community()
        return None

    # -- reveals and settlement --------------------------------------------------------------------

    def _reveal(self, request: rq.Reveal) -> Step[dict[str, Any]]:
        index, code = request.index, request.card
        if index > self.r.profile.community_cards:
            raise bad_request(f"$.index: {index} is past the {self.r.profile.community_cards} community cards")
        self.r.verify_reveal(index - 1)
        if code is None:
            if self.scan_in_doubt == index:
                raise ServiceError(
                    "scan-in-doubt",
                    f"community card {index} may have been read before the service stopped: the shoe is not "
                    "asked again (it would read the next card)",
                    kind=ErrorKind.CONFLICT,
                    hint="enter the card the reader passed to the table: reveal with its code; if the reader passed "
                    "no card, nobody can name it: void the round (a misdeal, cause unreadable-card)",
                )
            if self.scan_announced != index:  # journal before the shoe acts: a SCAN takes a card from the stub
                yield from append("decision", {"action": "scan-for-community", "community_index": index}, self.round_id)
                self.scan_announced = index
            try:
                read, source = (yield from scan()), "shoe"
            except LinkDown:
                raise  # nothing was sent: the card is still in the stub
            except ShoeIOError:
                self.scan_in_doubt = index  # the link failed with the SCAN in flight: it may have read the card
                raise
            except ServiceError as exc:
                if isinstance(exc.__cause__, ShoeTimeout):  # no answer at all: whether it read is unknown
                    self.scan_in_doubt = index
                raise
            if read.card is None:
                raise ServiceError(
                    "unreadable-card",
                    "the reader could not identify the card",
                    hint="pass the card across the reader again, or enter it",
                )
        else:
            try:
                read, source = CardRead(Card.parse(code).code), "dealer"
            except CardError:
                raise bad_request(f"{code!r} is not a card code (rank 23456789TJQKA, suit cdhs)") from None
        self.cards_dealt += 1
        entry = card_entry("community", None, self.cards_dealt, dispense_id=None, position=None, read=read, face="up")
        data = {**entry, "community_index": index}
        yield from append("card", {**data, "source": source}, self.round_id)
        self.scan_announced = self.scan_in_doubt = None
        record = self.r.reveal(index - 1, read.card)
        if isinstance(record, MisdealRecord):
            encoded = encode_record(record)
            yield from self._voided(record, encoded=encoded)
            return {"record": public_record(encoded)}
        yield from self.record("reveal", record, index=index, card=read.card, source=source)
        return {"index": index, "card": read.card, "source": source}

    def _settle(self, request: rq.Empty) -> Step[dict[str, Any]]:
        self.r.verify_settle_next()
        lines: list[dict[str, Any] | None] = []
        while self.r.state is RoundState.SETTLEMENT:
            held = self.hold(self.r.preview_next()) if self.hold is not None else None
            if held is not None:  # a payout awaits a floorperson's approval (shoe.service.people.approvals)
                return {"lines": lines, **held}
            record = self.r.settle_next()
            encoded = encode_record(record)  # once, for the journal and the answer
            yield from append("settlement", {"seat": record.seat, "record": encoded}, self.round_id)
            lines.append(public_record(encoded))
        return {"lines": lines}

    # -- interruptions ---------------------------------------------------------------------------

    def _voided(self, record: MisdealRecord, encoded: dict[str, Any] | None = None, **extra: Any) -> Step[None]:
        data = {"action": "void", "cause": record.cause.value, "detail": record.detail, **extra}
        yield from append("irregularity", {**data, "record": encoded or encode_record(record)}, self.round_id)

    def pause(self, cause: Irregularity, detail: str) -> Step[None]:
        if self.r.can_pause():
            record = self.r.pause(f"{cause.value}: {detail}")
            yield from self.record("irregularity", record, action="paused", cause=cause.value, detail=detail)

    def resume(self) -> Step[None]:
        if self.r.can_resume():
            yield from self.record("irregularity", self.r.resume(), action="resumed")

    def void(self, cause: Irregularity, detail: str, **extra: Any) -> Step[None]:
        try:
            record = self.r.declare_misdeal(cause, detail)
        except RuleViolation:  # settlement has begun: nothing left to deal, so nothing to void
            yield from self.resume()
            return
        yield from self.alarm_in_doubt()
        yield from self._voided(record, **extra)
