"""The suite's leak check (tests/conftest.py ``_no_leaks``) fails a test that leaves a thread, a listening
socket or a running child process behind, and passes one whose thread ends within the grace.

The cases run under the real conftest (its grace cut to 0.5 s) in one separate pytest process.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

CONFTEST = Path(__file__).with_name("conftest.py")
CASES = '''
import os, socket, subprocess, tempfile, threading, time

KEEP = []

def test_thread():
    threading.Thread(target=threading.Event().wait, name="forgotten", daemon=True).start()

def test_tcp():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); KEEP.append(s)

def test_unix():
    s = socket.socket(socket.AF_UNIX); s.bind(os.path.join(tempfile.mkdtemp(), "s")); s.listen(); KEEP.append(s)

def test_child():
    p = subprocess.Popen(["sleep", "30"])
    with open(os.environ["PID_FILE"], "w") as f:
        f.write(str(p.pid))

def test_a_thread_that_ends_within_the_grace():
    threading.Thread(target=time.sleep, args=(0.2,), name="ending").start()

def test_a_connected_socket_is_not_a_listening_one():
    server = socket.socket(); server.bind(("127.0.0.1", 0)); server.listen()
    KEEP.append(socket.create_connection(server.getsockname()))
    server.close()
'''
EXPECTED = {
    "test_thread": "thread 'forgotten'",
    "test_tcp": "listening socket: tcp port",
    "test_unix": "listening socket: unix",
    "test_child": "child process",
}


def test_a_test_that_leaves_something_behind_fails(tmp_path: Path) -> None:
    conftest = CONFTEST.read_text()
    assert "LEAK_GRACE_S = 2.0\n" in conftest
    (tmp_path / "conftest.py").write_text(conftest.replace("LEAK_GRACE_S = 2.0\n", "LEAK_GRACE_S = 0.5\n"))
    (tmp_path / "test_cases.py").write_text(textwrap.dedent(CASES))
    pid = tmp_path / "pid"
    try:
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_cases.py"],
            cwd=tmp_path,
            env={**os.environ, "PID_FILE": str(pid)},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        if pid.exists():
            os.kill(int(pid.read_text()), signal.SIGKILL)
    out = result.stdout
    assert result.returncode == 1, out
    assert "6 passed, 4 errors" in out, out
    for test, what in EXPECTED.items():
        section = out.split(f"ERROR at teardown of {test} _", 1)[1].split("\n_", 1)[0]
        assert f"test_cases.py::{test} left behind" in section and what in section, section
