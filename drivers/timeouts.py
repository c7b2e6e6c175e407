"""Every wait of the shoe link, named and configurable in one place (SPEC §4, §6), each with its range."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields

__all__ = ["RANGES", "LinkTimeouts", "TimeoutValueError"]

RANGES: dict[str, tuple[float, float, bool]] = {
    "reply": (0.0, 60.0, False),
    "retries": (0, 100, True),
    "dispense_base": (0.0, 600.0, True),
    "dispense_per_card": (0.0, 60.0, False),
    "scan": (0.0, 3600.0, False),
    "reconnect_initial": (0.0, 60.0, False),
    "reconnect_max": (0.0, 600.0, False),
    "reconnect_give_up": (0.0, 3600.0, False),
    "read_poll": (0.0, 5.0, False),
}
"""name -> (low, high, low allowed): every value is finite and at most ``high``; above ``low``, or equal
to it when allowed. ``retries`` is a whole number. A wait of 0 would spin, one of ``inf`` never end."""


class TimeoutValueError(ValueError):
    """A link timeout out of its range; ``name`` is the field (``reply``)."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name = name


def _check(name: str, value: object) -> None:
    low, high, low_ok = RANGES[name]
    above = f"{low:g} to {high:g}" if low_ok else f"above {low:g} and at most {high:g}"
    if name == "retries":
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise TimeoutValueError(name, f"retries must be a whole number from {low:g} to {high:g}, not {value!r}")
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TimeoutValueError(name, f"timeout {name} must be a number of seconds {above}, not {value!r}")
    if not math.isfinite(value) or not (low <= value if low_ok else low < value) or value > high:
        raise TimeoutValueError(name, f"timeout {name} must be a number of seconds {above}, not {value!r}")


@dataclass(frozen=True)
class LinkTimeouts:
    """Seconds unless the name says otherwise; each value within :data:`RANGES` (checked on creation)."""

    reply: float = 0.5
    """Wait for the response to one request before re-sending it."""
    retries: int = 3
    """Re-sends of an unanswered request (same bytes, same sequence number)."""
    dispense_base: float = 0.5
    dispense_per_card: float = 3.0
    """A stack must be in the tray within ``dispense_base + cards * dispense_per_card``."""
    scan: float = 30.0
    """How long SCAN waits for the dealer to pass a card across the reader."""
    reconnect_initial: float = 0.1
    reconnect_max: float = 2.0
    """Back-off between attempts to reopen a lost link, doubling from initial to max."""
    reconnect_give_up: float = 30.0
    """A command waiting for a lost link fails after this long (the link keeps trying)."""
    read_poll: float = 0.1
    """Longest blocking read, so that closing the link is prompt."""

    def __post_init__(self) -> None:
        for f in fields(self):
            _check(f.name, getattr(self, f.name))
        if self.reconnect_max < self.reconnect_initial:
            raise TimeoutValueError(
                "reconnect_max",
                f"reconnect_max ({self.reconnect_max:g}) must be at least reconnect_initial "
                f"({self.reconnect_initial:g}): the back-off doubles from one to the other",
            )

    def dispense(self, cards: int) -> float:
        return self.dispense_base + cards * self.dispense_per_card

    @classmethod
    def from_mapping(cls, values: Mapping[str, object]) -> LinkTimeouts:
        """Build from config keys; an unknown key or a value out of its range is a ``ValueError``."""
        known = {f.name for f in fields(cls)}
        unknown = set(values) - known
        if unknown:
            raise ValueError(f"unknown timeout(s) {', '.join(sorted(unknown))}; valid: {', '.join(sorted(known))}")
        for key, value in values.items():
            _check(key, value)
        return cls(**values)  # type: ignore[arg-type]
