"""``shoectl`` deck cycle commands (SPEC §11): ``release-stub``, ``load-deck`` (emulator), ``deck-check``.

- ``release-stub`` presents the cards left in the shoe (the stub) for the discard rack or ``scan``.
  Outside a live round only: the cards it presents are out of play.
- ``load-deck`` is the dealer's load on an emulator: ``--control PATH`` for ``shoectl emulate
  --control PATH`` in another process; on ``emu://`` (a new emulator for this one command) the start
  deck's stub is released first, then the deck loaded and checked. A hardware shoe is loaded by hand.
- ``deck-check`` asks DECK_CHECK and names missing, extra, duplicate and foreign cards and a wrong
  back (``--back``); exit 8 when the deck fails. An older shoe without DECK_CHECK: the count only.
"""

from __future__ import annotations

import argparse
from typing import Any

from drivers.client import ShoeClient
from drivers.deck import DeckVerdict, check_deck
from drivers.emu_transport import EmulatorTransport
from drivers.emulator.control import ControlError, load_deck_at
from drivers.emulator.deck import DeckLoad
from drivers.keyfile import key_from_env
from drivers.transport import open_transport
from shoe.cli.exit_codes import Exit
from shoe.cli.output import emit

DECK_OPTIONS = ("short", "extra", "duplicate", "foreign")


def verdict_dict(verdict: DeckVerdict) -> dict[str, Any]:
    return {
        "ok": verdict.ok and verdict.checked_faces,
        "count": verdict.count,
        "back": verdict.back,
        "missing": list(verdict.missing),
        "extra": verdict.extra,
        "duplicates": list(verdict.duplicates),
        "foreign": list(verdict.foreign),
        "unreadable": verdict.unreadable,
        "checked_faces": verdict.checked_faces,
        "problems": verdict.problems(),
    }


def _human(d: dict[str, Any]) -> str:
    if d["ok"]:
        return f"deck complete: {d['count']} cards, each once" + (f", back {d['back']}" if d["back"] else "")
    return "deck NOT complete: " + "; ".join(d["problems"]) + "\n-> remove the deck from play and load a checked one"


def cmd_deck_check(args: argparse.Namespace) -> int:
    with ShoeClient.open(args.port, key=key_from_env()) as client:
        data = verdict_dict(check_deck(client, back=args.back))
    emit(data, as_json=args.json, human=_human)
    return Exit.OK if data["ok"] else Exit.DEVICE_FAULT


def cmd_release_stub(args: argparse.Namespace) -> int:
    with ShoeClient.open(args.port, key=key_from_env()) as client:
        count = client.release_stub()
    emit(
        {"released": count},
        as_json=args.json,
        human=lambda d: f"stub released: {d['released']} cards presented (scan them, or take them to the discard rack)",
    )
    return Exit.OK


def _deck_from(args: argparse.Namespace) -> DeckLoad:
    order = tuple(args.order.replace(",", " ").split()) if args.order else None
    if order and len(order) == 1 and len(order[0]) > 2:
        text = order[0]
        order = tuple(text[i : i + 2] for i in range(0, len(text), 2))
    return DeckLoad(
        seed=args.seed, order=order, back=args.back, mid_round=args.mid_round,
        **{name: getattr(args, name) for name in DECK_OPTIONS},
    )  # fmt: skip


def cmd_load_deck(args: argparse.Namespace) -> int:
    deck = _deck_from(args)  # ValueError: a usage error (exit 2)
    if args.control:
        try:
            loaded = load_deck_at(args.control, deck)
        except ControlError as exc:
            raise ValueError(str(exc)) from None
        emit({"loaded": loaded, "back": deck.back}, as_json=args.json, human=_loaded_text)
        return Exit.OK
    transport = open_transport(args.port)
    if not isinstance(transport, EmulatorTransport):
        transport.close()
        raise ValueError("load-deck needs an emulator: --port emu://... or --control PATH of shoectl emulate")
    with ShoeClient.open_transport(transport, key=key_from_env()) as client:
        if client.status().cards_remaining and not deck.mid_round:
            client.release_stub()  # a new emulator per command: its start deck is the stub
        loaded = transport.shoe.load_deck(deck)
        data: dict[str, Any] = {"loaded": loaded, "back": deck.back, "check": verdict_dict(check_deck(client))}
    emit(data, as_json=args.json, human=lambda d: _loaded_text(d) + "\n" + _human(d["check"]))
    return Exit.OK


def _loaded_text(d: dict[str, Any]) -> str:
    return f"deck loaded: the shoe holds {d['loaded']} cards, back {d['back']}"


def add_parsers(sub: Any) -> None:
    p = sub.add_parser(
        "deck-check",
        help="count and identify the loaded cards (exit 8 if not one whole deck of the expected back)",
        description="Ask the shoe for a deck check (SPEC §11) and name missing, extra, duplicate and foreign "
        "cards. Run it after loading, before the first stack. Exit 8 when the deck fails.",
    )
    p.add_argument("--back", help="the back design the deck must have (default: any)")
    p.set_defaults(func=cmd_deck_check)
    p = sub.add_parser(
        "release-stub",
        help="present the cards left in the shoe (outside a live round), e.g. before shoectl scan",
        description="Release the stub: the shoe presents every card it still holds, for the discard rack or "
        "for shoectl scan. Never during a live round: those cards leave play.",
    )
    p.set_defaults(func=cmd_release_stub)
    p = sub.add_parser(
        "load-deck",
        help="the dealer loads a shuffled deck into an emulator (--control PATH, or emu://)",
        description="Load a deck into an emulated shoe as a dealer would (SPEC §11). With --control PATH it "
        "goes to `shoectl emulate --control PATH` in another process; on emu:// the start deck's stub is "
        "released first, then the deck is loaded and checked. Faults: --short, --extra, --duplicate, "
        "--foreign N cards; --mid-round loads on top of the cards still held.",
    )
    p.add_argument("--control", metavar="PATH", help="the control socket of shoectl emulate --control PATH")
    p.add_argument("--seed", type=int, help="seeded shuffle (default: a fresh random one)")
    p.add_argument("--order", help="explicit order, top first, e.g. AsKd7c... or As,Kd,7c")
    p.add_argument("--back", default="red", help="the deck's back design (default red)")
    for name in DECK_OPTIONS:
        p.add_argument(f"--{name}", type=int, default=0, metavar="N", help=f"fault: {name} N card(s)")
    p.add_argument("--mid-round", action="store_true", help="fault: load on top of the cards still in the shoe")
    p.set_defaults(func=cmd_load_deck, needs_port=False)
