"""The driver error tree. Library exceptions (pyserial, pyusb, OSError) are translated at the edge.

::

    ShoeError
    ├── ShoeUnavailable        nothing answers at that port (absent, unplugged, busy, no permission)
    ├── ShoeInitError          it answered but could not be brought up (wrong protocol version, ...)
    ├── ShoeIOError            the link failed while in use (link lost)
    │   └── LinkDown           the link was already down: the request was not sent
    ├── ShoeTimeout            no answer in time (also a built-in TimeoutError)
    ├── ShoeProtocolError      the shoe said something this host cannot accept (NAK, bad reply)
    │   └── ShoeDiscrepancy    two things the shoe said contradict each other (SPEC §6, host checks)
    └── ShoeFault              the shoe reports a device fault (jam, door open, ...): code and text
"""

from __future__ import annotations

from protocols.codes import FAULT_INFO, FaultCode, NakCode


class ShoeError(Exception):
    """Base of every error the drivers raise. ``hint`` tells a person what to do next."""

    hint: str = ""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        if hint is not None:
            self.hint = hint


class ShoeUnavailable(ShoeError):
    hint = (
        "check the cable and the port name (shoectl devices lists candidates), and that no other program holds the port"
    )


class BadPort(ShoeUnavailable):
    """The port URL itself is malformed (scheme, host, port number, options): a usage error, not a shoe
    that is away. ``shoectl`` exits 2 on it; shoed refuses its configuration."""

    hint = "write a device path or emu://, serial:///dev/ttyUSB0, socket://HOST:PORT, usb://VID:PID[/SERIAL]"


class ShoeInitError(ShoeError):
    hint = "check the shoe's firmware speaks protocol version 1 (shoectl identify)"


class ShoeAuthError(ShoeInitError):
    """No authenticated session with the shoe (SPEC §13): never a fall-back to plain frames.

    ``cause``: ``shoe-not-paired``, ``key-mismatch``, ``shoe-unauthenticated`` (a v1.0 shoe, or a plain
    one where the table is paired), ``host-not-paired`` (the shoe is paired, this host has no key). A shoe
    that answers nothing to HELLO is a :class:`ShoeTimeout`, as on a plain link: silence proves nothing."""

    hint = (
        "pair the shoe with this table: stop shoed, then `shoectl pair --port URL --key-file PATH` "
        "(docs/drivers.md, Pairing); a key mismatch after a host change needs re-pairing with the shoe's door open"
    )

    def __init__(self, cause: str, message: str, *, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.cause = cause


class ShoeIOError(ShoeError):
    hint = "the link dropped: check the cable; the controller reconnects and reconciles by itself"


class LinkDown(ShoeIOError):
    """The link was down when a request was to go out: nothing was sent, so asking anew is safe."""


class ShoeTimeout(ShoeError, TimeoutError):
    hint = "the shoe did not answer in time: check it is powered and connected, or raise the timeout"


class ShoeProtocolError(ShoeError):
    """The shoe refused a request (``nak`` set) or answered with something unexpected."""

    hint = "this is a host/shoe disagreement: note the message and report it with shoectl events output"

    def __init__(self, message: str, *, nak: NakCode | None = None, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.nak = nak


class ShoeFault(ShoeError):
    """A device fault, with its code and the technician's next step."""

    def __init__(self, code: FaultCode, message: str | None = None) -> None:
        info = FAULT_INFO[code]
        super().__init__(message or f"shoe fault {code.name}: {info.text}", hint=info.hint)
        self.code = code


class ShoeDiscrepancy(ShoeProtocolError):
    """Two things the shoe said contradict each other: a broken or lying shoe, or a man in the middle.

    The host never picks one version (SPEC §6, "What the host checks"): the stack is a misdeal and the
    discrepancy an alarm. ``cause`` is a short fixed word (``card-read-mismatch``, ``phase-not-started``,
    ``refused-but-moved``, ``counters-mismatch``, ``stored-result-mismatch``, ``boot-id-flapped``,
    ``unasked-cards``, ...); ``dispense_id`` the dispense concerned (None: none);
    ``moved`` how many cards the shoe's own stored result or counters say moved (None: unknown).
    """

    hint = (
        "the shoe contradicted itself: treat the stack as a misdeal and have a technician check the shoe and "
        "its cable (shoectl counters, shoectl events)"
    )

    def __init__(self, cause: str, message: str, *, dispense_id: int | None = None, moved: int | None = None) -> None:
        super().__init__(f"shoe discrepancy ({cause}): {message}")
        self.cause = cause
        self.detail = message
        self.dispense_id = dispense_id
        self.moved = moved
