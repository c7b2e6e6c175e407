"""What an emulated shoe is loaded with and which faults it will show: ``EmulatorConfig``.

Every option is also reachable from a port URL query (``emu://?seed=7&jam_at=5``) through
``EmulatorConfig.from_query``. Card numbers (``unreadable_at``, ``jam_at``, ``double_feed_at``,
``misfeed_at``) are 1-based positions counted from the top of the deck loaded at start; they do not
apply to decks loaded later with ``EmulatedShoe.load``.

Options beyond the first published set (all with defaults, so nothing changes for older callers):
``count_known`` (False: the shoe cannot count its cards, STATUS says 0xFFFF and a short deck runs out
mid-stack with SHOE_EMPTY instead of being refused) and ``event_resend_s`` (SPEC §5 ``event_resend``);
for the deck cycle (SPEC §11) ``back`` (the back design of the deck loaded at start, default "red") and
``autoload`` (after RELEASE_STUB the dealer takes the stub away and loads the next shuffled deck by
itself, with the same back, shuffled from ``seed`` and the deck number). ``autoload`` is off by default
in the emulator; the service turns it on for its embedded default configuration only (a demo).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from protocols.cards import CardCodeError, card_to_byte

TIMINGS = ("instant", "realistic")
PROTOCOLS = ("1.0", "1.1")
MAX_DECK = 255  # DECK_REPORT counts cards in a u8


@dataclass(frozen=True)
class EmulatorConfig:
    seed: int | None = None
    deck: tuple[str, ...] | None = None
    unreadable_at: tuple[int, ...] = ()
    unreadable_rate: float = 0.0
    jam_at: int | None = None
    double_feed_at: int | None = None
    misfeed_at: int | None = None
    door_open: bool = False
    corrupt_rate: float = 0.0
    drop_rate: float = 0.0
    latency_ms: float = 0.0
    timing: str = "instant"
    auto_take: bool = True
    take_delay_s: float = 0.0
    model: str = "EMU-1"
    serial: str = "EMU0001"
    firmware: str = "emu-1.0"
    count_known: bool = True
    event_resend_s: float = 0.2
    back: str = "red"
    autoload: bool = False
    firmware_image: str = ""
    """The firmware image FIRMWARE_DIGEST is computed over (SPEC §12): "" the one shipped with the emulator
    (``drivers/emulator/firmware/emu-1.0.bin``), a path another file, ``none`` a shoe without the request."""
    bootloader: str = "emu-boot-1.0"
    protocol: str = "1.1"
    """The protocol the shoe speaks: "1.1" (SPEC §13: pairing, authenticated frames, positioned reports) or "1.0"."""

    def __post_init__(self) -> None:
        if self.deck is not None:
            object.__setattr__(self, "deck", tuple(self.deck))
            check_deck(self.deck, "deck")
        object.__setattr__(self, "unreadable_at", tuple(self.unreadable_at))
        for name in ("unreadable_rate", "corrupt_rate", "drop_rate"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"emulator option {name!r}: {value!r} is not a rate in 0..1")
        for name in ("latency_ms", "take_delay_s"):
            if getattr(self, name) < 0:
                raise ValueError(f"emulator option {name!r}: {getattr(self, name)!r} is negative")
        if self.event_resend_s <= 0:
            raise ValueError(f"emulator option 'event_resend_s': {self.event_resend_s!r} must be > 0")
        for number in (*self.unreadable_at, self.jam_at, self.double_feed_at, self.misfeed_at):
            if number is not None and number < 1:
                raise ValueError(f"emulator card number {number!r} is not 1-based (first card is 1)")
        if self.protocol not in PROTOCOLS:
            raise ValueError(f"emulator option 'protocol': {self.protocol!r} is not one of {', '.join(PROTOCOLS)}")
        if self.timing not in TIMINGS:
            raise ValueError(f"emulator option 'timing': {self.timing!r} is not one of {', '.join(TIMINGS)}")
        for name in ("model", "serial", "firmware", "back", "bootloader"):
            if len(getattr(self, name).encode("utf-8")) > 255:
                raise ValueError(f"emulator option {name!r} is longer than 255 bytes")

    @classmethod
    def from_query(cls, query: str) -> EmulatorConfig:
        """Parse ``"seed=7&deck=AsKd7c&jam_at=5&unreadable_at=3,9&timing=realistic&auto_take=0"``."""
        valid = ", ".join(f.name for f in dataclasses.fields(cls))
        valid += ", deck_file"
        kwargs: dict[str, Any] = {}
        for key, raw in parse_qsl(query.lstrip("?"), keep_blank_values=True):
            if key == DECK_FILE:  # the order from a file, so it is not on a command line where ps shows it
                if "deck" in kwargs:
                    raise ValueError(
                        f"emulator options 'deck' and {DECK_FILE!r} both name the order; valid keys: {valid}"
                    )
                try:
                    kwargs["deck"] = read_deck_file(raw)
                except ValueError as exc:
                    raise ValueError(f"emulator option {DECK_FILE!r}: {exc}") from None
                continue
            parser = _PARSERS.get(key)
            if parser is None:
                raise ValueError(f"unknown emulator option {key!r}; valid keys: {valid}")
            if key in kwargs:
                raise ValueError(f"emulator option {key!r} given twice (or with {DECK_FILE}); valid keys: {valid}")
            try:
                kwargs[key] = parser(raw)
            except ValueError as exc:
                shown = _SECRET_PROBLEMS.get(key, str(exc))  # a secret's value never in a message
                raise ValueError(f"emulator option {key!r}: {shown}; valid keys: {valid}") from None
        try:
            return cls(**kwargs)
        except ValueError as exc:
            raise ValueError(f"{exc}; valid keys: {valid}") from None


def check_deck(codes: tuple[str, ...], what: str) -> None:
    """Raise ValueError unless every code names a card and the deck fits a DECK_REPORT."""
    if len(codes) > MAX_DECK:
        raise ValueError(f"{what}: {len(codes)} cards exceed the {MAX_DECK}-card limit of the protocol")
    for position, code in enumerate(codes, 1):
        try:
            card_to_byte(code)
        except CardCodeError:
            raise ValueError(  # the code itself not quoted: the deck's order is a secret (docs/emulator.md)
                f"{what}: card {position} is not a card code (rank 23456789TJQKA, suit cdhs)"
            ) from None


def parse_deck(raw: str) -> tuple[str, ...]:
    """``"As,Kd,7c"`` or ``"AsKd7c"`` (spaces ignored)."""
    text = raw.replace(" ", "")
    if "," in text:
        codes = tuple(part for part in text.split(",") if part)
    else:
        if len(text) % 2:
            raise ValueError("a concatenated deck needs two characters per card")
        codes = tuple(text[i : i + 2] for i in range(0, len(text), 2))
    check_deck(codes, "deck")
    return codes


DECK_FILE = "deck_file"


def read_deck_file(raw: str) -> tuple[str, ...]:
    """``deck_file=PATH``: the deck order read from a file that only its owner may read (mode 0600 or 0400).

    The order is a secret of the round (docs/api.md): on a command line (``--port "emu://?deck=..."``) every
    user of the machine sees it in ``ps``, and a file others may read is the same leak. The file holds the
    order as ``deck=`` takes it; lines starting with ``#`` are comments. Errors never quote the file's cards.
    """
    path = Path(raw).expanduser()
    try:
        mode = path.stat().st_mode
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a text file of card codes") from None
    if mode & 0o077:
        raise ValueError(f"{path} may be read by other users (mode {mode & 0o777:04o}): chmod 600 {path}")
    body = " ".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    try:  # every code is two characters, so the cards may be separated by spaces, commas, lines or nothing
        return parse_deck("".join(body.replace(",", " ").split()))
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def _int(raw: str) -> int:
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"{raw!r} is not an integer") from None


def _opt_int(raw: str) -> int | None:
    return None if raw.lower() in ("", "none") else _int(raw)


def _float(raw: str) -> float:
    try:
        return float(raw)
    except ValueError:
        raise ValueError(f"{raw!r} is not a number") from None


def _bool(raw: str) -> bool:
    lowered = raw.lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{raw!r} is not a boolean (use 1/0, true/false, yes/no, on/off)")


def _ints(raw: str) -> tuple[int, ...]:
    return tuple(_int(part) for part in raw.split(",") if part.strip())


def _str(raw: str) -> str:
    return raw


_SECRET_PROBLEMS = {
    "seed": "is not an integer (its value is not shown: the seed predicts every card)",
}
"""The options that predict the cards, told without a piece of their value (``deck``'s own problems,
from :func:`parse_deck` and :func:`check_deck`, name a card's position, never its code)."""

_PARSERS: dict[str, Callable[[str], Any]] = {
    "seed": _opt_int,
    "deck": parse_deck,
    "unreadable_at": _ints,
    "unreadable_rate": _float,
    "jam_at": _opt_int,
    "double_feed_at": _opt_int,
    "misfeed_at": _opt_int,
    "door_open": _bool,
    "corrupt_rate": _float,
    "drop_rate": _float,
    "latency_ms": _float,
    "timing": _str,
    "auto_take": _bool,
    "take_delay_s": _float,
    "model": _str,
    "serial": _str,
    "firmware": _str,
    "count_known": _bool,
    "event_resend_s": _float,
    "back": _str,
    "autoload": _bool,
    "firmware_image": _str,
    "bootloader": _str,
    "protocol": _str,
}
