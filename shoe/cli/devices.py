"""``shoectl devices``: candidate shoes on serial ports and on USB, with the port URL to use."""

from __future__ import annotations

import argparse
from typing import Any

from serial.tools import list_ports

from drivers.errors import ShoeError
from drivers.usb_ids import PRODUCT_ID, VENDOR_ID
from shoe.cli.output import emit


def serial_candidates() -> list[dict[str, Any]]:
    found = []
    for port in sorted(list_ports.comports(), key=lambda p: p.device):
        is_shoe = port.vid == VENDOR_ID and port.pid == PRODUCT_ID
        found.append(
            {
                "url": port.device,
                "kind": "serial",
                "description": port.description,
                "usb_id": f"{port.vid:04x}:{port.pid:04x}" if port.vid is not None else None,
                "serial_number": port.serial_number,
                "likely_shoe": is_shoe,
            }
        )
    return found


def usb_candidates() -> tuple[list[dict[str, Any]], str | None]:
    try:
        from drivers.usb_transport import list_usb_shoes

        shoes = list_usb_shoes()
    except ShoeError as exc:  # its hint says what to install or fix (libusb: the Debian package and command)
        return [], f"USB not searched: {exc}" + (f"; {exc.hint}" if exc.hint else "")
    except (ImportError, OSError) as exc:
        return [], f"USB not searched: {exc}"
    return [
        {
            "url": s.url,
            "kind": "usb",
            "description": "card shoe (USB vendor interface)" + (f"; {s.problem}" if s.problem else ""),
            "usb_id": f"{s.vid:04x}:{s.pid:04x}",
            "serial_number": s.serial,
            "likely_shoe": True,
            "problem": s.problem,
        }
        for s in shoes
    ], None


def cmd_devices(args: argparse.Namespace) -> int:
    usb, usb_note = usb_candidates()
    data = {"devices": [*serial_candidates(), *usb], "notes": [usb_note] if usb_note else []}

    def human(d: dict[str, Any]) -> str:
        if not d["devices"]:
            lines = [
                "no serial ports or USB shoes found",
                "-> check the cable, then `dmesg | tail`; the emulator is always there: --port emu://",
            ]
        else:
            lines = [f"  {'PORT':<28} {'USB ID':<10} DESCRIPTION"]
            lines += [
                f"{'*' if dev['likely_shoe'] else ' '} {dev['url']:<28} {dev['usb_id'] or '':<10} {dev['description']}"
                for dev in d["devices"]
            ]
            lines.append("(* = vendor/product id of a card shoe)")
        return "\n".join(lines + d["notes"])

    emit(data, as_json=args.json, human=human)
    return 0


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("devices", help="list candidate shoes on serial ports and USB, with their port URLs")
    p.set_defaults(func=cmd_devices, needs_port=False)
