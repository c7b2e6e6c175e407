"""``shoed``'s exit codes: one table (``shoe.shoed.EXIT_MEANING``), printed by ``--help``, listed in
docs/service.md word for word, and the only values its entry point returns."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from shoe import shoed
from shoe.shoed import EXIT_MEANING, Exit, build_parser

ROOT = Path(__file__).resolve().parents[2]


def _docs_table() -> dict[int, str]:
    text = (ROOT / "docs" / "service.md").read_text(encoding="utf-8")
    block = text[text.index("Exit codes") :].split("\n\n", 2)[1]
    rows = [re.match(r"\| (\d+) \| ([^|]+) \|", line) for line in block.splitlines()]
    return {int(m[1]): m[2].strip() for m in rows if m}


def test_the_docs_list_the_same_codes_and_meanings() -> None:
    assert _docs_table() == {int(code): text for code, text in EXIT_MEANING.items()}


def test_help_prints_every_code(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--help"])
    out = capsys.readouterr().out
    for code, text in EXIT_MEANING.items():
        assert f"  {int(code)} {text}\n" in out


def test_the_entry_point_returns_only_codes_of_the_table() -> None:
    """Every ``return`` of ``main`` and ``serve`` is an ``Exit`` member (or another function's code)."""
    tree = ast.parse(Path(shoed.__file__).read_text(encoding="utf-8"))
    seen = set()
    for fn in (n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in ("main", "serve")):
        for node in ast.walk(fn):
            if isinstance(node, ast.Return) and node.value is not None:
                assert not isinstance(node.value, ast.Constant), f"{fn.name}: bare exit code {ast.unparse(node)}"
                seen |= {n.attr for n in ast.walk(node.value) if isinstance(n, ast.Attribute)}
    assert {e.name for e in Exit} <= seen  # each code of the table is returned somewhere
