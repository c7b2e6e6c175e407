"""Round states and the transition table, as data (NY 5324.38(c)-(e); PA 655a.11; rules digest).

The table is built from two profile switches: where the community cards come from (the stub, dealt by
hand, NY 5324.38(d)(3); or a three-card stack from the shoe) and whether PA's progressive lock-out
and chip count come before the first stack (PA 670a.10(a)(2)(ii) template, rules digest).
:mod:`shoe.rules.mississippi.flow` feeds the table to the shared ``transitions`` wrapper
(:mod:`shoe.rules.machine`); :mod:`.diagram` draws it.
Which seat may act, and with what, is the round's business (:mod:`.machine`); the table only says
which step may follow which.
"""

from __future__ import annotations

import functools
from enum import Enum

from shoe.rules.machine import Edge as GenericEdge
from shoe.rules.machine import triggers
from shoe.rules.profiles import CommunitySource

__all__ = [
    "ACTIVE",
    "RESUMABLE",
    "STREETS",
    "TERMINAL",
    "Edge",
    "RoundState",
    "transition_table",
    "triggers",
]


class RoundState(Enum):
    OPEN = "open-for-wagers"
    NO_MORE_BETS = "no-more-bets"
    PROGRESSIVE_LOCKED = "progressive-locked"
    CHIPS_VERIFIED = "chips-verified"
    DEALING_STACKS = "dealing-stacks"
    STUB_COUNTED = "stub-counted"  # stub source: stub removed and counted, community not yet dealt
    COMMUNITY_DEALT = "community-dealt"  # shoe source: community stack dispensed, stub not yet counted
    THIRD_STREET = "third-street"
    FOURTH_STREET = "fourth-street"
    FIFTH_STREET = "fifth-street"
    SETTLEMENT = "settlement"
    COMPLETE = "complete"
    MISDEAL = "misdeal"
    PAUSED = "paused"


STREETS: tuple[RoundState, RoundState, RoundState] = (
    RoundState.THIRD_STREET,
    RoundState.FOURTH_STREET,
    RoundState.FIFTH_STREET,
)
"""Decision states, in order; reveal ``i`` ends ``STREETS[i]``."""

TERMINAL = frozenset({RoundState.COMPLETE, RoundState.MISDEAL})
RESUMABLE = frozenset(set(RoundState) - TERMINAL - {RoundState.PAUSED})
"""States a round can be paused in, and resumed to."""
ACTIVE = RESUMABLE


Edge = GenericEdge[RoundState]
"""One transition of this table (see :class:`shoe.rules.machine.Edge`)."""

S = RoundState


def _deal_edges(community_source: CommunitySource, progressive_lockout: bool) -> list[Edge]:
    first_stack_from = S.CHIPS_VERIFIED if progressive_lockout else S.NO_MORE_BETS
    edges = [
        Edge("wager", S.OPEN, S.OPEN, "within the table limits"),
        Edge("no_more_bets", S.OPEN, S.NO_MORE_BETS, "at least one ante"),
    ]
    if progressive_lockout:
        edges += [
            Edge("lock_progressive", S.NO_MORE_BETS, S.PROGRESSIVE_LOCKED),
            Edge("count_progressive_chips", S.PROGRESSIVE_LOCKED, S.CHIPS_VERIFIED, "count = wagers accepted"),
        ]
    edges += [
        Edge("deal_stack", first_stack_from, S.DEALING_STACKS, "first wagering seat"),
        Edge("deal_stack", S.DEALING_STACKS, S.DEALING_STACKS, "next wagering seat"),
    ]
    if community_source is CommunitySource.STUB:
        edges += [
            Edge("release_stub", S.DEALING_STACKS, S.STUB_COUNTED, "every stack dealt, count = 52 - 2n"),
            Edge("deal_community", S.STUB_COUNTED, S.THIRD_STREET, "3 face down"),
        ]
    else:
        edges += [
            Edge("deal_community", S.DEALING_STACKS, S.COMMUNITY_DEALT, "every stack dealt, 3 face down"),
            Edge("release_stub", S.COMMUNITY_DEALT, S.THIRD_STREET, "count = 52 - 2n - 3"),
        ]
    return edges


def _street_edges() -> list[Edge]:
    edges: list[Edge] = []
    for street in STREETS:
        edges.append(Edge("decide", street, street, "seat order"))
    edges += [
        Edge("reveal", S.THIRD_STREET, S.FOURTH_STREET, "every live seat decided"),
        Edge("reveal", S.FOURTH_STREET, S.FIFTH_STREET, "every live seat decided"),
        Edge("reveal", S.FIFTH_STREET, S.SETTLEMENT, "every live seat decided"),
    ]
    for street in STREETS:
        edges.append(Edge("finish", street, S.COMPLETE, "no hand left to settle"))
    edges += [
        Edge("settle", S.SETTLEMENT, S.SETTLEMENT, "descending seat order"),
        Edge("finish", S.SETTLEMENT, S.COMPLETE, "every seat settled"),
    ]
    return edges


def _forfeit_edges() -> list[Edge]:
    states = (S.DEALING_STACKS, S.STUB_COUNTED, S.COMMUNITY_DEALT, *STREETS)
    return [Edge("forfeit", s, s, "before the last reveal") for s in states]


def _interrupt_edges() -> list[Edge]:
    ordered = [s for s in RoundState if s in RESUMABLE]
    edges = [Edge("pause", s, S.PAUSED) for s in ordered]
    edges += [Edge("resume", S.PAUSED, s, f"paused in {s.name}", resume_to=s) for s in ordered]
    misdeal_from = [*ordered, S.PAUSED]
    edges += [Edge("misdeal", s, S.MISDEAL, "no seat settled yet" if s is S.SETTLEMENT else "") for s in misdeal_from]
    return edges


@functools.cache
def transition_table(
    community_source: CommunitySource = CommunitySource.STUB, progressive_lockout: bool = False
) -> tuple[Edge, ...]:
    """The whole transition table for one profile's switches: one tuple per switches, built once (the
    machine layer shares what rounds of one table share by the table's identity; a table built anew each
    round kept ~9 KiB a round there for good: RSS)."""
    edges = _deal_edges(community_source, progressive_lockout) + _street_edges() + _forfeit_edges()
    edges += _interrupt_edges()
    # Drop the states this variant never enters (e.g. COMMUNITY_DEALT with a stub source).
    entered = {S.OPEN, S.PAUSED} | {
        e.dest for e in edges if e.source is not e.dest and e.trigger not in ("pause", "resume")
    }
    return tuple(e for e in edges if e.source in entered and e.dest in entered)
