"""The typed request of every service action: one ``msgspec.Struct`` each, checked once at the edge.

Pure (no I/O): the HTTP layer decodes a body straight into one of these (:func:`decode`),
``TableService.submit`` converts an in-process mapping into the same type (:func:`convert`), and the
play-script loader reuses the same constrained values (``Seat``, ``Cents``, ``CardCode``). Past the
edge every function takes typed values; nothing downstream sees ``dict[str, Any]`` request data.

What the edge guarantees:

- strict JSON: ``NaN``/``Infinity`` are not JSON, integers are integers (``"5"``, ``true`` and
  ``5.5`` are refused; ``5.0`` is the number 5, as in JSON Schema), no unknown field
  (``forbid_unknown_fields``), every field of its type;
- every value in range (``msgspec.Meta``): seats 1..8 (the largest table: N.J.A.C. 13:47-20.35(b)
  allows 8 at stud, NY 5324.38(a)(1) 6 at Mississippi stud; the rules engine refuses a seat its
  profile does not have), amounts in whole cents up to :data:`MAX_CENTS`, card codes by pattern,
  names and free text printable with no control character, bounded lengths;
- no lone UTF-16 surrogate (``"\\ud800"``) anywhere: it is not text, and the journal's hash step
  cannot encode it;
- bounded depth and size: a typed decode stops at the first value of the wrong shape (a
  30,000-deep array fails at its first level), integers beyond 64 bits are refused.

A refusal is :class:`RequestError` with a message that names the field's JSON path
(``$.seats[0].ante: expected int >= 0, got -5``); the HTTP layer and ``submit`` turn it into the
``bad-request`` error envelope. The same types generate the OpenAPI document's request schemas
(:func:`schemas`), so the document and the check cannot disagree.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Mapping
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

import msgspec

from shoe.service.api import strict_json

__all__ = [
    "MAX_CENTS",
    "MAX_METER_CENTS",
    "CardCode",
    "Cents",
    "ChipCount",
    "ClearFault",
    "Decide",
    "Empty",
    "FaultName",
    "FiveCardParams",
    "Forfeit",
    "LoadDeck",
    "MaintenanceDispense",
    "MississippiJurisdiction",
    "MississippiTable",
    "OpenMississippi",
    "OpenRound",
    "OpenStud",
    "Payout",
    "ProgressiveInputs",
    "RequestError",
    "Reveal",
    "Seat",
    "SeatWager",
    "SideParams",
    "StudAction",
    "StudJurisdiction",
    "StudSeat",
    "StudTable",
    "Void",
    "body_required",
    "convert",
    "convert_value",
    "decode",
    "game_of",
    "schemas",
]

MAX_SEAT = 8  # the largest table of any game here: seven-card stud, N.J.A.C. 13:47-20.35(b)
MAX_CENTS = 100_000_000  # $1,000,000: no wager, limit or chip count at one table comes near it
MAX_METER_CENTS = 10_000_000_000  # $100,000,000: a progressive meter reading
MAX_TEXT = 200

Seat = Annotated[int, msgspec.Meta(ge=1, le=MAX_SEAT, description="a seat number, 1..8")]
Cents = Annotated[int, msgspec.Meta(ge=0, le=MAX_CENTS, description="whole cents")]
MeterCents = Annotated[int, msgspec.Meta(ge=0, le=MAX_METER_CENTS, description="a meter reading in whole cents")]
CARD_PATTERN = "^[2-9TJQKA][cdhs]$"
CardCode = Annotated[str, msgspec.Meta(pattern=CARD_PATTERN, description="a card code: rank 23456789TJQKA, suit cdhs")]
# Printable text: no C0/C1 control character (a newline or an ANSI escape in a name would end up in
# log lines and round records), not blank.
_PRINTABLE = r"^[^\x00-\x1f\x7f-\x9f]*[^\x00-\x20\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$"
Name = Annotated[
    str, msgspec.Meta(min_length=1, max_length=64, pattern=_PRINTABLE, description="printable text, no control chars")
]
Text = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_TEXT, pattern=_PRINTABLE)]
KEY_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_-]*$"
Key = Annotated[str, msgspec.Meta(min_length=1, max_length=40, pattern=KEY_PATTERN)]
SideBetName = Literal["progressive", "envy", "three-card-bonus", "five-card-hand-bonus"]


class _Request(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """Every request: unknown fields refused, immutable once checked."""


class Empty(_Request, frozen=True):
    """An action that takes no parameters: ``{}`` (or no body)."""


class SeatWager(_Request, frozen=True):
    """A Mississippi stud seat's wagers (cents): ``{"seat": 1, "ante": 1000, "side": {"progressive": 100}}``."""

    seat: Seat
    ante: Cents
    side: Annotated[dict[SideBetName, Cents], msgspec.Meta(max_length=4)] = msgspec.field(default_factory=dict)


class StudSeat(_Request, frozen=True):
    """A seven-card stud player's seat, ``{"seat": 1}`` (or the bare number): the ante is the table's."""

    seat: Seat


class EnvyParams(_Request, frozen=True):
    """The Envy Bonus's fixed amounts in cents (PA 655a.11(i)(4)(iii))."""

    royal_flush: Cents
    straight_flush: Cents


# A payout as the rules digest writes it: "500 to 1" (winnings on top of the returned stake), "300 for 1"
# (stake included) or "10% of meter" (a share of a progressive meter, never paid from the tray).
PAYOUT_PATTERN = (
    r"^(?:(?:0|[1-9][0-9]{0,5}) to 1|[1-9][0-9]{0,5} for 1|(?:[1-9][0-9]?|100)% of (?:meter|mega|major|minor))$"
)
Payout = Annotated[str, msgspec.Meta(pattern=PAYOUT_PATTERN, description='"40 to 1", "300 for 1" or "10% of meter"')]
ODDS_PATTERN = r"^(?:(?:0|[1-9][0-9]{0,5}) to 1|[1-9][0-9]{0,5} for 1)$"
BonusOdds = Annotated[str, msgspec.Meta(pattern=ODDS_PATTERN, description='odds on the stake: "2 to 1", "3 for 1"')]
PositiveCents = Annotated[int, msgspec.Meta(ge=1, le=MAX_CENTS, description="whole cents, at least 1")]
# The hands of the paytables (shoe.hands.Category, ThreeCardCategory, shoe.rules.paytables.BaseHand: a
# test keeps these equal to them).
FiveCardHand = Literal[
    "royal-flush", "straight-flush", "four-of-a-kind", "full-house", "flush", "straight", "three-of-a-kind",
    "two-pair", "pair", "high-card",
]  # fmt: skip
ThreeCardHand = Literal["mini-royal", "straight-flush", "three-of-a-kind", "straight", "flush", "pair", "high-card"]
BaseHandName = Literal[
    "royal-flush", "straight-flush", "four-of-a-kind", "full-house", "flush", "straight", "three-of-a-kind",
    "two-pair", "pair-jacks-or-better", "pair-6s-to-10s",
]  # fmt: skip
BaseOdds = Annotated[int, msgspec.Meta(ge=0, le=1_000_000, description="odds to 1 (0: the stake is returned)")]


class FiveCardParams(_Request, frozen=True):
    """The Five Card Hand Bonus (PA 655a.11(i)(4)(ii)): its paytable, the Magic Card and Lucky bonuses,
    each a fixed sum (integer cents) or odds on the stake."""

    paytable: Annotated[dict[FiveCardHand, Payout], msgspec.Meta(min_length=1, max_length=10)]
    magic_card: PositiveCents | BonusOdds
    lucky_bonus: PositiveCents | BonusOdds


class SideParams(_Request, frozen=True, omit_defaults=True):
    """The side wagers a Mississippi stud table offers (PA 655a.11(i)(4), 655a.12), limits in cents."""

    offered: Annotated[list[SideBetName], msgspec.Meta(max_length=4)] = msgspec.field(default_factory=list)
    envy: EnvyParams | None = None
    progressive_table: Annotated[str, msgspec.Meta(pattern="^[A-Z]$")] | None = None
    three_card: Annotated[dict[ThreeCardHand, Payout], msgspec.Meta(min_length=1, max_length=7)] | None = None
    five_card: FiveCardParams | None = None
    progressive_wager: PositiveCents | None = None
    bonus_min: PositiveCents | None = None
    bonus_max: PositiveCents | None = None


class _Table(_Request, frozen=True, omit_defaults=True):
    def given(self) -> dict[str, Any]:
        """The fields given, as plain data (what the ``round-opened`` entry journals)."""
        out: dict[str, Any] = msgspec.to_builtins(self)
        return out


class MississippiTable(_Table, frozen=True, omit_defaults=True):
    """A Mississippi stud table's configuration (cents); what is not given takes the defaults.

    The one type of a table, over HTTP (``POST /v1/rounds``) and in a play script (docs/play-scripts.md):
    both decode it here and turn it into the rules engine's configuration with
    ``shoe.service.rounds.params.table_config``. ``paytable``: a better base paytable than the profile's
    minimum (NY 5324.38(f), NJ), odds to 1 per line.
    """

    name: Name | None = None
    min_ante: PositiveCents | None = None
    max_ante: PositiveCents | None = None
    paytable: Annotated[dict[BaseHandName, BaseOdds], msgspec.Meta(min_length=1, max_length=10)] | None = None
    side: SideParams | None = None


class StudTable(_Table, frozen=True, omit_defaults=True):
    """A seven-card stud table's limits in cents (N.J.A.C. 13:47-20.35(b)-(c))."""

    bring_in: PositiveCents
    small_bet: PositiveCents
    big_bet: PositiveCents
    ante: Cents | None = None
    max_raises: Annotated[int, msgspec.Meta(ge=0, le=16)] | None = None
    max_seats: Annotated[int, msgspec.Meta(ge=2, le=MAX_SEAT)] | None = None


# The rules profiles (shoe.rules.profiles.PROFILES, STUD_PROFILES; a test keeps these equal to them).
MississippiJurisdiction = Literal["NY", "PA", "NJ"]
StudJurisdiction = Literal["NJ"]
_Seats = msgspec.Meta(min_length=1, max_length=MAX_SEAT, description="the wagering seats")


class OpenMississippi(_Request, frozen=True, tag_field="game", tag="mississippi-stud"):
    """``open-round`` of Mississippi stud: the rules profile (NY, PA, NJ), the table, the seats' wagers."""

    jurisdiction: MississippiJurisdiction
    seats: Annotated[list[SeatWager], _Seats]
    table: Name | MississippiTable | None = None


class OpenStud(_Request, frozen=True, tag_field="game", tag="seven-card-stud"):
    """``open-round`` of seven-card stud: the table's limits and the players' seats (NJ)."""

    seats: Annotated[list[Seat | StudSeat], _Seats]
    table: StudTable
    jurisdiction: StudJurisdiction | None = None


OpenRound = OpenMississippi | OpenStud
"""``open-round``: one type per game, told apart by ``game`` (an array of seats, never a mapping)."""


def game_of(request: OpenMississippi | OpenStud) -> str:
    """The ``game`` an ``open-round`` request names (its tag)."""
    return str(type(request).__struct_config__.tag)


class ChipCount(_Request, frozen=True):
    count: Annotated[int, msgspec.Meta(ge=0, le=10_000, description="progressive chips counted in the drop")]


class Decide(_Request, frozen=True):
    seat: Seat
    multiple: Annotated[int, msgspec.Meta(ge=0, le=3, description="1, 2 or 3 times the ante; 0 folds")]


class Reveal(_Request, frozen=True):
    index: Annotated[int, msgspec.Meta(ge=1, le=3, description="the community card's position: 1, 2 or 3")]
    card: CardCode | None = None


class Void(_Request, frozen=True):
    cause: Text | None = None


class Forfeit(_Request, frozen=True):
    seat: Seat


StudActionName = Literal["bring-in", "complete", "bet", "raise", "call", "check", "fold"]


class StudAction(_Request, frozen=True):
    seat: Seat
    action: StudActionName
    amount: Cents | None = None


class ProgressiveInputs(_Request, frozen=True):
    """The table-game system's inputs (PA 655a.11): meter readings in cents, the Magic Card, the Lucky seat."""

    meters: Annotated[dict[Key, MeterCents], msgspec.Meta(max_length=16)] = msgspec.field(default_factory=dict)
    magic_card: CardCode | None = None
    lucky_seat: Seat | None = None


class MaintenanceDispense(_Request, frozen=True):
    """A test dispense between rounds: ``stacks`` stacks of ``size`` cards (counts answered, never cards)."""

    stacks: Annotated[int, msgspec.Meta(ge=1, le=52, description="how many stacks")]
    size: Annotated[int, msgspec.Meta(ge=1, le=4, description="cards per stack (SPEC DISPENSE: 1..4)")]


DeckFault = Annotated[int, msgspec.Meta(ge=0, le=52)]
Back = Annotated[str, msgspec.Meta(min_length=1, max_length=60, pattern=_PRINTABLE,
                                   description="a back design, as the shoe reads it (e.g. red, blue)")]  # fmt: skip


class LoadDeck(_Request, frozen=True):
    """``load-deck`` (an emulator shoe): the deck's back (default: the one the table expects next) and the
    emulator's faults (``drivers.emulator.deck.DeckLoad``). Never a seed or an order: they predict the deck."""

    back: Back | None = None
    short: Annotated[DeckFault, msgspec.Meta(description="cards left out: a short deck")] = 0
    extra: Annotated[DeckFault, msgspec.Meta(description="copies of cards added: extra cards")] = 0
    duplicate: Annotated[DeckFault, msgspec.Meta(description="cards replaced by copies of others")] = 0
    foreign: Annotated[DeckFault, msgspec.Meta(description="cards of another back design")] = 0


# protocols.codes.FaultCode, by name (kebab or snake case) or number (a test keeps them equal).
FaultName = Literal[
    "jam", "double-feed", "misfeed", "door-open", "shoe-empty", "unreadable-card", "tamper", "internal-error",
    "double_feed", "door_open", "shoe_empty", "unreadable_card", "internal_error",
]  # fmt: skip


class ClearFault(_Request, frozen=True):
    """The fault to clear (SPEC: FaultCode); none clears every fault."""

    fault: FaultName | Annotated[int, msgspec.Meta(ge=1, le=8)] | None = None


class RequestError(ValueError):
    """A request that is not of its type; ``str()`` names the JSON path of the first problem."""


_SURROGATE = re.compile("[\ud800-\udfff]")
_MAX_WALK = 64  # deeper than any request type: refused before the walk goes further


_PATTERN_WORDS = {
    CARD_PATTERN: 'a card code such as "7h" (rank 23456789TJQKA, suit cdhs)',
    _PRINTABLE: "printable text without control characters (no newline, no escape)",
    KEY_PATTERN: "a name of letters, digits, - and _",
    PAYOUT_PATTERN: 'a payout such as "40 to 1", "300 for 1" or "10% of meter" (meter, mega, major or minor)',
    ODDS_PATTERN: 'odds on the stake such as "2 to 1" or "3 for 1"',
    "^[A-Z]$": "one capital letter (A to Z)",
    # shoe.people.credentials: the people routes' fields
    r"^[0-9]{4,12}$": "a PIN of 4 to 12 digits",
    r"^[A-Za-z0-9-]{1,32}$": "a badge of 1 to 32 letters, digits and -",
    r"^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$": "an employee id: 1 to 32 letters, digits, . _ -",
    r"^t-[0-9a-f]{8}$": 'a token id such as "t-0123abcd"',
    r"^a-[0-9a-f]{8}$": 'an approval id such as "a-0123abcd"',
}
_DIGITS = re.compile(r"\^\[0-9\]\{(\d+),(\d+)\}\$")
_AT = re.compile(r"^(?P<what>.*?) - at `(?:(?P<key>key)` in `)?(?P<where>\$[^`]*)`$", re.S)


def _pattern_words(pattern: str) -> str:
    if pattern in _PATTERN_WORDS:
        return _PATTERN_WORDS[pattern]
    if match := _DIGITS.fullmatch(pattern):
        return f"{match[1]} to {match[2]} digits"
    return f"text matching the pattern {pattern}"


def _segments(where: str) -> list[str | int]:
    """``$.seats[0].side[...]`` -> ``["seats", 0, "side", "[...]"]``."""
    parts = [name or index for name, index in re.findall(r"\.([^.\[]+)|\[(\d+|\.\.\.)\]", where)]
    return [int(part) if part.isdigit() else part for part in parts]


def _strip(kind: Any) -> Any:
    while get_origin(kind) is Annotated:
        kind = get_args(kind)[0]
    return kind


def _allowed(kind: Any, path: list[str | int], key: bool) -> list[str]:
    """The values a ``Literal`` at ``path`` of ``kind`` takes (the keys of a mapping there when ``key``)."""
    kind = _strip(kind)
    if get_origin(kind) in (Union, UnionType):
        return list(dict.fromkeys(v for k in get_args(kind) for v in _allowed(k, path, key)))
    if not path:
        if key and get_origin(kind) is dict:
            return _allowed(get_args(kind)[0], [], False)
        return [str(v) for v in get_args(kind)] if get_origin(kind) is Literal else []
    head, rest = path[0], path[1:]
    if isinstance(kind, type) and issubclass(kind, msgspec.Struct) and isinstance(head, str):
        config = kind.__struct_config__
        if not rest and head == config.tag_field:
            return [str(config.tag)]
        hints = get_type_hints(kind, include_extras=True)
        return _allowed(hints[head], rest, key) if head in hints else []
    if get_origin(kind) is list and isinstance(head, int):
        return _allowed(get_args(kind)[0], rest, key)
    if get_origin(kind) is dict and head == "[...]":
        return _allowed(get_args(kind)[1], rest, key)
    return []


def _message(exc: msgspec.ValidationError, kind: Any = None) -> str:
    """msgspec's "Expected `int`, got `str` - at `$.seat`" as "$.seat: expected `int`, got `str`", in
    words: a pattern as what it stands for ("a PIN of 4 to 12 digits"), an unknown name with the names
    there are ("one of: NY, PA, NJ"). The one place a decode error becomes the answer's message."""
    text = str(exc)
    match = _AT.fullmatch(text)
    what, where, key = (match["what"], match["where"], match["key"]) if match else (text, "$", None)
    what = what[:1].lower() + what[1:]
    for pattern in re.findall(r"matching regex ('(?:[^'\\]|\\.)*')", what):
        try:
            plain = ast.literal_eval(pattern)
        except (ValueError, SyntaxError):
            continue
        what = what.replace(f"matching regex {pattern}", f"({_pattern_words(plain)})")
    if kind is not None and what.startswith(("invalid enum value", "invalid value")):
        names = _allowed(kind, _segments(where), key is not None)
        if names:
            what += f": use one of: {', '.join(names)}"
    if key is not None:
        what = f"unknown key {what.removeprefix('invalid enum value ')}"
    return f"{where}: {what}"


def decode(raw: bytes, kind: Any) -> Any:
    """The request of type ``kind`` in a JSON body (an empty body is ``{}``); :class:`RequestError` if not.

    The bytes become data in one place, :func:`shoe.service.api.strict_json.loads` (no duplicate key at
    any depth, no ``NaN``/``Infinity``, no lone surrogate, bounded depth and integers), then become
    ``kind``. A number with a zero fraction (``2.0``) is the integer it equals, as JSON Schema has it
    (the fuzzer sends them).
    """
    try:
        value = strict_json.loads(raw if raw.strip() else b"{}", whole_floats=True)
        return msgspec.convert(value, kind, strict=True)
    except strict_json.JsonError as exc:
        raise RequestError(str(exc)) from None
    except msgspec.ValidationError as exc:
        raise RequestError(_message(exc, kind)) from None


def _clean(value: object, path: str, depth: int = 0) -> object:
    """``value`` with whole floats as integers; lone surrogates, non-finite numbers, absurd depth refused."""
    if depth > _MAX_WALK:
        raise RequestError(f"{path}: nested deeper than {_MAX_WALK} levels")
    if isinstance(value, str):
        if _SURROGATE.search(value):
            raise RequestError(f"{path}: a lone UTF-16 surrogate is not text")
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise RequestError(f"{path}: {value!r} is not a JSON number")
        return int(value) if value.is_integer() else value
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            _clean(key, f"{path} (a key)", depth + 1)
            out[key] = _clean(item, f"{path}.{key}", depth + 1)
        return out
    if isinstance(value, list | tuple):
        return [_clean(item, f"{path}[{i}]", depth + 1) for i, item in enumerate(value)]
    return value


def _kinds(kind: Any) -> tuple[type, ...]:
    return tuple(get_args(kind)) if get_origin(kind) in (Union, UnionType) else (kind,)


def convert(params: Mapping[str, Any] | msgspec.Struct | None, kind: Any) -> Any:
    """An in-process caller's parameters as the request ``kind``: the same checks as the HTTP edge.

    Strict: no ``"5"`` for 5, no ``True`` for 1, no fraction for an integer, no unknown key.
    """
    if isinstance(params, _kinds(kind)):
        return params
    if params is None:
        params = {}
    if isinstance(params, msgspec.Struct):
        raise RequestError(f"$: expected {' or '.join(k.__name__ for k in _kinds(kind))}, got {type(params).__name__}")
    if not isinstance(params, Mapping):
        raise RequestError(f"$: expected `object`, got `{type(params).__name__}`")
    return convert_value(params, kind)


def convert_value(value: object, kind: Any, path: str = "$") -> Any:
    """Any plain value (a play script's part, say) as ``kind``; :class:`RequestError` names ``path``."""
    cleaned = _clean(value, path)
    try:
        return msgspec.convert(cleaned, kind, strict=True)
    except msgspec.ValidationError as exc:
        message = _message(exc, kind)
        raise RequestError(path + message[1:] if message.startswith("$") else message) from None


def body_required(kind: Any) -> bool:
    """Whether a request of ``kind`` has a required field (else an empty body is ``{}``)."""
    return any(f.required for k in _kinds(kind) for f in msgspec.structs.fields(k))


def schemas(kinds: tuple[Any, ...]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The JSON Schema of each request type (``$ref``s) and their components, for the OpenAPI document."""
    refs, components = msgspec.json.schema_components(kinds, ref_template="#/components/schemas/{name}")
    return list(refs), dict(components)
