"""Load and check a ``shoectl play`` script (docs/play-scripts.md) before any card leaves the shoe.

Every problem is a :class:`ScriptError` (a :class:`~shoe.rules.errors.RuleViolation`) whose message
starts with the JSON path of the offending value and says how to fix it, for example::

    seats["2"].decisions[0]: 4 is not a legal multiple: use 1, 2 or 3, or 0 to fold (NY 5324.38(e)(1))

What depends on play (a stud action out of turn, a stud shoe that runs out) is found by the dry run
that :func:`shoe.play.run_script` makes on the script's own card list first.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from shoe.cards import Card, CardError
from shoe.play import tables
from shoe.play.errors import ScriptError, at, expect_int, expect_object, typed
from shoe.play.tables import TableSystem
from shoe.rules.mississippi import TableConfig, resolve_table
from shoe.rules.profiles import PROFILES, MississippiProfile, SideBet
from shoe.rules.stud import StudTableConfig
from shoe.rules.stud.records import ActionKind
from shoe.service.api.requests import Cents, Seat, StudTable

__all__ = [
    "MississippiScript",
    "MississippiSeat",
    "Script",
    "ScriptError",
    "StudAction",
    "StudScript",
    "TableSystem",
    "load_script",
    "parse_script",
]

MISSISSIPPI, STUD = "mississippi-stud", "seven-card-stud"
STREETS = ("3rd", "4th", "5th")
OPTIONAL = {"description", "table_system", "actions", "stub_size"}


@dataclass(frozen=True)
class MississippiSeat:
    seat: int
    ante: int
    decisions: tuple[int, ...]  # multiples of the ante on 3rd, 4th, 5th street; 0 folds (and ends the list)
    side: Mapping[str, int]


@dataclass(frozen=True)
class MississippiScript:
    jurisdiction: str
    table: TableConfig
    shoe: tuple[str, ...]
    seats: tuple[MississippiSeat, ...]  # ascending
    table_system: TableSystem | None


@dataclass(frozen=True)
class StudAction:
    path: str  # "actions[3]"
    seat: int
    kind: str
    amount: int | None


@dataclass(frozen=True)
class StudScript:
    jurisdiction: str
    table: StudTableConfig
    shoe: tuple[str, ...]
    seats: tuple[int, ...]
    actions: tuple[StudAction, ...]
    stub_size: int


Script = MississippiScript | StudScript


def load_script(path: str | Path) -> Script:
    """Read and check a script file. ``OSError`` if it cannot be read; :class:`ScriptError` if it is illegal."""
    raw = Path(path).read_bytes()
    try:
        data = msgspec.json.decode(raw)  # strict JSON: no NaN/Infinity, no lone surrogate escape
    except (msgspec.DecodeError, RecursionError) as exc:
        raise ScriptError(f"{path}: not JSON: {exc}") from None
    return parse_script(data)


def parse_script(data: Any) -> Script:
    """Check a script object; :class:`ScriptError` names the first problem and its fix."""
    top = expect_object(data, "script", {"game", "jurisdiction", "table", "shoe", "seats"}, OPTIONAL)
    game = top["game"]
    if game == MISSISSIPPI:
        return _mississippi(top)
    if game == STUD:
        return _stud(top)
    raise ScriptError(f"game: {game!r} is not a game here: use {MISSISSIPPI!r} or {STUD!r}")


def _cards(raw: Any) -> tuple[str, ...]:
    if not isinstance(raw, list):
        raise ScriptError('shoe: a list of card codes, top card first, e.g. ["As", "Kd", ...]')
    codes = []
    for i, code in enumerate(raw):
        try:
            codes.append(Card.parse(code).code)
        except CardError:
            raise ScriptError(
                f"shoe[{i}]: unknown card {code!r}: a card code is a rank from 23456789TJQKA then a suit "
                'from cdhs, e.g. "As", "Td"'
            ) from None
    return tuple(codes)


def _no_duplicates(codes: tuple[str, ...], upto: int) -> None:
    first: dict[str, int] = {}
    for i, code in enumerate(codes[:upto]):
        if code in first:
            raise ScriptError(
                f"shoe[{i}]: duplicated card {code!r} (also at shoe[{first[code]}]): a deck holds each card "
                "once; replace one of them with the missing card"
            )
        first[code] = i


def _mississippi(top: dict[str, Any]) -> MississippiScript:
    for key in ("actions", "stub_size"):
        if key in top:
            raise ScriptError(f"{key}: not a Mississippi stud key (decisions go in seats[...].decisions)")
    jurisdiction = top["jurisdiction"]
    if jurisdiction not in PROFILES:
        raise ScriptError(f"jurisdiction: {jurisdiction!r} has no Mississippi stud profile: use NY, PA or NJ")
    profile = PROFILES[jurisdiction]
    config = tables.mississippi_table(top["table"])
    with at("table"):
        resolve_table(profile, config)
    seats = _mississippi_seats(top["seats"], profile)
    codes = _cards(top["shoe"])
    _no_duplicates(codes, len(codes))
    need = profile.stack_size * len(seats) + profile.community_cards
    if len(codes) != profile.deck_size:
        few = "too few" if len(codes) < profile.deck_size else "too many"
        raise ScriptError(
            f"shoe: {len(codes)} cards listed, {few}: Mississippi stud is dealt from one whole deck of "
            f"{profile.deck_size} cards ({len(seats)} stacks of {profile.stack_size} and "
            f"{profile.community_cards} community cards need {need}, and the stub is counted against "
            f"{profile.deck_size} - {profile.stack_size}n); list every card once",
            rule=profile.rules.stub,
            code="too-few-cards" if few == "too few" else "too-many-cards",
        )
    five = [s.seat for s in seats if SideBet.FIVE_CARD_HAND_BONUS.value in s.side]
    system = tables.table_system(top.get("table_system"), five)
    return MississippiScript(jurisdiction, config, codes, seats, system)


def _mississippi_seats(raw: Any, profile: MississippiProfile) -> tuple[MississippiSeat, ...]:
    if not isinstance(raw, dict) or not raw:
        raise ScriptError('seats: an object keyed by seat number, e.g. {"1": {"ante": 1000, "decisions": [1, 1, 1]}}')
    seats = []
    for key, value in raw.items():
        path = f"seats[{json.dumps(key)}]"
        if key not in {str(n) for n in range(1, profile.max_seats + 1)}:
            raise ScriptError(f'{path}: not a seat: seats are "1" to "{profile.max_seats}"', rule=profile.rules.seats)
        seat = expect_object(value, path, {"ante", "decisions"}, {"side"})
        ante = expect_int(seat["ante"], f"{path}.ante")
        side = expect_object(seat.get("side", {}), f"{path}.side", set(), {b.value for b in SideBet})
        for bet, amount in side.items():
            expect_int(amount, f"{path}.side.{bet}")
        decisions = _decisions(seat["decisions"], f"{path}.decisions", int(key), profile)
        seats.append(MississippiSeat(int(key), ante, decisions, dict(side)))
    return tuple(sorted(seats, key=lambda s: s.seat))


def _decisions(raw: Any, path: str, seat: int, profile: MississippiProfile) -> tuple[int, ...]:
    if not isinstance(raw, list):
        raise ScriptError(f"{path}: a list of ante multiples for 3rd, 4th and 5th street, e.g. [3, 1, 1]")
    legal = ", ".join(str(m) for m in profile.bet_multiples[:-1]) + f" or {profile.bet_multiples[-1]}"
    for i, multiple in enumerate(raw):
        rule = profile.rules.decisions[min(i, 2)]
        if i >= len(STREETS):
            raise ScriptError(f"{path}[{i}]: there are only 3 streets (3rd, 4th, 5th): remove it", rule=rule)
        if i > 0 and raw[i - 1] == 0:
            raise ScriptError(
                f"{path}[{i}]: a decision from seat {seat}, which folded on {STREETS[i - 1]} street "
                f"({path}[{i - 1}] is 0): the list ends at a fold; remove the decisions after it",
                rule=rule,
                code="decision-after-fold",
            )
        if type(multiple) is not int or (multiple != 0 and multiple not in profile.bet_multiples):
            raise ScriptError(
                f"{path}[{i}]: {multiple!r} is not a legal multiple: use {legal}, or 0 to fold",
                rule=rule,
                code="illegal-wager",
            )
    if len(raw) < len(STREETS) and (not raw or raw[-1] != 0):
        raise ScriptError(
            f"{path}: {len(raw)} decision(s) and no fold: give one per street (3rd, 4th, 5th), "
            "or end the list with 0 to fold",
            rule=profile.rules.decisions[len(raw)],
        )
    return tuple(raw)


def _stud(top: dict[str, Any]) -> StudScript:
    if "table_system" in top:
        raise ScriptError("table_system: not a seven-card stud key")
    if top["jurisdiction"] != "NJ":
        raise ScriptError(f"jurisdiction: {top['jurisdiction']!r} has no seven-card stud profile: use NJ")
    table: StudTable = typed(top["table"], StudTable, "table")
    with at("table"):
        config = StudTableConfig.from_mapping(table.given())
    seats = top["seats"]
    if not isinstance(seats, list) or not all(type(s) is int for s in seats):
        raise ScriptError("seats: a list of seat numbers 1..8, e.g. [1, 2, 5]")
    typed(seats, list[Seat], "seats")
    stub_size = expect_int(top.get("stub_size", 52), "stub_size")
    codes = _cards(top["shoe"])
    # A burn reshuffle (h) happens only with one card or none left: before that, every card is new.
    _no_duplicates(codes, stub_size - 1)
    return StudScript("NJ", config, codes, tuple(seats), _actions(top.get("actions")), stub_size)


def _actions(raw: Any) -> tuple[StudAction, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise ScriptError('actions: a list of [seat, action, amount], e.g. [[3, "bring-in", 100], [1, "call", 100]]')
    out = []
    for i, line in enumerate(raw):
        path = f"actions[{i}]"
        if not isinstance(line, list) or len(line) not in (2, 3) or type(line[0]) is not int:
            raise ScriptError(f"{path}: {json.dumps(line)} is not [seat, action, amount] (amount may be null)")
        try:
            kind = ActionKind.parse(line[1]).value
        except ValueError as exc:
            raise ScriptError(f"{path}: {exc}") from None
        amount = line[2] if len(line) == 3 else None
        if amount is not None:
            expect_int(amount, f"{path}[2]")
            typed(amount, Cents, f"{path}[2]")
        out.append(StudAction(path, line[0], kind, amount))
    return tuple(out)
