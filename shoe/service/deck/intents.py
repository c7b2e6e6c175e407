"""What a deck step (:mod:`shoe.service.deck.steps`) asks of the world, and the one function that answers it.

The round steps' intents (:mod:`shoe.service.rounds.intents`) are reused where they mean the same thing:
``Append`` (journal one entry; the deck's fold sees it once committed), ``Drain`` (handle the shoe items
that arrived meanwhile: a DECK_LOADED among them is the deck's own input, handled by its own step),
``Alarm`` and ``ReleaseStub``. The deck adds what only it asks: the shoe's count (STATUS), its deck check
(DECK_CHECK), an emulator load, the wait for a load's DECK_LOADED, a void of the live round, the deck's
snapshot published, and a log line. :func:`drive` runs a step against a :class:`DeckDesk` (the service's
``DeckCycle``, a test's recording desk), each intent to one desk method; a dispatch on the intent's type,
so a step costs one dictionary look-up per intent.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from shoe.service.api import requests as rq
from shoe.service.rounds.intents import Alarm, Append, Drain, DrainResult, ReleaseStub

if TYPE_CHECKING:
    from drivers.deck import DeckVerdict  # a type only: drivers.deck also holds a thread-waiting watch

__all__ = [
    "AwaitLoaded",
    "CheckDeck",
    "DeckDesk",
    "DeckIntent",
    "DeckStep",
    "LoadEmulator",
    "LoadMidRound",
    "Log",
    "Publish",
    "ShoeCount",
    "Void",
    "drive",
]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ShoeCount:
    """STATUS: the cards the shoe holds (``None``: it cannot count); a ``ShoeError`` thrown in. ``confirm``:
    a second STATUS must agree (the open-round gate; a ``ShoeDiscrepancy`` when it does not)."""

    confirm: bool = False


@dataclass(frozen=True, slots=True)
class CheckDeck:
    """DECK_CHECK the cards in the shoe against a full deck of ``back``; result: the ``DeckVerdict``."""

    back: str | None


@dataclass(frozen=True, slots=True)
class LoadEmulator:
    """The dealer's load into an emulator; result: ``(the cards it holds, the back loaded)``, or a refusal
    (``not-an-emulator``, ``shoe-unavailable``, ``impossible-deck``, ``load-refused``) thrown in."""

    request: rq.LoadDeck
    expected_back: str | None


@dataclass(frozen=True, slots=True)
class LoadMidRound:
    """Cards loaded on top of the live deck of an emulator; result: ``False`` on a real shoe (nothing
    loaded), ``True`` once the emulator took them (``load-refused`` thrown in otherwise)."""

    codes: tuple[str, ...]
    back: str | None


@dataclass(frozen=True, slots=True)
class AwaitLoaded:
    """The shoe items of the next moments are handled until a load's DECK_LOADED was (``deck_no`` moved past
    ``before``; with ``round_load``: the round's own load was seen), or a short while passed. Each DECK_LOADED
    is an input of its own step (:func:`~shoe.service.deck.steps.on_loaded`); result: whether the link is up
    (the shoe is connected) once they are handled."""

    before: int
    round_load: bool = False


@dataclass(frozen=True, slots=True)
class Void:
    """Void the live round (cards loaded on top of its deck); result: ``None``."""

    detail: str


@dataclass(frozen=True, slots=True)
class Publish:
    """The deck's snapshot, as other threads read it, is the deck's view now; result: ``None``."""


@dataclass(frozen=True, slots=True)
class Log:
    """One log line (never a card face: a deck check's faces stay in its journal entry); result: ``None``."""

    event: str
    fields: Mapping[str, Any] = field(default_factory=dict)
    level: str = "info"


DeckIntent = (
    Append | Drain | Alarm | ReleaseStub | ShoeCount | CheckDeck | LoadEmulator | LoadMidRound | AwaitLoaded
    | Void | Publish | Log
)  # fmt: skip
DeckStep = Generator[DeckIntent, Any, T]
"""A deck step yields deck intents, is sent their results, and returns ``T``."""


class DeckDesk(Protocol):
    """What a deck step's intents reach: the journal, the shoe, the emulator, the live round, the snapshot."""

    def append(self, kind: str, data: dict[str, Any], round_id: str | None) -> int: ...
    def drain(self) -> DrainResult: ...
    def raise_alarm(
        self, cause: str, detail: str, *, dispense_id: int | None = None, unjournaled: int | None = None
    ) -> None: ...
    def release_stub(self) -> int: ...
    def shoe_count(self, confirm: bool) -> int | None: ...
    def check_deck(self, back: str | None) -> DeckVerdict: ...
    def load_emulator(self, request: rq.LoadDeck, expected_back: str | None) -> tuple[int | None, str]: ...
    def load_mid_round(self, codes: tuple[str, ...], back: str | None) -> bool: ...
    def await_loaded(self, before: int, round_load: bool) -> bool: ...
    def void(self, detail: str) -> None: ...
    def publish(self) -> None: ...
    def log(self, level: str, event: str, fields: Mapping[str, Any]) -> None: ...


_ANSWERS: dict[type, Callable[[Any, DeckDesk], Any]] = {
    Append: lambda i, d: d.append(i.kind, i.data, i.round_id),
    Drain: lambda i, d: d.drain(),
    Alarm: lambda i, d: d.raise_alarm(i.cause, i.detail, dispense_id=i.dispense_id, unjournaled=i.unjournaled),
    ReleaseStub: lambda i, d: d.release_stub(),
    ShoeCount: lambda i, d: d.shoe_count(i.confirm),
    CheckDeck: lambda i, d: d.check_deck(i.back),
    LoadEmulator: lambda i, d: d.load_emulator(i.request, i.expected_back),
    LoadMidRound: lambda i, d: d.load_mid_round(i.codes, i.back),
    AwaitLoaded: lambda i, d: d.await_loaded(i.before, i.round_load),
    Void: lambda i, d: d.void(i.detail),
    Publish: lambda i, d: d.publish(),
    Log: lambda i, d: d.log(i.level, i.event, i.fields),
}


def drive(step: DeckStep[T], desk: DeckDesk) -> T:
    """Run ``step`` to its end against ``desk`` (as :func:`shoe.service.rounds.intents.drive` does a round's):
    each intent to its one desk method, the result (or the exception the method raised) back into the step."""
    try:
        intent = next(step)
        while True:
            try:
                result = _ANSWERS[type(intent)](intent, desk)
            except Exception as exc:  # the step decides: it may catch it (a STATUS that failed) or let it out
                intent = step.throw(exc)
            else:
                intent = step.send(result)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
