"""The emulated shoe as a device another process can open: a pseudo-terminal or a TCP port.

``serve_pty(shoe, link=None)``: a pty pair (``os.openpty``, the slave in raw mode). Real pyserial opens
``server.path`` (``/dev/pts/N``) or the symlink ``link``. ``shoe.unplug()`` closes the master, so a
reader on the slave gets the error a pulled USB adapter gives ("device reports readiness to read but
returned no data"), and removes the symlink, as udev removes ``/dev/serial/by-id`` links; ``replug()``
opens a fresh pty (a new path) and points the symlink at it. The server holds the slave open itself,
so the master never sees EIO while no client is connected; pyserial flushes stale input on open.

``serve_tcp(shoe, host, port)``: one client at a time; a second connection is accepted and closed at
once (like an exclusive serial open). A client disconnect is not an unplug; ``unplug()`` drops the
client and refuses connections until ``replug()``. Bytes the shoe sends while no client is connected
are discarded.

Each server is one daemon thread waiting in ``select`` on its fds and on a wake-up pipe the shoe
signals when output is ready or the link changes, so there is no polling latency (output the shoe makes
while this thread hands it a request is read in the same pass, without the pipe). Writes never
block: bytes a reader does not take are held (at most 256 KiB, then the oldest are dropped).
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import threading
import tty
from collections.abc import Callable
from typing import Self

import structlog

from drivers.emulator.device import EmulatedShoe, EmulatorUnplugged

log = structlog.get_logger(__name__)
_PENDING_LIMIT = 256 * 1024
_SAFETY_POLL_S = 0.2


class _Server:
    """The shared loop: wake-ups from the shoe, link changes, pumping bytes both ways."""

    name = "shoe-emulator-server"

    def __init__(self, shoe: EmulatedShoe) -> None:
        self.shoe = shoe
        self._stop = threading.Event()
        self._pending = bytearray()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._generation = shoe.link_generation
        self._unsubscribe: Callable[[], None] = shoe.subscribe(self._wake)
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)

    def _wake(self) -> None:
        if threading.current_thread() is self._thread:
            return  # output made by this loop's own write to the shoe: _once reads it next (no pipe round trip)
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self._wake_w, b"x")

    # hooks
    def _link_up(self) -> None: ...
    def _link_down(self) -> None: ...
    def _fds(self) -> list[int]:
        return []

    def _readable(self, fd: int) -> None: ...
    def _out_fd(self) -> int | None:
        return None

    def _send(self, fd: int, data: bytes) -> int:
        return os.write(fd, data)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._once()
            except Exception:  # the server thread must survive a client's misbehaviour
                log.exception("emulator_server_error", server=self.name)
                self._stop.wait(0.05)
        self._link_down()

    def _once(self) -> None:
        plugged, generation = self.shoe.plugged, self.shoe.link_generation
        if generation != self._generation or not plugged:
            self._link_down()
            self._generation = generation
            self._pending.clear()
        if plugged:
            self._link_up()
        out_fd = self._out_fd()
        writers = [out_fd] if out_fd is not None and self._pending else []
        readable, writable, _ = select.select([self._wake_r, *self._fds()], writers, [], _SAFETY_POLL_S)
        if self._wake_r in readable:
            with contextlib.suppress(BlockingIOError):
                os.read(self._wake_r, 4096)
        for fd in readable:
            if fd != self._wake_r:
                self._readable(fd)
        try:
            data = self.shoe.host_read(0) if self.shoe.plugged else b""
        except EmulatorUnplugged:
            data = b""
        if self.shoe.plugged != plugged or self.shoe.link_generation != generation:
            with contextlib.suppress(BlockingIOError, OSError):  # changed during this pass: go round again
                os.write(self._wake_w, b"x")
        out_fd = self._out_fd()
        if out_fd is None:
            return  # nobody to send to: the bytes are lost, like a line nobody listens on
        if data and not self._pending:  # the usual case: nothing held back, send the answer as it is
            try:
                sent = self._send(out_fd, data)
            except (BlockingIOError, InterruptedError):
                sent = 0
            data = data[sent:]
            if not data:
                return
        self._pending += data
        if len(self._pending) > _PENDING_LIMIT:
            del self._pending[: len(self._pending) - _PENDING_LIMIT]
        if self._pending and (data or writable):
            try:
                sent = self._send(out_fd, bytes(self._pending))
                del self._pending[:sent]
            except (BlockingIOError, InterruptedError):
                pass

    def _to_shoe(self, data: bytes) -> None:
        with contextlib.suppress(EmulatorUnplugged):
            self.shoe.host_write(data)

    def close(self) -> None:
        self._stop.set()
        self._wake()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=2.0)
        if not self._thread.is_alive():
            self._link_down()  # idempotent: the thread did it, unless it never started
        self._unsubscribe()
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class PtyServer(_Server):
    name = "shoe-emulator-pty"

    def __init__(self, shoe: EmulatedShoe, link: str | None = None) -> None:
        super().__init__(shoe)
        self.link = link
        self.path = ""
        self._master: int | None = None
        self._slave: int | None = None
        try:
            if shoe.plugged:
                self._link_up()
        except OSError:
            self.close()
            raise
        self._thread.start()

    def _link_up(self) -> None:
        if self._master is not None:
            return
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave, self.path = master, slave, os.ttyname(slave)
        if self.link:
            temporary = f"{self.link}.{os.getpid()}.tmp"
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
            os.symlink(self.path, temporary)
            os.replace(temporary, self.link)
        log.info("emulator_pty_open", path=self.path, link=self.link)

    def _link_down(self) -> None:
        if self._master is None:
            return
        for fd in (self._master, self._slave):
            with contextlib.suppress(OSError):
                os.close(fd)  # type: ignore[arg-type]
        self._master = self._slave = None
        if self.link and os.path.islink(self.link) and os.readlink(self.link) == self.path:
            os.unlink(self.link)
        log.info("emulator_pty_closed", path=self.path)

    def _fds(self) -> list[int]:
        return [] if self._master is None else [self._master]

    def _out_fd(self) -> int | None:
        return self._master

    def _readable(self, fd: int) -> None:
        try:
            data = os.read(fd, 4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:  # EIO: no slave open (cannot happen while we hold it, but be safe)
            return
        if data:
            self._to_shoe(data)


class TcpServer(_Server):
    name = "shoe-emulator-tcp"

    def __init__(self, shoe: EmulatedShoe, host: str = "127.0.0.1", port: int = 0) -> None:
        self._listener = socket.create_server((host, port))
        super().__init__(shoe)
        self._listener.setblocking(False)
        address = self._listener.getsockname()
        self.address: tuple[str, int] = (str(address[0]), int(address[1]))
        self._client: socket.socket | None = None
        self._thread.start()

    def _link_down(self) -> None:
        self._drop_client("unplugged")

    def _drop_client(self, why: str) -> None:
        if self._client is not None:
            with contextlib.suppress(OSError):
                self._client.close()
            self._client = None
            self._pending.clear()
            log.info("emulator_tcp_client_gone", address=self.address, why=why)

    def _fds(self) -> list[int]:
        fds = [self._listener.fileno()]
        return fds if self._client is None else [*fds, self._client.fileno()]

    def _out_fd(self) -> int | None:
        return None if self._client is None else self._client.fileno()

    def _send(self, fd: int, data: bytes) -> int:
        assert self._client is not None
        try:
            return self._client.send(data)
        except (BlockingIOError, InterruptedError):
            return 0
        except OSError:
            self._drop_client("send failed")
            return len(data)

    def _readable(self, fd: int) -> None:
        if fd == self._listener.fileno():
            self._accept()
            return
        assert self._client is not None
        try:
            data = self._client.recv(4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if data:
            self._to_shoe(data)
        else:
            self._drop_client("client closed the connection")

    def _accept(self) -> None:
        try:
            conn, peer = self._listener.accept()
        except (BlockingIOError, InterruptedError):
            return
        if self._client is not None or not self.shoe.plugged:
            conn.close()  # one client at a time; nobody while unplugged
            log.info("emulator_tcp_refused", peer=str(peer))
            return
        conn.setblocking(False)
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._client = conn
        log.info("emulator_tcp_client", peer=str(peer))

    def close(self) -> None:
        super().close()
        self._drop_client("server closed")
        self._listener.close()


def serve_pty(shoe: EmulatedShoe, link: str | None = None) -> PtyServer:
    """Serve ``shoe`` on a new pseudo-terminal; ``server.path`` is the slave, ``link`` a stable symlink."""
    return PtyServer(shoe, link)


def serve_tcp(shoe: EmulatedShoe, host: str = "127.0.0.1", port: int = 0) -> TcpServer:
    """Serve ``shoe`` on TCP; ``server.address`` is (host, real port); connect with ``socket://``."""
    return TcpServer(shoe, host, port)
