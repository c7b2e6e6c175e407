"""Run the HIL suite (``pytest hil_tests``) in a separate process, as a lab would, and read its report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RUN_S = 240.0
INNER_PLUGINS = ("-p", "pytest_timeout")
"""The only plugin an inner pytest run loads (``PYTEST_DISABLE_PLUGIN_AUTOLOAD``): the suite's ``timeout``
setting. The venv's others (schemathesis, hypothesis, anyio, xdist, mock) are for the outer suite, and
importing schemathesis and hypothesis was four fifths of an inner run's CPU time (4.7 s of 5.6 s here)."""


@dataclass(frozen=True)
class Run:
    returncode: int
    output: str
    report: dict[str, Any] | None
    markdown: str


def run_hil(report_dir: Path, *args: str, timeout: float = RUN_S) -> Run:
    """``python -m pytest hil_tests ARGS --report REPORT_DIR`` from the checkout; its exit code and report."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *INNER_PLUGINS, "hil_tests",
               "--report", str(report_dir), *args]  # fmt: skip
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env, check=False)
    json_path, md_path = report_dir / "report.json", report_dir / "report.md"
    report = json.loads(json_path.read_text(encoding="utf-8")) if json_path.exists() else None
    markdown = md_path.read_text(encoding="utf-8") if md_path.exists() else ""
    return Run(done.returncode, done.stdout + done.stderr, report, markdown)


def hardware_bench(path: Path, port: str, **features: bool) -> Path:
    """A hardware bench file for ``port`` with the given features (every other feature false)."""
    lines = ["[bench]", 'name = "absent-rig"', 'kind = "hardware"', f'port = "{port}"', "rounds = 1",
             "destructive = false", "[features]"]  # fmt: skip
    lines += [f"{name} = {'true' if on else 'false'}" for name, on in features.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
