"""The umockdev bus (``umockdev_bus.py``) seen from the tests: start it, plug and unplug shoes, and the
environment a process needs to reach it through real libusb.

The bus runs under Debian's ``/usr/bin/python3`` (``$SHOE_USB_PYTHON`` overrides it), the one Python with
umockdev's GObject bindings; the process under test (``shoectl``, ``shoed``, a child pytest) runs in this
virtual environment with ``UMOCKDEV_DIR`` and ``LD_PRELOAD`` from ``env()``, set before it starts: the
preload library must be there when libusb is loaded. ``SHOE_USB_TESTS=required`` (set by ``.ci/run``)
turns a missing package into a failure instead of a skip.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PRELOAD = "libumockdev-preload.so.0"
PACKAGES = "umockdev gir1.2-umockdev-1.0 python3-gi libusb-1.0-0"
INSTALL_HINT = f"install Debian's {PACKAGES} (sudo apt-get install {PACKAGES})"
REQUIRED = os.environ.get("SHOE_USB_TESTS") == "required"


def system_python() -> str:
    return os.environ.get("SHOE_USB_PYTHON", "/usr/bin/python3")


def missing() -> str | None:
    """Why the libusb tests cannot run here, or None."""
    python = system_python()
    if not Path(python).exists():
        return f"no {python}"
    if shutil.which("umockdev-wrapper") is None:
        return "no umockdev-wrapper"
    probe = subprocess.run(
        [python, "-c", 'import gi; gi.require_version("UMockdev", "1.0"); from gi.repository import UMockdev'],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    if probe.returncode:
        return f"umockdev's GObject bindings are not importable by {python}: {probe.stderr.strip().splitlines()[-1:]}"
    libs = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True, text=True, timeout=30, check=False).stdout
    for lib in (PRELOAD, "libusb-1.0.so.0"):
        if lib not in libs:
            return f"{lib} is not installed"
    return None


def require_or_skip() -> None:
    reason = missing()
    if reason is None:
        return
    message = f"the libusb tests need umockdev: {reason}; {INSTALL_HINT}"
    if REQUIRED:
        pytest.fail(message + " (SHOE_USB_TESTS=required)")
    pytest.skip(message)


@dataclass(frozen=True)
class Plugged:
    syspath: str
    devnode: str
    serial: str

    @property
    def url(self) -> str:
        return f"usb://1209:0001/{self.serial}"


class Bus:
    """A running umockdev bus. ``close()`` ends it (its testbed directory goes with it)."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            # Under umockdev's preload itself: the testbed's uevents reach libudev through it.
            ["umockdev-wrapper", system_python(), str(HERE / "umockdev_bus.py")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")},
        )  # fmt: skip
        assert self.process.stdout is not None
        line = self.process.stdout.readline().split()
        if line[:1] != ["ready"]:
            self.process.kill()
            _, err = self.process.communicate(timeout=10)
            raise RuntimeError(f"the umockdev bus did not start: {line} {err}")
        self.root, self.socket_path = line[1], line[2]

    def command(self, line: str) -> str:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(30)
            conn.connect(self.socket_path)
            conn.sendall(line.encode() + b"\n")
            answer = conn.makefile(encoding="utf-8").readline().strip()
        if not answer.startswith("ok"):
            raise RuntimeError(f"umockdev bus: {line!r} -> {answer!r}")
        return answer

    def plug(self, tcp: tuple[str, int], serial: str) -> Plugged:
        _, syspath, devnode = self.command(f"plug {tcp[0]}:{tcp[1]} {serial}").split()
        return Plugged(syspath, devnode, serial)

    def unplug(self, device: Plugged) -> None:
        self.command(f"unplug {device.syspath}")

    def stats(self, device: Plugged) -> tuple[int, int, int]:
        ioctls, out, into = self.command(f"stats {device.syspath}").split()[1:]
        return int(ioctls), int(out), int(into)

    def env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        env = dict(os.environ if base is None else base)
        env.update(UMOCKDEV_DIR=self.root, LD_PRELOAD=PRELOAD, SHOE_USB_BUS=self.socket_path)
        return env

    def close(self) -> str:
        """End the bus; returns what it wrote on stderr (a handler's traceback, for a failing test)."""
        try:  # communicate closes the bus's stdin: its main loop ends
            _, err = self.process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, err = self.process.communicate(timeout=10)
        shutil.rmtree(Path(self.socket_path).parent, ignore_errors=True)
        return err or ""


def connect_to_running_bus() -> Bus:
    """In a process started with ``Bus.env()``: the bus that started it (plug and unplug from here)."""
    bus = Bus.__new__(Bus)
    bus.root, bus.socket_path = os.environ["UMOCKDEV_DIR"], os.environ["SHOE_USB_BUS"]
    return bus


def venv_python() -> str:
    return sys.executable
