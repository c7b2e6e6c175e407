"""systemd notification (``sd_notify``) with the standard library only.

``Type=notify`` units get ``$NOTIFY_SOCKET`` (a path, or ``@name`` for the abstract namespace); a unit
with ``WatchdogSec=`` also gets ``$WATCHDOG_USEC`` (and ``$WATCHDOG_PID``). Outside systemd every call
is a no-op, so the same code runs in a terminal and in tests.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable, Mapping

import structlog

__all__ = ["Notifier", "Watchdog"]

log = structlog.get_logger("shoe.service.notify")


class Notifier:
    """Sends ``READY=1``, ``WATCHDOG=1``, ``STOPPING=1``, ``STATUS=...`` to systemd when it listens."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        self.address = env.get("NOTIFY_SOCKET") or None
        self.watchdog_usec = _watchdog_usec(env)

    @property
    def enabled(self) -> bool:
        return self.address is not None

    @property
    def watchdog_interval(self) -> float | None:
        """Seconds between ``WATCHDOG=1`` pings: half of ``WatchdogSec``; ``None`` without a watchdog."""
        return None if self.watchdog_usec is None else self.watchdog_usec / 2_000_000

    def send(self, *lines: str) -> bool:
        if self.address is None:
            return False
        address = self.address
        target = "\0" + address[1:] if address.startswith("@") else address
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                sock.connect(target)
                sock.sendall("\n".join(lines).encode("utf-8"))
        except OSError as exc:
            log.warning("sd_notify failed", socket=address, error=str(exc))
            return False
        return True

    def ready(self, status: str = "") -> bool:
        return self.send("READY=1", *([f"STATUS={status}"] if status else []))

    def watchdog(self) -> bool:
        return self.send("WATCHDOG=1")

    def stopping(self) -> bool:
        return self.send("STOPPING=1")

    def status(self, text: str) -> bool:
        return self.send(f"STATUS={text}")


def _watchdog_usec(env: Mapping[str, str]) -> int | None:
    raw = env.get("WATCHDOG_USEC")
    pid = env.get("WATCHDOG_PID")
    if not raw or (pid and pid.isdigit() and int(pid) != os.getpid()):
        return None
    try:
        value = int(raw)
    except ValueError:
        return None
    return value if value > 0 else None


class Watchdog:
    """A daemon thread that pings the watchdog while ``healthy()`` says the service still works.

    A wedged service stops pinging, and systemd restarts it (``Restart=on-watchdog`` or ``always``).
    """

    def __init__(self, notifier: Notifier, healthy: Callable[[], bool]) -> None:
        self.notifier = notifier
        self.healthy = healthy
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        interval = self.notifier.watchdog_interval
        if interval is None or not self.notifier.enabled:
            return
        self._thread = threading.Thread(target=self._run, args=(interval,), name="shoed-watchdog", daemon=True)
        self._thread.start()

    def _run(self, interval: float) -> None:
        while not self._stop.wait(interval):
            if self.healthy():
                self.notifier.watchdog()
            else:
                log.error("service unresponsive; withholding the watchdog ping")

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
