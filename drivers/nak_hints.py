"""What to do about a BAD_STATE refusal: the shoe says only "not now" (SPEC §4, NAK codes), so the
client reads STATUS and names what is in the way (:func:`nak_hint`; the other NAK codes have a hint
each too).  One hint per cause, never a guess that fits
none: a stack in the tray, a stub not yet released (or already released), an empty or short shoe,
the door, a dispense still running, a SCAN with no card passed.  :func:`bad_state_hint` is pure.
"""

from __future__ import annotations

from typing import Protocol

from drivers.errors import ShoeError
from protocols import messages as m
from protocols.codes import FaultCode, NakCode, ShoeState

__all__ = ["GENERIC", "bad_state_hint", "nak_hint"]

NAK_HINTS = {
    NakCode.BAD_ARGUMENT: "a value was out of range for this shoe",
    NakCode.NOT_SUPPORTED: "this shoe model lacks that capability (shoectl identify lists them)",
    NakCode.UNSUPPORTED_VERSION: "the shoe speaks another protocol version; update host or firmware",
}

GENERIC = "the shoe cannot do that now: check shoectl status"
LOAD = "load a shuffled deck (emulator: shoectl load-deck)"
TRAY = "a stack is waiting in the tray: the dealer takes it, then ask again"
DOOR = "the shoe's door is open: close the door (DOOR_OPEN clears by itself when it closes)"
BUSY = "dispense {id} is still running: wait for its stack (shoectl status), then ask again"


class _Requests(Protocol):
    def request(self, message: m.Message) -> m.Message: ...


def nak_hint(request: m.Message, code: NakCode, link: _Requests) -> str | None:
    """The hint for ``request`` refused with ``code``; for BAD_STATE, STATUS is read on ``link`` first."""
    if code is not NakCode.BAD_STATE:
        return NAK_HINTS.get(code)
    try:
        status = link.request(m.GetStatus())
    except ShoeError:
        return GENERIC
    return bad_state_hint(request, status if isinstance(status, m.Status) else None)


def bad_state_hint(request: m.Message, status: m.Status | None) -> str:
    """The hint for ``request`` refused with BAD_STATE, from the STATUS read just after (None: unread)."""
    if status is None:
        return GENERIC
    released = status.state is ShoeState.STUB_RELEASED or (status.state is ShoeState.SCANNING)
    if isinstance(request, m.ClearFault) and status.door_open and request.code in (0, FaultCode.DOOR_OPEN):
        return DOOR
    if status.active_dispense_id and not isinstance(request, m.ClearFault):
        return BUSY.format(id=status.active_dispense_id)
    if isinstance(request, m.Scan):
        if not released:
            return "SCAN reads the cards of a released stub: release the stub first (shoectl release-stub)"
        return "no card passed the reader in time: pass the next stub card across the reader, then scan again"
    if status.tray_occupied:
        return TRAY
    if isinstance(request, m.Dispense):
        if released:
            return f"the stub has been released, so the shoe deals no more from this deck: {LOAD}"
        remaining = status.cards_remaining
        if remaining != m.Status.UNKNOWN_REMAINING and remaining < request.cards:
            held = "is empty" if remaining == 0 else f"holds {remaining} card(s), {request.cards} asked for"
            return f"the shoe {held}: release the stub and {LOAD}"
    if isinstance(request, m.ReleaseStub) and released:
        return f"the stub is already released: scan its cards (shoectl scan), or {LOAD}"
    if isinstance(request, m.DeckCheck) and released:
        return f"a deck check needs a loaded deck and the stub is released: {LOAD}, then check it"
    if status.door_open:
        return DOOR
    return GENERIC
