"""What a round's step asks of the world, one intent at a time, and the one function that answers it.

A step (a round's action, its opening, a pause, a void, a stack absorbed) is a generator: it yields an
intent, is sent the intent's result (or has the intent's exception thrown into it, so a step reads
``try: stack = yield from dispense(2) except DispenseFailed: ...``) and returns its reply. A step never
waits, reads a clock or randomness, or touches a socket, a file or the shoe: whatever it needs of them
it yields here, or is given when it starts (the round id, the shuffle's entropy). :func:`drive` runs a
step against any :class:`~shoe.service.rounds.run.Desk` (the service's ``RoundDesk``, a simulator's
desk, a test's recording desk), each intent mapped to one desk method.

The typed helpers (:func:`append`, :func:`dispense`, ...) yield one intent and return its result with
its type, so the steps stay checked by ``mypy --strict``.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from drivers.stacks import Stack
from protocols.fields import CardRead

if TYPE_CHECKING:
    from shoe.service.rounds.run import Desk

__all__ = [
    "Alarm",
    "Append",
    "DeckForRound",
    "Dispense",
    "Drain",
    "DrainResult",
    "Intent",
    "LoadOnTop",
    "ReleaseStub",
    "Scan",
    "ShoeSerial",
    "Step",
    "alarm",
    "append",
    "deck_for_round",
    "dispense",
    "drain",
    "drive",
    "load_on_top",
    "release_stub",
    "scan",
    "shoe_serial",
]

T = TypeVar("T")


@dataclass(frozen=True)
class Append:
    """Journal one entry (durable before the next shoe command or the reply); result: its seq."""

    kind: str
    data: dict[str, Any]
    round_id: str | None


@dataclass(frozen=True)
class Dispense:
    """Ask the shoe for one stack of ``size`` cards; result: the :class:`Stack`, or the driver's exception
    (``DispenseFailed``, ``ShoeDiscrepancy``, ``ShoeIOError``, ``ShoeTimeout``) thrown into the step."""

    size: int


@dataclass(frozen=True)
class Scan:
    """Read the card the dealer passes across the shoe's reader; result: the :class:`CardRead`."""


@dataclass(frozen=True)
class ReleaseStub:
    """The shoe presents its stub; result: the count of cards in it."""


@dataclass(frozen=True)
class DrainResult:
    """What handling the shoe items that arrived meanwhile did to the round in hand.

    ``paused``/``ended``: the round was paused or ended (voided) by one of them (a lost link, a reboot, a
    discrepancy, a foreign deck); ``link_up``: the link to the shoe is up once they are handled.
    """

    paused: bool = False
    ended: bool = False
    link_up: bool = True

    @property
    def stop(self) -> bool:
        """The step must not go on as if nothing happened: the round under it changed."""
        return self.paused or self.ended


@dataclass(frozen=True)
class Drain:
    """Handle the shoe events and link notices that arrived meanwhile; result: a :class:`DrainResult`.

    The only point where a round's step lets the world change the round under it: a step yields it
    between two stacks and looks at the result before it deals on.
    """


@dataclass(frozen=True)
class Alarm:
    """Raise a shoe alarm (journaled, refuses new rounds until acknowledged); result: ``None``."""

    cause: str
    detail: str
    dispense_id: int | None = None
    unjournaled: int | None = None


@dataclass(frozen=True)
class LoadOnTop:
    """An emulator shoe loads ``codes`` on top of what it holds; result: ``False`` on a real shoe."""

    codes: tuple[str, ...]


@dataclass(frozen=True)
class DeckForRound:
    """The open-round gate: ``(cards_remaining, the deck's reference)``, or a ``ServiceError`` thrown in."""


@dataclass(frozen=True)
class ShoeSerial:
    """The connected shoe's serial; result: ``str | None``."""


Intent = Append | Dispense | Scan | ReleaseStub | Drain | Alarm | LoadOnTop | DeckForRound | ShoeSerial
Step = Generator[Intent, Any, T]
"""A step yields intents, is sent their results, and returns ``T``."""


def drive(step: Step[T], desk: Desk) -> T:
    """Run ``step`` to its end against ``desk``: each intent to its one desk method, the result (or the
    exception the method raised) back into the step. Returns what the step returns; an exception the
    step does not catch comes out of here."""
    try:
        intent = next(step)
        while True:
            try:
                result = _answer(intent, desk)
            except Exception as exc:  # the step decides: it may catch it (a failed dispense) or let it out
                intent = step.throw(exc)
            else:
                intent = step.send(result)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


def _answer(intent: Intent, desk: Desk) -> Any:
    if isinstance(intent, Append):
        return desk.append(intent.kind, intent.data, intent.round_id)
    if isinstance(intent, Dispense):
        return desk.dispense(intent.size)
    if isinstance(intent, Scan):
        return desk.scan()
    if isinstance(intent, ReleaseStub):
        return desk.release_stub()
    if isinstance(intent, Drain):
        return desk.drain()
    if isinstance(intent, Alarm):
        return desk.raise_alarm(
            intent.cause, intent.detail, dispense_id=intent.dispense_id, unjournaled=intent.unjournaled
        )
    if isinstance(intent, LoadOnTop):
        return desk.load_on_top(intent.codes)
    if isinstance(intent, DeckForRound):
        return desk.deck_for_round()
    if isinstance(intent, ShoeSerial):
        return desk.shoe_serial()
    raise TypeError(f"not an intent: {intent!r}")  # pragma: no cover - the union is closed


# -- typed helpers: one intent each, its result with its type --------------------------------------


def append(kind: str, data: dict[str, Any], round_id: str | None) -> Step[int]:
    seq: int = yield Append(kind, data, round_id)
    return seq


def dispense(size: int) -> Step[Stack]:
    stack: Stack = yield Dispense(size)
    return stack


def scan() -> Step[CardRead]:
    read: CardRead = yield Scan()
    return read


def release_stub() -> Step[int]:
    count: int = yield ReleaseStub()
    return count


def drain() -> Step[DrainResult]:
    result: DrainResult = yield Drain()
    return result


def alarm(cause: str, detail: str, *, dispense_id: int | None = None, unjournaled: int | None = None) -> Step[None]:
    yield Alarm(cause, detail, dispense_id, unjournaled)


def load_on_top(codes: Sequence[str]) -> Step[bool]:
    loaded: bool = yield LoadOnTop(tuple(codes))
    return loaded


def deck_for_round() -> Step[tuple[int | None, dict[str, Any]]]:
    gate: tuple[int | None, dict[str, Any]] = yield DeckForRound()
    return gate


def shoe_serial() -> Step[str | None]:
    serial: str | None = yield ShoeSerial()
    return serial
