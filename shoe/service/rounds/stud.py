"""A seven-card stud hand driven through the shoe (NJ casino nights, N.J.A.C. 13:47-20.35).

With a shoe, stud cards come one at a time (stacks of one), each recognised: ``deal`` dispenses the
cards of the current street, burn included, each announced before its dispense; the hand then knows
the bring-in and who acts first. The stud machine has no pause or misdeal of its own: the service
keeps both (a paused hand refuses actions; a void hand returns every chip put in).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from drivers.stacks import Stack
from shoe.cards import Card
from shoe.rules.profiles import Irregularity, get_profile
from shoe.rules.stud import BurnsReshuffled, PotAwarded, StudHand, StudRuleViolation, StudTableConfig, Target
from shoe.rules.stud.errors import cite
from shoe.rules.stud.states import PHASE_RULE
from shoe.service.api import requests as rq
from shoe.service.errors import ServiceError
from shoe.service.journal.codec import encode_record
from shoe.service.journal.secrecy import public_record, stud_view
from shoe.service.rounds.intents import Step, append, deck_for_round, load_on_top, shoe_serial
from shoe.service.rounds.params import stud_seats
from shoe.service.rounds.run import RoundRun, card_entry

__all__ = ["StudRun"]

IRREGULARITY_RULE = "rules digest: irregularities"


class StudRun(RoundRun):
    game = "seven-card-stud"

    def __init__(self, round_id: str, opened: Mapping[str, Any], hand: StudHand) -> None:
        super().__init__(round_id, opened)
        self.hand = hand
        self._paused: str | None = None
        self._void: dict[str, Any] | None = None

    @classmethod
    def open(cls, round_id: str, request: rq.OpenRound) -> Step[tuple[RoundRun, dict[str, Any]]]:
        assert isinstance(request, rq.OpenStud)
        table = request.table.given()
        seats = stud_seats(request.seats)
        jurisdiction = get_profile(cls.game, request.jurisdiction or "NJ").jurisdiction
        remaining, deck = yield from deck_for_round()  # one checked deck a hand, as Mississippi
        stub = 52 if remaining is None else remaining
        hand = StudHand(StudTableConfig.from_mapping(dict(table)), seats, stub_size=stub)
        opened = {
            "game": cls.game,
            "jurisdiction": jurisdiction,
            "table": table,
            "seats": sorted(seats),
            "stub_size": stub,
            "cards_remaining": remaining,
            "shoe": {"serial": (yield from shoe_serial())},
            "records": [encode_record(r) for r in hand.records],
            "deck": deck,
        }
        return cls(round_id, opened, hand), opened

    @classmethod
    def replayed(cls, round_id: str, opened: Mapping[str, Any], records: Sequence[Any]) -> StudRun:
        config = StudTableConfig.from_mapping(dict(opened["table"]))
        hand = StudHand.replay(config, opened["seats"], records, stub_size=int(opened.get("stub_size", 52)))
        return cls(round_id, opened, hand)

    def note(self, kind: str, data: Mapping[str, Any]) -> None:
        super().note(kind, data)
        if kind == "irregularity":
            action = data.get("action")
            if action == "paused":
                self._paused = str(data.get("detail"))
            elif action == "resumed":
                self._paused = None
            elif action == "void":
                self._void = dict(data)

    # -- state -----------------------------------------------------------------------------------

    @property
    def state(self) -> str:
        if self._void is not None:
            return "void"
        return "paused" if self._paused is not None else self.hand.phase.value

    @property
    def terminal(self) -> bool:
        return self._void is not None or self.hand.finished

    @property
    def paused(self) -> bool:
        return self._paused is not None and not self.terminal

    def view(self) -> dict[str, Any]:
        view = stud_view(self.hand, self.meta())
        return {**view, "state": self.state, "paused": self.paused, "closed": self.closed, "void": self._void_view()}

    def _void_view(self) -> dict[str, Any] | None:
        if self._void is None:
            return None
        return {"cause": self._void.get("cause"), "returned": self._void.get("returned")}

    def closing(self) -> dict[str, Any]:
        paid = self.hand.pot_shares
        contributed = self.hand.contributions
        if self._void is not None:
            seats = {str(s): {"outcome": "void", "net": 0} for s in self.hand.seats}
            return {"outcome": "void", "cause": self._void.get("cause"), "returned": self.hand.pot, "seats": seats}
        seats = {
            str(s): {
                "outcome": "win" if s in paid else ("fold" if s in self.hand.folded_seats else "lose"),
                "net": paid.get(s, 0) - contributed[s],
            }
            for s in self.hand.seats
        }
        return {"outcome": "complete", "pot": self.hand.pot, "seats": seats}

    # -- actions ---------------------------------------------------------------------------------

    def act(self, action: str, request: msgspec.Struct, entropy: bytes) -> Step[dict[str, Any]]:
        """The step of ``action`` (one of the registry's, for this game) with its typed ``request``."""
        if action == "void":
            assert isinstance(request, rq.Void)
            yield from self.void(Irregularity.OTHER, request.cause or "declared by the floor")
            return {"voided": True}
        if self.paused:
            raise ServiceError("paused", f"the hand is paused ({self._paused})", rule=IRREGULARITY_RULE)
        if action == "deal":
            return (yield from self._deal())
        if action == "stud-action":
            assert isinstance(request, rq.StudAction)
            return (yield from self._act(request))
        if action == "reshuffle-burns":
            record = self.hand.reshuffle_burns()
            yield from self.record("decision", record, action="reshuffle-burns")  # journaled before the cards move
            # (h): "the dealer shall shuffle the burn cards, burn a card and then deal the common card". An
            # emulator has no dealer: the service shuffles and loads them; a real shoe's dealer does.
            loaded = yield from load_on_top(shuffled([card.code for card in record.burns], entropy))
            return {"record": public_record(encode_record(record)), "burns_loaded": loaded}
        if action == "settle":
            if self.hand.finished:
                return self._awards()
            raise ServiceError(
                "out-of-order",
                "the pot is awarded when the last betting round closes",
                rule=cite(PHASE_RULE[self.hand.phase]),
            )
        raise ServiceError("wrong-game", f"{action!r} is not an action of {self.game}")

    def shoe_count_at_open(self) -> int | None:
        """The shoe's own count when the hand opened (not ``stub_size``, which is 52 when the shoe gave none);
        None once burn cards were reshuffled and loaded on top of it."""
        count = self.opened.get("cards_remaining")
        reloaded = any(isinstance(record, BurnsReshuffled) for record in self.hand.records)
        return count if type(count) is int and not reloaded else None

    def accepts_load(self) -> bool:
        """The burn cards reshuffled into the stub for 7th street (N.J.A.C. 13:47-20.35(h)) are loaded into the
        shoe while the hand deals: due now, or just recorded and no card dealt since."""
        step = self.hand.next_card
        just = bool(self.hand.records) and isinstance(self.hand.records[-1], BurnsReshuffled)
        return step is not None and (step.target is Target.RESHUFFLE or just)

    def closed_answer(self, action: str) -> dict[str, Any] | None:
        """``settle`` after the pot was awarded (the hand closes with its award): the awards, nothing journaled."""
        if action == "settle" and self._void is None and self.hand.finished:
            return self._awards()
        return None

    def _awards(self) -> dict[str, Any]:
        """``settle``'s answer: each winning seat's share of the pot, as the view shows it."""
        return {"awards": {str(seat): amount for seat, amount in sorted(self.hand.pot_shares.items())}}

    def _act(self, request: rq.StudAction) -> Step[dict[str, Any]]:
        seat, amount, kind = request.seat, request.amount, request.action
        record = self.hand.act(seat, kind, amount)
        yield from self.record("decision", record, action="stud-action", seat=seat)
        if self.hand.finished:
            yield from self._settlement()
        return {"record": public_record(encode_record(record))}

    def _settlement(self) -> Step[None]:
        settlement = self.hand.settlement
        assert settlement is not None
        awards = [r for r in self.hand.records if isinstance(r, PotAwarded)]
        showdown = None
        if not settlement.uncontested:
            showdown = {str(s): [c.code for c in self.hand.cards(s)] for s in self.hand.live_seats}
        data = {
            "uncontested": settlement.uncontested,
            "awards": [{"seat": a.seat, "amount": a.amount, "odd_chips": a.odd_chips} for a in awards],
            "showdown": showdown,
            "pot": self.hand.pot,
            "records": [encode_record(a) for a in awards],
        }
        yield from append("settlement", data, self.round_id)

    def _deal(self) -> Step[dict[str, Any]]:
        step = self.hand.next_card
        if step is None or step.target is Target.RESHUFFLE:
            phase = self.hand.phase.value
            what = "reshuffle the burn cards into the shoe first" if step else f"no card is due ({phase})"
            raise ServiceError("out-of-order", what, rule=cite("h" if step else PHASE_RULE[self.hand.phase]))
        dealt: list[dict[str, Any]] = []
        while (step := self.hand.next_card) is not None and step.target is not Target.RESHUFFLE:
            face = "up" if step.face_up else "down"
            number = self.cards_dealt + 1
            yield from self.announce(step.target.value, step.seat, number, 1, street=step.street.label, face=face)
            record, stop = yield from self.dispense_and_absorb(1, f"card for {step}")
            dealt.append(record)
            if stop:
                break
        step = self.hand.next_card
        reshuffle = step is not None and step.target is Target.RESHUFFLE
        return {"cards": dealt, "paused": self.paused, "reshuffle_needed": reshuffle}

    def absorb(self, stack: Stack) -> Step[dict[str, Any]]:
        step = self.hand.next_card
        assert step is not None
        face = "up" if step.face_up else "down"
        target = step.seat if step.target is Target.SEAT else step.target.value
        self.announced = None
        entries = []
        for position, read in enumerate(stack.cards, 1):
            if self.journaled(stack.dispense_id, position):
                continue  # journaled before a restart cut the command short (recovery hands the card over again)
            self.cards_dealt += 1
            data = card_entry(
                step.target.value,
                step.seat,
                self.cards_dealt,
                dispense_id=stack.dispense_id,
                position=position,
                read=read,
                face=face,
            )
            entries.append({**data, "street": step.street.label})
        shown = {"target": step.target.value, "seat": step.seat, "face": face, "dispense_id": stack.dispense_id}
        problem = None
        if len(stack.cards) != 1:
            problem = (Irregularity.BAD_STACK, f"the shoe gave {len(stack.cards)} cards for one")
        elif stack.cards[0].card is None:
            problem = (Irregularity.UNREADABLE_CARD, "a card could not be read")
        else:
            try:
                record = self.hand.deal(Card.parse(str(stack.cards[0].card)), target)
            except StudRuleViolation as exc:
                problem = (Irregularity.DUPLICATE_CARD, exc.message)
            else:
                if not entries:  # only an irregular card is journaled without its record, and this one is not
                    problem = (Irregularity.LINK_UNRECONCILED, "the journal holds this card without its record")
        if problem is not None:
            for data in entries:
                yield from self.journal_card(data)
            yield from self.void(*problem, known_dispense_id=stack.dispense_id)
            return shown
        # A good card's one entry holds its record (and known_dispense_id): recovery never hands it over again.
        data = {**entries[0], "record": encode_record(record), "known_dispense_id": stack.dispense_id}
        yield from self.journal_card(data)
        return {**shown, "card": stack.cards[0].card if face == "up" else None}

    # -- interruptions ---------------------------------------------------------------------------

    def pause(self, cause: Irregularity, detail: str) -> Step[None]:
        if not self.terminal and self._paused is None:
            data = {"action": "paused", "cause": cause.value, "detail": detail}
            yield from append("irregularity", data, self.round_id)
            self._paused = detail

    def resume(self) -> Step[None]:
        if self._paused is not None and not self.terminal:
            yield from append("irregularity", {"action": "resumed"}, self.round_id)
            self._paused = None

    def void(self, cause: Irregularity, detail: str, **extra: Any) -> Step[None]:
        if self.terminal:
            return
        returned = {str(s): c for s, c in sorted(self.hand.contributions.items())}
        yield from self.alarm_in_doubt()
        data = {"action": "void", "cause": cause.value, "detail": detail, "returned": returned, **extra}
        yield from append("irregularity", data, self.round_id)
        self._void = data


def shuffled(codes: Sequence[str], entropy: bytes) -> list[str]:
    """``codes`` in an order drawn from ``entropy`` (the command's random bytes; N.J.A.C. 13:47-20.35(h):
    the burn cards are shuffled before they go back into the shoe).

    Each card is sorted by a SHA-256 of the entropy and its code: distinct cards get distinct keys, so with
    entropy unknown to anyone the order is uniform and unpredictable from the service's state; with the same
    entropy (a simulator's seed) it is the same order.
    """
    return sorted(codes, key=lambda code: hashlib.sha256(entropy + code.encode()).digest())
