"""Start shoed as the README does (emulator shoe), check /v1/status answers, stop it with SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> int:
    shoed = Path(sys.executable).with_name("shoed")
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "SHOED_JOURNAL": str(Path(tmp) / "journal.sqlite")}
        proc = subprocess.Popen([str(shoed), "--http", f"127.0.0.1:{port}"], env=env, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/status", timeout=2) as r:
                        status = json.load(r)
                    if status["service"].get("state") != "starting":  # it answers status while it starts
                        break
                except OSError:
                    pass
                if time.monotonic() > deadline or proc.poll() is not None:
                    print("smoke: shoed did not come up", file=sys.stderr)
                    return 1
                time.sleep(0.2)
            assert status["shoe"]["link"] == "up", status
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
    print(f"smoke: shoed answered /v1/status with the shoe link up and stopped with exit {code}")
    return code


if __name__ == "__main__":
    sys.exit(main())
