"""Tests of ``shoectl play``: helpers to run a script (an example, or an edited copy) through the CLI."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from drivers.emulator import EmulatedShoe, EmulatorConfig, serve_tcp
from shoe.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def example(name: str) -> dict[str, Any]:
    """A fresh copy of ``examples/<name>.json`` to edit."""
    return copy.deepcopy(json.loads((EXAMPLES / f"{name}.json").read_text()))


def shoectl(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()  # drop what came before (an emulator started before structlog was set up logs to stdout)
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def play(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, script: dict[str, Any] | str, *extra: str
) -> tuple[int, str, str]:
    """``shoectl play`` on an example name or a script object; (exit code, stdout, stderr)."""
    if isinstance(script, str):
        path = EXAMPLES / f"{script}.json"
    else:
        path = tmp_path / "script.json"
        path.write_text(json.dumps(script))
    return shoectl(capsys, "play", str(path), *extra)


def record(capsys: pytest.CaptureFixture[str], tmp_path: Path, script: dict[str, Any] | str, *extra: str) -> Any:
    """The record of a round that must play (exit 0, one JSON line, nothing on stderr but logs)."""
    code, out, err = play(capsys, tmp_path, script, *extra)
    assert out.count("\n") == 1, err
    data = json.loads(out)
    assert code == (15 if data["state"] == "misdeal" else 0), err  # 15: Exit.MISDEAL, a void round played out
    return data


def nets(data: dict[str, Any]) -> dict[int, int]:
    return {int(seat): row["net"] for seat, row in data["seats"].items()}


def outcomes(data: dict[str, Any]) -> dict[int, str]:
    return {int(seat): row["outcome"] for seat, row in data["seats"].items()}


@contextmanager
def tcp_shoe(deck: list[str], **options: Any) -> Iterator[str]:
    """An emulated shoe loaded with ``deck``, served on TCP: its ``socket://HOST:PORT`` URL."""
    shoe = EmulatedShoe(EmulatorConfig(deck=tuple(deck), **options))
    try:
        with serve_tcp(shoe, "127.0.0.1", 0) as server:
            host, port = server.address
            yield f"socket://{host}:{port}"
    finally:
        shoe.close()
