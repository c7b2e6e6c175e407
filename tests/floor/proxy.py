"""A TCP proxy on loopback that a test can cut: every open connection reset, new ones refused, until
``restore()``. It stands between a shipper and the real PostgreSQL server as a network would."""

from __future__ import annotations

import contextlib
import socket
import struct
import threading


class CuttableProxy:
    def __init__(self, upstream_port: int, host: str = "127.0.0.1") -> None:
        self.upstream = (host, upstream_port)
        self._lock = threading.Lock()
        self._conns: list[socket.socket] = []
        self._threads: list[threading.Thread] = []
        self._listener: socket.socket | None = None
        self.port = 0
        self.bytes_up = 0
        self.cuts = 0
        self._cut_at_up: int | None = None  # cut once this many more bytes went up: mid-request
        self._cut_reply = False  # cut instead of forwarding the next reply: the server did it, the answer is lost
        self.restore()

    def cut_mid_request(self, after_bytes: int) -> None:
        """Cut the network once ``after_bytes`` more bytes of a request passed: the server has half a batch."""
        self._cut_at_up = self.bytes_up + after_bytes

    def cut_next_reply(self) -> None:
        """Cut the network instead of passing the server's next answer: it committed, the client never knows."""
        self._cut_reply = True

    def restore(self) -> None:
        with self._lock:
            if self._listener is not None:
                return
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("127.0.0.1", self.port))
            s.listen(64)
            self.port = s.getsockname()[1]
            self._listener = s
        self._start(self._accept, s)

    def _start(self, target: object, *args: object) -> None:
        t = threading.Thread(target=target, args=args, name="proxy", daemon=True)  # type: ignore[arg-type]
        self._threads.append(t)
        t.start()

    def cut(self) -> None:
        """The network gone: open connections reset (RST), new ones refused."""
        self.cuts += 1
        self._cut_at_up, self._cut_reply = None, False
        with self._lock:
            listener, self._listener = self._listener, None
            conns, self._conns = self._conns, []
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() blocked on it (a close alone does not)
            listener.close()
        for c in conns:
            with contextlib.suppress(OSError):
                c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                c.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                c.close()

    def close(self) -> None:
        self.cut()
        for t in self._threads:
            if t is not threading.current_thread():
                t.join(5)

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.upstream, timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                if self._listener is not listener:
                    client.close()
                    server.close()
                    return
                self._conns += [client, server]
            for a, b, up in ((client, server, True), (server, client, False)):
                self._start(self._pump, a, b, up)

    def _pump(self, src: socket.socket, dst: socket.socket, up: bool) -> None:
        try:
            while data := src.recv(65536):
                if up:
                    self.bytes_up += len(data)
                    if self._cut_at_up is not None and self.bytes_up >= self._cut_at_up:
                        dst.sendall(data[: max(0, len(data) - (self.bytes_up - self._cut_at_up))])
                        self.cut()
                        return
                elif self._cut_reply:
                    self.cut()
                    return
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.close()
