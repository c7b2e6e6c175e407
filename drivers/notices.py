"""What the client tells subscribers besides the shoe's own events: the link's edges."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LinkLost:
    """The link failed; commands wait for it (up to ``reconnect_give_up``) while it reconnects."""

    reason: str


@dataclass(frozen=True)
class LinkRestored:
    """The port is open again; the client resynchronises before any new dispense."""

    attempts: int


@dataclass(frozen=True)
class ShoeRebooted:
    """The shoe's boot id changed: event numbers restarted and unacknowledged events were lost."""

    old_boot_id: int
    new_boot_id: int


@dataclass(frozen=True)
class Resynced:
    """Status read and reconciled after connect or reconnect; ``refilled`` events came from the log."""

    boot_id: int
    event_counter: int
    last_dispense_id: int
    refilled: int


@dataclass(frozen=True)
class Discrepancy:
    """The shoe contradicted itself outside a dispense call (SPEC §6, "What the host checks").

    Raised as :class:`drivers.errors.ShoeDiscrepancy` inside ``dispense``; published as this notice when
    found on the event stream or in a resynchronisation (a boot id that went back, cards for a dispense
    nobody asked for). The client also re-reads STATUS before its next dispense.
    """

    cause: str
    detail: str
    dispense_id: int | None = None
    moved: int | None = None


@dataclass(frozen=True)
class FrameRefused:
    """A frame failed authentication (SPEC §13.4): forged, rewritten, replayed, reordered, or plain where
    a sealed one was due. ``reason`` is ``mac``, ``replay``, ``format``, ``plain``, ``unexpected-sealed``,
    or a failed session's cause (``key-mismatch``...); ``msg_type`` the type its header claims;
    ``refused`` the link's count so far."""

    reason: str
    msg_type: str
    refused: int


Notice = LinkLost | LinkRestored | ShoeRebooted | Resynced | Discrepancy | FrameRefused
