"""The drawing is generated from the transition table, and the docs carry the current drawing."""

from __future__ import annotations

from pathlib import Path

from shoe.rules.mississippi import transition_table
from shoe.rules.mississippi.diagram import main, mermaid, mermaid_for
from shoe.rules.profiles import PROFILES

ROOT = Path(__file__).resolve().parents[2]


def test_docs_embed_the_current_diagram() -> None:
    doc = (ROOT / "docs" / "rules-engine.md").read_text()
    assert "```mermaid\n" + mermaid_for(PROFILES["PA"]) + "```" in doc


def test_every_edge_is_drawn() -> None:
    table = transition_table()
    text = mermaid(table, interrupts=True)
    for edge in table:
        assert f"{edge.source.name} --> {edge.dest.name}: " in text
        assert edge.trigger in text
    assert "PROGRESSIVE_LOCKED" not in mermaid_for(PROFILES["NY"])
    assert "PROGRESSIVE_LOCKED" in mermaid_for(PROFILES["PA"])


def test_command_line(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["NY", "--all"]) == 0
    assert "PAUSED" in capsys.readouterr().out
