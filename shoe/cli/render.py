"""Protocol messages as text for people; the plain dicts (for ``--json``) come from :mod:`shoe.present`.

The dict presenters are re-exported here so that ``render.status(...)`` and ``render.status_text(...)``
read side by side in the CLI commands.
"""

from __future__ import annotations

from typing import Any

from protocols.fields import CardRead
from shoe.present import counters, deck, event, identity, read_dict, self_test, stack, status

__all__ = [
    "counters",
    "deck",
    "event",
    "event_text",
    "identity",
    "read_dict",
    "read_text",
    "self_test",
    "stack",
    "status",
    "status_text",
]


def read_text(read: CardRead) -> str:
    return read.card if read.card is not None else f"?? ({read.status.name.lower()})"


def status_text(data: dict[str, Any]) -> str:
    lines = [
        f"state            {data['state']}",
        f"cards remaining  {data['cards_remaining'] if data['cards_remaining'] is not None else 'unknown'}",
        f"last dispense    {data['last_dispense_id']}",
        f"tray             {'occupied' if data['tray_occupied'] else 'empty'}",
        f"door             {'OPEN' if data['door_open'] else 'closed'}",
        f"events this boot {data['event_counter']} (boot {data['boot_id']})",
    ]
    if data["faults"]:
        lines.append("faults:")
        lines += [f"  {f['code']}: {f['text']}\n    -> {f['hint']}" for f in data["faults"]]
    else:
        lines.append("faults           none")
    return "\n".join(lines)


def event_text(data: dict[str, Any]) -> str:
    fields = " ".join(f"{k}={v}" for k, v in data.items() if k != "type" and v is not None)
    return f"{data['type']:<14} {fields}"
