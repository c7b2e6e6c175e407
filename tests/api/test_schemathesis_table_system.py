"""schemathesis finds nothing under the table-system's token (tests/api/schemathesis_run.py says what it checks)."""

from __future__ import annotations

from pathlib import Path

from tests.api.conftest import RealShoed
from tests.api.schemathesis_run import schemathesis_finds_nothing


def test_schemathesis_finds_nothing_as_table_system(real_shoed: RealShoed, tmp_path: Path) -> None:
    schemathesis_finds_nothing(real_shoed, "table-system", tmp_path)
