"""The ``shoed`` entry point as a process: readiness, the HTTP layer, SIGTERM, a clean stop entry."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from drivers.emulator import EmulatedShoe, EmulatorConfig, serve_pty
from shoe.journal import Journal
from shoe.shoed import build_parser, main
from tests.service.conftest import deck

ROOT = Path(__file__).resolve().parents[2]


def _shoed(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "shoe.shoed", *args],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_sigterm_finishes_and_journals_a_clean_stop(tmp_path: Path) -> None:
    journal = tmp_path / "journal.sqlite"
    notify = tmp_path / "notify.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(notify))
        sock.settimeout(30)
        proc = _shoed(tmp_path, "--port", "emu://?seed=5", "--journal", str(journal), "--http", "127.0.0.1:0",
                      env={"NOTIFY_SOCKET": str(notify), "WATCHDOG_USEC": "400000"})  # fmt: skip
        lines: list[dict[str, Any]] = []
        assert proc.stderr is not None
        reader = threading.Thread(target=lambda: lines.extend(json.loads(x) for x in proc.stderr or ()), daemon=True)
        reader.start()
        try:
            assert sock.recv(256).startswith(b"READY=1\nSTATUS=serving table table-1")
            assert sock.recv(64) == b"WATCHDOG=1"
            ready = next(x for x in list(lines) if x.get("event") == "service ready")
            if ready["http"]:  # the HTTP layer is installed: it answers for the service
                with urllib.request.urlopen(ready["http"] + "/v1/status", timeout=10) as reply:
                    assert json.load(reply)["shoe"]["link"] == "up"
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=30) == 0
            messages = []
            while (message := sock.recv(64)) != b"STOPPING=1":
                messages.append(message)
            assert set(messages) <= {b"WATCHDOG=1"}
        finally:
            proc.kill()
            proc.wait()
    reader.join(timeout=5)
    with Journal.open(journal) as j:
        kinds = [(e.kind, e.data.get("event")) for e in j.entries()]
        assert j.verify().ok
    assert kinds[0] == ("service", "start") and kinds[-1] == ("service", "stop")
    assert all(line.get("level") for line in lines)  # JSON lines when stderr is not a terminal


def test_a_bad_configuration_exits_2(tmp_path: Path, capsys: Any) -> None:
    assert main(["--http", "0.0.0.0:8470", "--journal", str(tmp_path / "j.sqlite")]) == 2
    err = capsys.readouterr().err
    assert "[http] host" in err and "add tokens or bind 127.0.0.1" in err
    config = tmp_path / "shoed.toml"
    config.write_text('[http]\nport = "abc"\n')
    assert main(["--config", str(config)]) == 2
    assert '[http] port: "abc" is not a port number: use 1-65535' in capsys.readouterr().err


def test_an_unusable_journal_exits_1(tmp_path: Path, capsys: Any) -> None:
    journal = tmp_path / "journal.sqlite"
    journal.write_text("")
    journal.chmod(0o644)
    assert main(["--journal", str(journal), "--http", "127.0.0.1:0"]) == 1
    assert "chmod 600" in capsys.readouterr().err


def test_options() -> None:
    args = build_parser().parse_args(["--config", "a.toml", "--port", "emu://", "--journal", "j", "--http", "h:1"])
    assert (str(args.config), args.port, args.journal, args.http) == ("a.toml", "emu://", "j", "h:1")


def _http(url: str, method: str = "GET", body: dict[str, Any] | None = None) -> dict[str, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=20) as reply:
        return dict(json.load(reply))


def _ready(proc: subprocess.Popen[str]) -> str:
    assert proc.stderr is not None
    for line in proc.stderr:
        event = json.loads(line)
        if event.get("event") == "service ready":
            threading.Thread(target=lambda: [*proc.stderr], daemon=True).start()  # type: ignore[misc]
            return str(event["http"])
    raise AssertionError(f"shoed exited with {proc.wait()}")


@pytest.mark.skipif(importlib.util.find_spec("shoe.api") is None, reason="the HTTP layer is not installed")
def test_kill_9_mid_round_then_restart_resumes(tmp_path: Path) -> None:
    shoe = EmulatedShoe(EmulatorConfig(deck=deck()))
    link = tmp_path / "ttyshoe"
    server = serve_pty(shoe, link=str(link))
    args = ("--port", str(link), "--journal", str(tmp_path / "journal.sqlite"), "--http", "127.0.0.1:0")
    procs = [_shoed(tmp_path, *args)]
    try:
        url = _ready(procs[0])
        seats = [{"seat": 1, "ante": 500}, {"seat": 4, "ante": 800}]
        _http(url + "/v1/rounds", "POST", {"game": "mississippi-stud", "jurisdiction": "NY", "seats": seats})
        _http(url + "/v1/round/no-more-bets", "POST", {})
        _http(url + "/v1/round/deal", "POST", {})
        procs[0].send_signal(signal.SIGKILL)
        assert procs[0].wait(timeout=10) == -signal.SIGKILL
        procs.append(_shoed(tmp_path, *args))
        url = _ready(procs[1])
        assert _http(url + "/v1/round")["round"]["state"] == "dealing-stacks"
        assert _http(url + "/v1/round/release-stub", "POST", {})["count"] == 48
        procs[1].send_signal(signal.SIGTERM)
        assert procs[1].wait(timeout=30) == 0
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()
        server.close()
        shoe.close()
    assert shoe.stats.cards_moved == 4
    with Journal.open(tmp_path / "journal.sqlite") as journal:
        irregular = [(e.data["action"], e.data.get("cause")) for e in journal.entries(kinds=("irregularity",))]
        assert journal.verify().ok
    assert irregular == [("paused", "table-pc-restart"), ("resumed", None)]


def test_the_systemd_unit() -> None:
    import configparser

    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read(ROOT / "deploy" / "shoed.service")
    service = unit["Service"]
    assert service["Type"] == "notify" and service["NotifyAccess"] == "main"
    assert int(service["WatchdogSec"]) > 60 and service["Restart"] == "on-failure"
    assert (service["User"], service["Group"]) == ("shoe", "shoe")
    assert service["ExecStart"].startswith("/opt/shoed/current/bin/shoed ")  # the release in service
    assert service["NoNewPrivileges"] == "yes" and service["ProtectSystem"] == "strict"
    assert service["StateDirectory"] == "shoed" and "journal" in service["Environment"]
