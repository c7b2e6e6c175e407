"""One byte-stream interface for every link, and the lookup of a backend by the port URL's scheme.

A backend implements ``write``, ``read`` and ``close``; it raises only ``drivers.errors`` exceptions.
Backends are imported lazily, so pyusb is imported only when a ``usb://`` port is opened.

A port URL's options are configuration secrets (``emu://?deck=...`` is the deck, ``emu://?seed=...``
predicts it): whatever shows a port to a person (status, logs, error messages) shows
:func:`redact_port` of it.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable
from urllib.parse import urlsplit

from drivers.errors import BadPort, ShoeUnavailable  # noqa: F401  (callers catch transport.ShoeUnavailable)


class Transport(ABC):
    """A bidirectional byte stream to one shoe."""

    url: str

    @abstractmethod
    def write(self, data: bytes) -> None:
        """Send all of ``data``. Raises ``ShoeIOError`` when the link is gone."""

    @abstractmethod
    def read(self, timeout: float) -> bytes:
        """Return the bytes available within ``timeout`` seconds; ``b""`` when none came (normal).

        Raises ``ShoeIOError`` when the link is gone.
        """

    @abstractmethod
    def close(self) -> None:
        """Release the port. Idempotent; wakes a reader blocked in ``read``."""

    def reopen(self) -> Transport:
        """Open the same port again after a link loss (a replugged adapter, a restarted emulator)."""
        return open_transport(self.url)

    def __enter__(self) -> Transport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


Opener = Callable[[str], Transport]

# scheme -> "module:function"; the module is imported on first use only.
_BACKENDS: dict[str, str] = {
    "serial": "drivers.serial_transport:open_serial",
    "socket": "drivers.serial_transport:open_serial",
    "usb": "drivers.usb_transport:open_usb",
    "emu": "drivers.emu_transport:open_emulator",
}
# scheme -> "module:function" that parses a URL of that scheme as its opener does, opening nothing.
_CHECKERS: dict[str, str] = {
    "serial": "drivers.serial_transport:parse_serial_url",
    "socket": "drivers.serial_transport:parse_serial_url",
    "usb": "drivers.usb_discovery:parse_usb_url",
    "emu": "drivers.emu_transport:emulator_config",
}


def redact_port(url: str) -> str:
    """A port URL as it may be shown: scheme, host and path; never its options, fragment or credentials.

    ``emu://?deck=AsKd...`` -> ``emu://``; ``serial:///dev/ttyUSB0?baud=9600`` -> ``serial:///dev/ttyUSB0``;
    ``usb://1209:0001/EMU0001`` and ``/dev/ttyUSB0`` unchanged. Options are configuration secrets (the
    emulator's deck and seed give away every card), so nothing after ``?`` or ``#`` is ever kept.
    """
    bare = url.split("?", 1)[0].split("#", 1)[0]
    if "://" not in bare:
        return bare
    scheme, _, rest = bare.partition("://")
    netloc, slash, path = rest.partition("/")
    host = netloc.rpartition("@")[2]  # never user:password@
    return f"{scheme}://{host}{slash}{path}"


def shown_port_text(text: str, url: str) -> str:
    """``text`` (an error message, a hint) with every mention of the port ``url`` redacted."""
    shown = redact_port(url)
    return text.replace(url, shown) if url and url != shown else text


def scheme_of(url: str) -> str:
    """The backend scheme of a port URL; a bare device path (``/dev/ttyUSB0``, ``COM3``) is serial."""
    if "://" not in url:
        return "serial"
    return urlsplit(url).scheme.lower()


def _lookup(table: dict[str, str], url: str) -> Callable[[str], object]:
    scheme = scheme_of(url)
    target = table.get(scheme)
    if target is None:
        known = ", ".join(f"{s}://" for s in sorted(table))
        raise BadPort(
            f"port {redact_port(url)!r}: unknown scheme {scheme!r}", hint=f"use a device path or one of {known}"
        )
    module_name, func_name = target.split(":")
    function: Callable[[str], object] = getattr(importlib.import_module(module_name), func_name)
    return function


def check_port(url: str) -> None:
    """Raise ``BadPort`` unless the port URL is well formed (scheme, host, port number, options), opening nothing.

    The same parsers the backends open with (``shoectl``'s usage errors): a URL that passes here can fail
    to open only for want of a shoe. ``shoed`` checks its configured port with it at start.
    """
    try:
        _lookup(_CHECKERS, url)(url)
    except ValueError as exc:  # a parser's own error that is not yet a BadPort
        raise BadPort(f"port {redact_port(url)!r}: {exc}") from None


def open_transport(url: str) -> Transport:
    """Open the transport a port URL names: a device path, ``serial://``, ``socket://``, ``usb://``, ``emu://``."""
    opener: Opener = _lookup(_BACKENDS, url)  # type: ignore[assignment]
    return opener(url)
