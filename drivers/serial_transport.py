"""Serial ports and TCP sockets through pyserial.

``/dev/ttyUSB0``, ``serial:///dev/ttyACM0?baud=115200`` and ``socket://127.0.0.1:7000`` (pyserial's own
URL handler, for an emulator in another process). Device ports are opened exclusively (an advisory
``flock``: a second controller on the same shoe fails at once instead of stealing bytes).

pyserial facts this module relies on (see ``shared/docs/driver-notes.md``):
- "device reports readiness to read but returned no data" means the adapter vanished or another
  process reads the port: both are link loss here.
- ``read(n)`` with a timeout may return fewer bytes; frame timing is the deframer's job.
- ``cancel_read()`` wakes a blocked reader; socket ports lack it, and closing them wakes the reader.

A device port's ``read(timeout)`` waits in one ``select`` on the port's descriptor and a wake-up pipe
that ``close`` writes to, for the whole ``timeout``: an idle link sleeps instead of polling every 50 ms
(an idle table wakes rarely), and ``wakes_on_close`` tells the link it may wait long; it then reads what is waiting with
one ``os.read`` on pyserial's descriptor (``fileno()``), and writes with one ``os.write``, falling back
to pyserial's write only for what the kernel did not take: pyserial's own read and write each add
``select`` and ``ioctl`` calls per request. A write is not drained (no ``tcdrain`` per write): the bytes
are in the kernel's buffer when ``write`` returns, and a port that vanished fails that write or the next
read all the same. Socket ports keep the bounded poll.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import socket
import time
import weakref
from urllib.parse import parse_qs, urlsplit

import serial

from drivers.errors import BadPort, ShoeIOError, ShoeUnavailable
from drivers.transport import Transport

try:  # tcdrain on a vanished pty raises termios.error, which is not an OSError
    from termios import error as _termios_error
except ImportError:  # pragma: no cover - not POSIX
    _termios_error = OSError  # type: ignore[assignment,misc]

_PORT_ERRORS = (serial.SerialException, OSError, AttributeError, TypeError, ValueError, _termios_error)
"""What pyserial lets escape when a port vanishes or is closed under a read (AttributeError, TypeError,
ValueError: select on a closed socket)."""

DEFAULT_BAUD = 115_200
POLL_INTERVAL = 0.05
"""Upper bound on one blocking pyserial read, so ``read(timeout)`` and ``close`` stay responsive."""
READ_CHUNK = 65536
"""At most this many bytes per device read: more than a burst of events holds (the pty buffer is 4 KiB)."""
_VANISHED = "device reports readiness to read but returned no data (device disconnected or multiple access on port?)"


def parse_serial_url(url: str) -> tuple[str, int]:
    """Return (pyserial port name, baud rate) for a device path, ``serial://`` or ``socket://`` URL."""
    if "://" not in url:
        return url, DEFAULT_BAUD
    parts = urlsplit(url)
    if parts.scheme == "socket":
        _check_socket_url(url)
        return url, DEFAULT_BAUD
    query = parse_qs(parts.query)
    unknown = set(query) - {"baud"}
    if unknown:
        raise BadPort(
            f"port {url!r}: unknown option(s) {', '.join(sorted(unknown))}",
            hint="serial:// takes only ?baud=N, e.g. serial:///dev/ttyUSB0?baud=115200",
        )
    try:
        baud = int(query.get("baud", [str(DEFAULT_BAUD)])[-1])
    except ValueError:
        raise BadPort(f"port {url!r}: baud must be a whole number", hint="e.g. ?baud=115200") from None
    path = (parts.netloc + parts.path) or ""
    if not path:
        raise BadPort(f"port {url!r} names no device", hint="e.g. serial:///dev/ttyUSB0")
    return path, baud


SOCKET_HINT = "write socket://HOST:PORT with a port 1..65535, e.g. socket://127.0.0.1:7000"


def _check_socket_url(url: str) -> None:
    """``socket://HOST:PORT`` or BadPort (pyserial fails on others with a TypeError or a log-level text)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise BadPort(f"port {url!r}: the port number is not 1..65535", hint=SOCKET_HINT) from None
    if not parts.hostname:
        raise BadPort(f"port {url!r} names no host", hint=SOCKET_HINT)
    if port is None or not 1 <= port <= 65535:
        raise BadPort(f"port {url!r} names no port number", hint=SOCKET_HINT)
    if parts.path.strip("/") or parts.query or parts.fragment:
        raise BadPort(f"port {url!r}: socket:// takes no path or options", hint=SOCKET_HINT)


class SerialTransport(Transport):
    """A pyserial port as a transport."""

    def __init__(self, url: str) -> None:
        self.url = url
        port, baud = parse_serial_url(url)
        is_socket = port.startswith("socket://")
        try:
            if is_socket:
                self._port = serial.serial_for_url(port, timeout=POLL_INTERVAL)
                _no_delay(self._port)
            else:
                self._port = serial.serial_for_url(
                    port, baudrate=baud, timeout=POLL_INTERVAL, write_timeout=2.0, exclusive=True
                )
        except (serial.SerialException, OSError, ValueError) as exc:
            raise _unavailable(url, exc) from exc
        self._closed = False
        """Set once by ``close`` (a bool: read on every read, where an Event's ``is_set`` is a Python call)."""
        self._fd: int | None = None if is_socket else self._port.fileno()
        self._wake: tuple[int, int] | None = None
        if self._fd is not None:
            self._wake = os.pipe()
            os.set_blocking(self._wake[1], False)
            weakref.finalize(self, _close_fds, self._wake)  # not at close(): a reader may still select on it
        self.wakes_on_close = self._fd is not None
        """``read`` returns as soon as ``close`` is called, however long its timeout (the link waits long)."""

    def write(self, data: bytes) -> None:
        try:
            if self._fd is not None:
                # One os.write on the (non-blocking) descriptor: pyserial's write adds a select per
                # write to wait for room; only what the kernel did not take goes through it. The
                # descriptor is pyserial's of now: None once closed (a number may be reused then).
                fd = self._port.fd
                if fd is None:
                    raise ShoeIOError(f"write to {self.url} failed: the port is closed")
                try:
                    sent = os.write(fd, data)
                except BlockingIOError:
                    sent = 0
                if sent == len(data):
                    return
                data = data[sent:]
            self._port.write(data)
        except _PORT_ERRORS as exc:
            raise ShoeIOError(f"write to {self.url} failed: {exc}") from exc

    def read(self, timeout: float) -> bytes:
        if self._fd is not None and self._wake is not None:
            return self._read_device(self._fd, self._wake[0], timeout)
        deadline = time.monotonic() + timeout
        while True:
            if self._closed:
                return b""
            try:
                first = self._port.read(1)
                if first:
                    waiting = self._port.in_waiting
                    return first + (self._port.read(waiting) if waiting else b"")
            except _PORT_ERRORS as exc:
                if self._closed_meanwhile():
                    return b""
                raise ShoeIOError(f"read from {self.url} failed: {exc}") from exc
            if time.monotonic() >= deadline:
                return b""

    def _read_device(self, fd: int, wake: int, timeout: float) -> bytes:
        """One select on the port and the wake-up pipe; then what is waiting, in one ``os.read``."""
        if self._closed:
            return b""
        try:
            ready, _, _ = select.select([fd, wake], [], [], max(timeout, 0.0))
            if self._closed or not ready or wake in ready:
                return b""
            port_fd = self._port.fd  # None once closed (its number may be reused by then)
            if port_fd is None:
                return b""
            data = os.read(port_fd, READ_CHUNK)  # what is waiting, in one call (pyserial's read adds two)
        except (InterruptedError, BlockingIOError):
            return b""
        except _PORT_ERRORS as exc:
            if self._closed_meanwhile():
                return b""
            raise ShoeIOError(f"read from {self.url} failed: {exc}") from exc
        if not data and not self._closed:
            # Readable with nothing to read is a vanished adapter (pyserial's words for it).
            raise ShoeIOError(f"read from {self.url} failed: {_VANISHED}")
        return data

    def _closed_meanwhile(self) -> bool:
        """Whether ``close`` ran during the read that just failed (another thread sets the flag,
        which a type checker's narrowing of ``self._closed`` cannot know)."""
        return self._closed

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._wake is not None:
            with contextlib.suppress(OSError):
                os.write(self._wake[1], b"x")
        cancel = getattr(self._port, "cancel_read", None)
        if cancel is not None:
            with contextlib.suppress(serial.SerialException, OSError):
                cancel()
        with contextlib.suppress(serial.SerialException, OSError):
            self._port.close()


def _close_fds(fds: tuple[int, ...]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def _no_delay(port: object) -> None:
    """Disable Nagle on pyserial's socket: small request frames would otherwise wait ~40 ms for
    the peer's delayed ACK. pyserial keeps the socket in ``_socket`` and offers no option for this."""
    sock = getattr(port, "_socket", None)
    if isinstance(sock, socket.socket):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _unavailable(url: str, exc: BaseException) -> ShoeUnavailable:
    text = str(exc)
    code = getattr(exc, "errno", None)
    if "exclusively lock" in text or code in (errno.EBUSY, errno.EAGAIN):
        return ShoeUnavailable(
            f"port {url} is held by another program: {text}",
            hint="stop the other program (is shoed running? see: fuser -v PORT), then retry",
        )
    if code == errno.EACCES or "Permission denied" in text:
        return ShoeUnavailable(
            f"no permission to open {url}: {text}",
            hint="install udev/60-card-shoe.rules and add this user to the shoe's group (shoectl doctor)",
        )
    return ShoeUnavailable(f"cannot open {url}: {text}")


def open_serial(url: str) -> Transport:
    return SerialTransport(url)
