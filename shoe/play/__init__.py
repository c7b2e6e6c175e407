"""Scripted rounds: one Mississippi stud round or seven-card stud hand from a JSON script, with every
card taken from a shoe, and a JSON record of the finished round (``shoectl play``; docs/play-scripts.md).

Flow of :func:`run_script`:

1. :func:`load_script` / :func:`parse_script` check the script; a problem is a :class:`ScriptError`
   naming its JSON path and the fix.
2. A dry run plays the script on its own ``"shoe"`` list, so an illegal decision or action, or a
   list too short for the hand, is refused before a single card leaves the shoe.  When the shoe's
   order is known beforehand (an emulator with its own ``seed`` or ``deck``), the script is dry-run
   on that order too, so a stud action that will not fit those cards is refused before dealing.
3. The round is played for real with the cards the shoe reads (:mod:`shoe.play.source`): by default
   the in-process emulator loaded with exactly the script's list, or the shoe at ``port``.
4. The record (:mod:`shoe.play.record`) is returned.  A round cut short once cards are out (a jam,
   or a stud action that does not fit the cards a real shoe dealt) is void and raises
   :class:`CutShort` with its record; nothing is ever partly settled.

The operational log gets counts only, never a card.
"""

from __future__ import annotations

from typing import Any

import structlog

from drivers.client import ShoeClient
from shoe.play.errors import CutShort, ScriptError
from shoe.play.mississippi import play_mississippi
from shoe.play.record import mississippi_record, stud_record
from shoe.play.script import MississippiScript, Script, StudScript, load_script, parse_script
from shoe.play.source import CardSource, ListSource, OutOfCards, ShoeSource, known_order, open_shoe
from shoe.play.stud import StudPlay, play_stud
from shoe.rules.mississippi import MississippiRound

__all__ = [
    "CutShort",
    "MississippiScript",
    "Script",
    "ScriptError",
    "StudScript",
    "dry_run",
    "load_script",
    "parse_script",
    "play_on_shoe",
    "run_script",
]

log = structlog.get_logger("shoe.play")


def run_script(script: Script, *, port: str | None = None) -> dict[str, Any]:
    """Check ``script`` by a dry run, then play it on the shoe at ``port`` (None: the script's emulator)."""
    dry_run(script)
    order = known_order(port, script.shoe)
    if order is not None and order != script.shoe:
        try:
            dry_run(script, order)
        except ScriptError as exc:
            raise ScriptError(
                f"{exc.message} (found before dealing: the shoe at {port} holds its own cards, not the "
                'script\'s "shoe" list)',
                rule=exc.rule,
                code=exc.code,
            ) from None
    with open_shoe(port, script.shoe) as client:
        return play_on_shoe(script, client)


def play_on_shoe(script: Script, client: ShoeClient) -> dict[str, Any]:
    """Play ``script`` with the cards a connected shoe reads; the record of the round."""
    source = ShoeSource(client)
    try:
        record = _play(script, source)
    except CutShort as exc:
        exc.record = _record(script, exc.played, source)
        log.warning(
            "play_cut_short", game=exc.record["game"], stacks=source.tally.stacks, error=type(exc.cause).__name__
        )
        raise
    log.info(
        "play_done",
        game=record["game"],
        seats=len(record["seats"]),
        state=record["state"],
        void=record["misdeal"] is not None,
        stacks=source.tally.stacks,
        scanned=source.tally.scanned,
    )
    return record


def dry_run(script: Script, order: tuple[str, ...] | None = None) -> dict[str, Any]:
    """Play ``script`` on its own card list (or ``order``, the shoe's when known); :class:`ScriptError`
    for anything the script gets wrong."""
    source = ListSource(script.shoe if order is None else order)
    try:
        return _play(script, source, strict=True)
    except OutOfCards as exc:  # the stud driver says which card was missing; this is the rest
        raise ScriptError(f'shoe: too few cards: {exc}: add cards to "shoe"', code="too-few-cards") from None


def _record(script: Script, played: object, source: CardSource) -> dict[str, Any]:
    if isinstance(script, MississippiScript):
        assert isinstance(played, MississippiRound)
        return mississippi_record(played, source.tally)
    assert isinstance(played, StudPlay)
    return stud_record(played, source.tally)


def _play(script: Script, source: CardSource, *, strict: bool = False) -> dict[str, Any]:
    if isinstance(script, MississippiScript):
        return mississippi_record(play_mississippi(script, source), source.tally)
    return stud_record(play_stud(script, source, strict=strict), source.tally)
