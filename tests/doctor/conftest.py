"""A fake machine in ``tmp_path`` (udev rules dir, sysfs, /dev, /proc, /etc/group, journal) and a tiny real
HTTP server on 127.0.0.1:0 standing in for shoed."""

from __future__ import annotations

import http.server
import json
import os
import shutil
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from shoe.doctor import Context
from shoe.udev_rules import shipped_rules_path

GID = os.getgid()  # files we create carry this gid, so the fake group file names it "cardshoe"


def closed_port_url() -> str:
    """A loopback URL nothing listens on: bind, note the port, close."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@dataclass
class Machine:
    root: Path

    def __post_init__(self) -> None:
        for d in ("etc/udev/rules.d", "sys", "dev", "proc", "state"):
            (self.root / d).mkdir(parents=True)
        self.groups(f"root:x:0:\ncardshoe:x:{GID}:alice,bob\n")

    def context(self, **overrides: Any) -> Context:
        ctx = Context(
            rules_dir=self.root / "etc/udev/rules.d",
            shipped_rules=shipped_rules_path(),
            sysfs_root=self.root / "sys",
            dev_root=self.root / "dev",
            proc_root=self.root / "proc",
            group_file=self.root / "etc/group",
            journal=self.root / "state/journal.sqlite",
            service_url=closed_port_url(),
            user="alice",
            uid=os.getuid() or 1000,
            gid=GID + 1,
            process_gids=frozenset({GID}),
        )
        return replace(ctx, **overrides)

    def groups(self, text: str) -> None:
        (self.root / "etc/group").write_text(text)

    def install_rules(self, text: str | None = None) -> Path:
        target = self.root / "etc/udev/rules.d/60-card-shoe.rules"
        if text is None:
            shutil.copyfile(shipped_rules_path(), target)
        else:
            target.write_text(text)
        return target

    def process(self, pid: int, comm: str) -> None:
        (self.root / "proc" / str(pid)).mkdir()
        (self.root / "proc" / str(pid) / "comm").write_text(comm + "\n")

    def device(self, name: str, mode: int) -> Path:
        node = self.root / "dev" / name.replace("cardshoe", "ttyACM")
        node.write_text("")
        node.chmod(mode)
        (self.root / "dev" / name).symlink_to(node.name)
        return node

    def usb_serial(self, port: str, ids: tuple[str, str], latency: int | None) -> Path:
        """sysfs as the kernel lays it out: bus/usb-serial/devices/PORT -> devices/.../1-1/1-1:1.0/PORT."""
        usb = self.root / "sys/devices/pci0000:00/usb1" / f"1-{port[-1]}"
        iface = usb / f"1-{port[-1]}:1.0" / port
        iface.mkdir(parents=True)
        (usb / "idVendor").write_text(ids[0] + "\n")
        (usb / "idProduct").write_text(ids[1] + "\n")
        if latency is not None:
            (iface / "latency_timer").write_text(f"{latency}\n")
        bus = self.root / "sys/bus/usb-serial/devices"
        bus.mkdir(parents=True, exist_ok=True)
        (bus / port).symlink_to(os.path.relpath(iface, bus))
        return iface / "latency_timer"

    def journal(self, mode: int, suffix: str = "") -> Path:
        path = self.root / "state" / f"journal.sqlite{suffix}"
        path.write_bytes(b"SQLite format 3\x00")
        path.chmod(mode)
        return path


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    return Machine(tmp_path)


class _Handler(http.server.BaseHTTPRequestHandler):
    status = 200

    def do_GET(self) -> None:
        code = self.status if self.path == "/v1/status" else 404
        body = json.dumps({"service": "shoed", "shoe": "ready"}).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def shoed() -> Iterator[tuple[str, type[_Handler]]]:
    """A server answering GET /v1/status; set ``handler.status`` to change the answer."""
    handler = type("Handler", (_Handler,), {"status": 200})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", handler
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
