"""Every wait of the shoe link, named and configurable in one place (SPEC §4, §6)."""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class LinkTimeouts:
    """Seconds unless the name says otherwise."""

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

    def dispense(self, cards: int) -> float:
        return self.dispense_base + cards * self.dispense_per_card

    @classmethod
    def from_mapping(cls, values: dict[str, float]) -> LinkTimeouts:
        """Build from config keys; an unknown key is an error that lists the valid ones."""
        known = {f.name for f in fields(cls)}
        unknown = set(values) - known
        if unknown:
            raise ValueError(f"unknown timeout(s) {', '.join(sorted(unknown))}; valid: {', '.join(sorted(known))}")
        for key, value in values.items():
            if not isinstance(value, int | float) or value < 0:
                raise ValueError(f"timeout {key} must be a non-negative number, not {value!r}")
        return cls(**values)  # type: ignore[arg-type]
