"""The simulator's invariants, each checked against something the code under test cannot forge.

- ``cards-journaled-or-alarmed``: per round, the cards the emulated mechanism moved (its own count) equal
  the round's ``card`` entries from dispenses, or the round is void and the journal holds an alarm for it;
- ``no-double-dispense``: every dispense the shoe stored a result for is named by the journal (a card, a
  stack, an alarm), and no (dispense id, position) is journaled twice;
- ``journal-verifies``: ``Journal.verify`` (hash chain and MACs) over the whole file;
- ``no-unrevealed-card-in-output``: no card code in any output (the dealer's answers, refusals, round
  views, every role's projected events) before that card may be shown: a community card once revealed, a
  seat's hand once settled;
- ``settlement-equals-rules-engine``: a fresh rules round driven from the journal's facts (wagers,
  cards, stub count, decisions: not its records) settles every seat exactly as journaled;
- ``every-action-attributed``: every entry committed while a dealer's command was in hand names the
  dealer (``by``), as read back from the file;
- ``community-card-is-stubs-next``: each community card the reader identified is the next card of the
  stub as the mechanism held it when released;
- ``hostile-input-changes-nothing``: every hostile body refused, the journal and the round unchanged;
- ``every-round-ends``: every round closed within the dealer's step budget.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping

from bench._sim_table import RoundTruth, Table
from shoe.cards import Card
from shoe.journal import Entry
from shoe.rules.errors import RuleViolation
from shoe.rules.mississippi import new_round
from shoe.rules.stud import PotAwarded, StudHand, StudTableConfig
from shoe.service.journal.codec import decode_record, encode_record
from shoe.service.journal.secrecy import CARD_CODE
from shoe.service.rounds.params import journaled_table, table_config

__all__ = ["INVARIANTS", "Checker"]

CARD = re.compile(r"[2-9TJQKA][cdhs]")
FREE_TEXT = frozenset({"detail", "message", "hint", "reason", "problem"})
"""Fields of free text, where a card code may hide inside a sentence (a paytable line's name is not one)."""

INVARIANTS = (
    "cards-journaled-or-alarmed",
    "no-double-dispense",
    "journal-verifies",
    "no-unrevealed-card-in-output",
    "settlement-equals-rules-engine",
    "every-action-attributed",
    "community-card-is-stubs-next",
    "hostile-input-changes-nothing",
    "every-round-ends",
)


class Checker:
    """Checks each round as it ends (its outputs and entries are then let go: memory stays flat over 10,000
    rounds) and the whole journal at the end; ``why`` keeps the first counter-example of each invariant."""

    def __init__(self) -> None:
        self.why: dict[str, str] = {}

    def _fail(self, name: str, problem: str | None) -> None:
        if problem and name not in self.why:
            self.why[name] = problem

    def round_ended(self, table: Table, truth: RoundTruth) -> None:
        entries = list(table.store.journal.entries(round_id=truth.round_id)) if truth.round_id else []
        by_round = {truth.round_id: entries} if truth.round_id else {}
        self._fail("cards-journaled-or-alarmed", _cards([truth], by_round, len(table.rounds)))
        self._fail("no-unrevealed-card-in-output", _secrecy(table, by_round))
        self._fail("settlement-equals-rules-engine", _settlements(by_round))
        self._fail("every-action-attributed", _attributed(table))
        self._fail("community-card-is-stubs-next", _community([truth], by_round, len(table.rounds)))
        if truth.stuck:
            self._fail("every-round-ends", f"round {len(table.rounds)} did not end")
        table.outputs.clear()
        table.desk.committed.clear()
        table.shown_upto = 0

    def finish(self, table: Table) -> tuple[dict[str, bool], dict[str, str]]:
        entries = list(table.store.journal.entries())
        self._fail("no-double-dispense", _double(table.rounds, entries))
        self._fail("journal-verifies", _verifies(table))
        self._fail("hostile-input-changes-nothing", "; ".join(table.hostile_changed[:3]) or None)
        return {name: name not in self.why for name in INVARIANTS}, dict(self.why)


def _voided_with_alarm(entries: list[Entry]) -> bool:
    void = any(e.kind == "round-closed" and e.data.get("outcome") == "void" for e in entries)
    return void and any(e.kind == "fault" and e.data.get("event") == "alarm" for e in entries)


def _cards(rounds: list[RoundTruth], by_round: Mapping[str, list[Entry]], first: int) -> str | None:
    for n, truth in enumerate(rounds, first):
        moved = truth.moved_after - truth.moved_before
        entries = by_round.get(truth.round_id or "", [])
        journaled = sum(1 for e in entries if e.kind == "card" and e.data.get("dispense_id") is not None)
        if moved != journaled and not _voided_with_alarm(entries):
            return (
                f"round {n}: the mechanism moved {moved} card(s), the journal holds {journaled} and no alarm voids it"
            )
    return None


def _double(rounds: list[RoundTruth], entries: list[Entry]) -> str | None:
    seen: set[tuple[int, int]] = set()
    named: set[int] = set()
    for entry in entries:
        data = entry.data
        did = data.get("dispense_id")
        if isinstance(did, int):
            named.add(did)
        if entry.kind == "card" and isinstance(did, int):
            key = (did, int(data.get("position") or 0))
            if key in seen:
                return f"dispense {did} position {key[1]} is journaled twice"
            seen.add(key)
    for n, truth in enumerate(rounds, 1):
        for did in sorted(truth.dispenses_after - truth.dispenses_before):
            if did not in named:
                return f"round {n}: the shoe completed dispense {did}, which the journal never names"
    return None


def _verifies(table: Table) -> str | None:
    result = table.store.journal.verify()
    return None if result.ok else f"entry {result.first_bad_seq}: {result.problem}"


def _codes(value: object, free_text: bool = False) -> Iterable[str]:
    """Card codes in an output: every string that is one, and those inside free text (messages, details)."""
    if isinstance(value, str):
        if CARD.fullmatch(value):
            yield value
        elif free_text:
            for match in CARD_CODE.finditer(value):
                text = match.group(0)
                yield from (text[i : i + 2] for i in range(0, len(text), 2))
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _codes(item, key in FREE_TEXT)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _codes(item, free_text)


def _secrecy(table: Table, by_round: Mapping[str, list[Entry]]) -> str | None:
    """Card codes in outputs against the cards shown by the end of the round (a leak before its moment is a leak:
    each output is checked against what may be shown at the moment it was made, read from the outputs' order)."""
    allowed: dict[str, set[str]] = defaultdict(set)
    hidden: dict[str, set[str]] = defaultdict(set)
    for rid, entries in by_round.items():
        for entry in entries:
            data = entry.data
            if entry.kind == "card" and data.get("card"):
                hidden[rid].add(str(data["card"]))
    shown: dict[str, set[str]] = defaultdict(set)
    for rid, output in table.outputs:
        if rid is None:
            for code in _codes(output):
                if any(code in cards for cards in hidden.values()):
                    return f"a card of a round shown outside any round: {output!r:.120}"
            continue
        _learn(shown[rid], output)
        for code in _codes(output):
            if code in hidden.get(rid, ()) and code not in shown[rid] and code not in allowed[rid]:
                kind = output.get("type") if isinstance(output, Mapping) else None
                return f"round {rid}: a card not yet revealed appears in an output ({kind})"
    return None


def _learn(shown: set[str], output: object) -> None:
    """Cards an output may show because their moment came: a reveal's card, a settled seat's hand."""
    if not isinstance(output, Mapping):
        return
    kind = output.get("type")
    if kind == "reveal" and output.get("card"):
        shown.add(str(output["card"]))
    if kind == "settlement":
        for key in ("cards", "community"):
            for code in output.get(key) or []:
                shown.add(str(code))
        for codes in (output.get("showdown") or {}).values():  # stud: the live hands at the showdown
            shown.update(str(code) for code in codes)
    if kind == "stack-dealt" and output.get("face") == "up" and output.get("card"):  # a stud up card, as dealt
        shown.add(str(output["card"]))


def _settlements(by_round: Mapping[str, list[Entry]]) -> str | None:
    for rid, entries in by_round.items():
        problem = _settle_round(rid, entries)
        if problem:
            return problem
    return None


def _settle_stud(rid: str, opened: Entry, entries: list[Entry], journaled: list[Entry]) -> str | None:
    """A fresh stud hand fed the journal's cards and betting actions; its awards against the journal's."""
    data = opened.data
    hand = StudHand(StudTableConfig.from_mapping(dict(data["table"])), list(data["seats"]),
                    stub_size=int(data["stub_size"]))  # fmt: skip
    try:
        for e in entries:
            d = e.data
            if e.kind == "card" and d.get("dispense_id") is not None and "record" in d:
                target = d["seat"] if d.get("target") == "seat" else d.get("target")
                hand.deal(Card.parse(str(d["card"])), target)
            elif e.kind == "decision" and d.get("action") == "stud-action":
                action = decode_record(d["record"])
                hand.act(action.seat, action.kind, action.amount)
    except (RuleViolation, KeyError, ValueError) as exc:
        return f"round {rid}: the journal's cards and actions do not replay through the rules engine ({exc})"
    mine = [(a.seat, a.amount, a.odd_chips) for a in hand.records if isinstance(a, PotAwarded)]
    theirs = [(a["seat"], a["amount"], a["odd_chips"]) for a in journaled[-1].data.get("awards", [])]
    if mine != theirs:
        return f"round {rid}: the pot was awarded otherwise than the rules engine awards it"
    return None


def _settle_round(rid: str, entries: list[Entry]) -> str | None:
    """Drive a fresh rules round from the journal's facts and compare each settlement with the journal's."""
    opened = next((e for e in entries if e.kind == "round-opened"), None)
    journaled = [e for e in entries if e.kind == "settlement"]
    if opened is None or not journaled:
        return None
    data = opened.data
    if data.get("game") == "seven-card-stud":
        return _settle_stud(rid, opened, entries, journaled)
    r = new_round(str(data["jurisdiction"]), table_config(journaled_table(data.get("table"))))
    for seat, wager in sorted(data["seats"].items(), key=lambda kv: int(kv[0])):
        r.place_wagers(int(seat), wager["ante"], wager.get("side") or {})
    stacks: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for e in entries:
        if e.kind == "card" and e.data.get("dispense_id") is not None:
            stacks[e.data["dispense_id"]].append((e.data.get("position") or 0, e.data.get("card")))
    settled = iter(journaled)
    try:
        for e in entries:
            d, action = e.data, e.data.get("action")
            if e.kind == "decision" and action == "no-more-bets":
                r.no_more_bets()
            elif e.kind == "decision" and action == "stack-dealt":
                r.deal_stack(int(d["seat"]), [card for _, card in sorted(stacks[d["dispense_id"]])])
            elif e.kind == "decision" and action == "release-stub":
                r.release_stub(int(d["count"]))
            elif e.kind == "decision" and action == "community-dealt":
                r.deal_community()
            elif e.kind == "decision" and action == "decide":
                r.decide(int(d["seat"]), int(d["multiple"]))
            elif e.kind == "irregularity" and action == "paused":
                r.pause(str(d.get("detail") or ""))
            elif e.kind == "irregularity" and action == "resumed":
                r.resume()
            elif e.kind == "card" and d.get("target") == "community" and d.get("community_index"):
                r.reveal(int(d["community_index"]) - 1, d.get("card"))
            elif e.kind == "settlement":
                mine = encode_record(r.settle_next())
                theirs = next(settled).data.get("record")
                if mine != theirs:
                    return f"round {rid}: seat {d.get('seat')} settled otherwise than the rules engine settles it"
    except (RuleViolation, StopIteration, KeyError, ValueError) as exc:
        return f"round {rid}: the journal's facts do not replay through the rules engine ({exc})"
    return None


def _attributed(table: Table) -> str | None:
    committed = [(entry, by) for entry, by in table.desk.committed if by is not None]
    if not committed:
        return None
    first = min(entry.seq for entry, _ in committed)
    on_file = {e.seq: e for e in table.store.journal.entries(after_seq=first - 1)}
    for entry, by in committed:
        read = on_file.get(entry.seq)
        if read is None or read.data.get("by") != by:
            return f"entry {entry.seq} ({entry.kind}) was written for {by['id']} but does not name them"
    return None


def _community(rounds: list[RoundTruth], by_round: Mapping[str, list[Entry]], first: int) -> str | None:
    for n, truth in enumerate(rounds, first):
        if truth.stub is None:
            continue
        for e in by_round.get(truth.round_id or "", []):
            d = e.data
            if e.kind == "card" and d.get("target") == "community" and d.get("source") == "shoe":
                index = int(d.get("community_index") or 0)
                if index > len(truth.stub) or truth.stub[index - 1] != d.get("card"):
                    return f"round {n}: community card {index} is not the stub's card {index} (a SCAN acted on twice)"
    return None
