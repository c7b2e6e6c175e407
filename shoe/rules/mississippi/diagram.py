"""Draw the round machine from its transition table (mermaid, with :func:`shoe.rules.machine.mermaid`),
so the picture cannot drift.

``python -m shoe.rules.mississippi.diagram [NY|PA|NJ] [--all]`` prints the diagram for a profile;
``docs/rules-engine.md`` embeds the output, and a test checks it is up to date.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

from shoe.rules.machine import mermaid as draw
from shoe.rules.mississippi.states import Edge, RoundState, transition_table
from shoe.rules.profiles import PROFILES, MississippiProfile

__all__ = ["INTERRUPTS", "mermaid", "mermaid_for"]

INTERRUPTS = frozenset({"pause", "resume", "misdeal"})
"""Triggers available from (nearly) every state; drawn only with ``interrupts=True``."""


def mermaid(table: Iterable[Edge], *, interrupts: bool = False, self_loops: bool = True) -> str:
    """A ``stateDiagram-v2`` of ``table``: one arrow per (source, dest), labelled with its triggers."""
    edges = [e for e in table if (interrupts or e.trigger not in INTERRUPTS) and (self_loops or e.source is not e.dest)]
    finals = [RoundState.COMPLETE, RoundState.MISDEAL] if interrupts else [RoundState.COMPLETE]
    return draw(edges, initial=RoundState.OPEN, finals=finals)


def mermaid_for(profile: MississippiProfile, *, progressive_offered: bool = True, interrupts: bool = False) -> str:
    """The diagram of ``profile``'s table (with PA's lock-out when a Progressive wager is offered)."""
    lockout = profile.progressive_lockout_before_first_stack and progressive_offered
    return mermaid(transition_table(profile.community_source, lockout), interrupts=interrupts)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    jurisdiction = next((a for a in args if not a.startswith("-")), "PA")
    sys.stdout.write(mermaid_for(PROFILES[jurisdiction], interrupts="--all" in args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
