"""The OpenAPI document is the contract, checked by a client nobody here wrote.

schemathesis (an OpenAPI-driven property-based fuzzer) reads ``GET /v1/openapi.json`` from a real
``shoed`` process with tokens configured and drives every operation with generated requests, valid
and invalid, under a role's token. It must find nothing: no server error, no response or status the
document does not declare, no invalid request accepted, no method answered other than 405 + Allow,
and (our own check, tests/api/schemathesis_hooks.py) no schema-valid body refused by the typed edge.
Before the request schemas came from the request types it found 40 failures in 662 cases.

``GET /v1/events`` is left out: an event stream does not end, so a fuzzer's request to it can only
time out (tests/api/test_sse.py covers it). ``503`` is not counted as a server error: the document
declares it for "the shoe cannot do it now" (an emptied shoe, a fault), with a hint; every other 5xx
is. Bounded: a fixed seed, at most 25 cases per operation and
one worker (the machine is shared), about 15 s per role.

Each role is a test file of its own (``test_schemathesis_<role>.py``), with a ``shoed`` of its own: the
suite spreads test files over its workers, so the three roles run side by side, and no role's run
starts on what another left behind.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.api.conftest import RealShoed
from tests.e2e.support import ROOT, TOKENS

ST = Path(sys.executable).with_name("st")
CONFIG = """
[checks.not_a_server_error]
expected-statuses = ["2xx", "3xx", "4xx", "503"]

[checks.positive_data_acceptance]
enabled = false  # replaced by edge_accepts_schema_valid_bodies (tests/api/schemathesis_hooks.py)
"""


# Every phase under the dealer's token (the round's role); the coverage phase's boundary values do not
# depend on the token, so the other roles run without it (it was two thirds of their time). The
# stateful phase follows the document's links (shoe.api.openapi._LINKS) for the dealer and technician.
PHASES = {
    "dealer": "examples,coverage,fuzzing,stateful",
    "technician": "examples,fuzzing,stateful",
    "table-system": "examples,fuzzing",
}


def schemathesis_finds_nothing(real_shoed: RealShoed, role: str, tmp_path: Path) -> None:
    """Run schemathesis under ``role``'s token against ``real_shoed``; fail on anything it finds."""
    if not ST.exists():
        pytest.fail(f"schemathesis is not installed in this venv ({ST}): pip install -e '.[test]'")
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG, encoding="utf-8")
    env = {**os.environ, "SCHEMATHESIS_HOOKS": "tests.api.schemathesis_hooks", "PYTHONPATH": str(ROOT)}
    argv = [
        str(ST), "--config-file", str(config), "run", f"{real_shoed.url}/v1/openapi.json",
        "--header", f"Authorization: Bearer {TOKENS[role]}",
        "--exclude-path", "/v1/events",
        "--max-examples", "25", "--seed", "20261201", "--workers", "1", "--request-timeout", "30",
        "--phases", PHASES[role], "--no-color",
    ]  # fmt: skip
    done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
    report = done.stdout[-20_000:] + done.stderr[-5_000:]
    print(done.stdout[-4_000:])  # the phases' figures, shown with pytest -s (docs: the closing note quotes them)
    assert done.returncode == 0, f"schemathesis found failures (exit {done.returncode}):\n{report}"
    generated = re.search(r"(\d+) generated", done.stdout)
    assert generated is not None and int(generated.group(1)) >= 500, report
    if "stateful" in PHASES[role]:
        assert re.search(r"Stateful\b.*\b(?:[1-9]\d*) (?:scenarios|passed)", done.stdout, re.S), report
    assert real_shoed.alive()
