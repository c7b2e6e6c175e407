"""Protocol messages as plain JSON-able dicts: what ``shoectl --json`` prints and what ``shoed`` serves.

Both the CLI (:mod:`shoe.cli`) and the service (:mod:`shoe.service`) present the shoe's messages this
way, so the code sits below both (docs/architecture.md); the text for people is in
:mod:`shoe.cli.render`.
"""

from __future__ import annotations

from typing import Any

from drivers.notices import Notice
from drivers.stacks import Stack
from protocols import messages as m
from protocols.bootid import boot_id_text
from protocols.codes import FAULT_INFO, Capability, SelfTestComponent, faults_from_flags
from protocols.fields import CardRead


def read_dict(read: CardRead) -> dict[str, Any]:
    return {"card": read.card, "status": read.status.name.lower()}


def identity(msg: m.Identity) -> dict[str, Any]:
    caps = [c.name.lower() for c in Capability if c & msg.capabilities and c.name]
    return {
        "model": msg.model,
        "serial": msg.serial,
        "firmware": msg.firmware,
        "protocol_version": msg.protocol_version,
        "capabilities": caps,
        "boot_id": boot_id_text(msg.boot_id),
    }


def status(msg: m.Status) -> dict[str, Any]:
    faults = faults_from_flags(msg.faults)
    return {
        "state": msg.state.name.lower(),
        "faults": [{"code": f.name.lower(), "text": FAULT_INFO[f].text, "hint": FAULT_INFO[f].hint} for f in faults],
        "cards_remaining": None if msg.cards_remaining == m.Status.UNKNOWN_REMAINING else msg.cards_remaining,
        "last_dispense_id": msg.last_dispense_id,
        "active_dispense_id": msg.active_dispense_id or None,
        "event_counter": msg.event_counter,
        "boot_id": boot_id_text(msg.boot_id),
        "tray_occupied": msg.tray_occupied,
        "door_open": msg.door_open,
    }


def stack(s: Stack) -> dict[str, Any]:
    return {
        "dispense_id": s.dispense_id,
        "cards": [r.card for r in s.cards],
        "reads": [read_dict(r) for r in s.cards],
        "unreadable_positions": list(s.unreadable),
        "replayed": s.replayed,
    }


def counters(msg: m.Counters) -> dict[str, Any]:
    return {
        "cards": msg.cards,
        "stacks": msg.stacks,
        "jams": msg.jams,
        "misreads": msg.misreads,
        "double_feeds": msg.double_feeds,
        "misfeeds": msg.misfeeds,
        "power_cycles": msg.power_cycles,
    }


def self_test(msg: m.SelfTestReport) -> dict[str, Any]:
    def name(number: int) -> str:
        try:
            return SelfTestComponent(number).name.lower().replace("_", "-")
        except ValueError:
            return f"component-{number}"

    return {"passed": msg.passed, "components": {name(n): ("ok" if ok else "FAILED") for n, ok in msg.results}}


def deck(msg: m.DeckReport) -> dict[str, Any]:
    from protocols.cards import ALL_CODES

    missing = [c for c in ALL_CODES if c not in set(msg.present)]
    complete = msg.count == 52 and not missing and not msg.duplicates and not msg.unreadable
    return {
        "count": msg.count,
        "complete": complete,
        "missing": missing,
        "duplicates": list(msg.duplicates),
        "unreadable": msg.unreadable,
    }


def event(item: m.Event | Notice) -> dict[str, Any]:
    """An event or link notice as one JSON-able dict with a ``type``."""
    if isinstance(item, m.CardReadEvent):
        return {
            "type": "card-read",
            "event_no": item.event_no,
            "dispense_id": item.dispense_id,
            "position": item.position,
            **read_dict(item.read),
        }
    if isinstance(item, m.StackReady):
        return {
            "type": "stack-ready",
            "event_no": item.event_no,
            "dispense_id": item.dispense_id,
            "cards": [r.card for r in item.cards],
        }
    if isinstance(item, m.StackTaken):
        return {"type": "stack-taken", "event_no": item.event_no, "dispense_id": item.dispense_id}
    if isinstance(item, m.FaultRaised):
        return {
            "type": "fault-raised",
            "event_no": item.event_no,
            "fault": item.code.name.lower(),
            "dispense_id": item.dispense_id or None,
            "hint": FAULT_INFO[item.code].hint,
        }
    if isinstance(item, m.FaultCleared):
        return {"type": "fault-cleared", "event_no": item.event_no, "fault": item.code.name.lower()}
    name = type(item).__name__
    kebab = "".join("-" + c.lower() if c.isupper() else c for c in name).lstrip("-")
    return {"type": kebab, **{k: v for k, v in vars(item).items()}}
