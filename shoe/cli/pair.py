"""``shoectl pair``: pair the shoe with this table (SPEC §13.2), and the key every shoe command uses.

Pairing is an **offline technician step**: shoed holds the shoe's port exclusively, so it is stopped first
(a running shoed is not asked to pair: its key would change under a live link). The command makes a new
32-byte key, keeps it in ``KEY_FILE.new`` (mode 0600) while it pairs, and only once a session under the
new key has succeeded moves it to ``KEY_FILE``. With a key already in ``KEY_FILE`` the pairing is a
**rotation** sent under the old key; without, it goes plain, and the shoe takes it only while unpaired
or with its door open (re-pairing). An interrupted rotation is finished by running it again (the key in
``KEY_FILE.new`` is tried as the shoe's key). Who did it (``--by``, default the login name), when, the
shoe's serial and the key id (never the key) are appended to ``KEY_FILE.pairing.jsonl``.

Every shoe command (``identify``, ``status``, ``dispense``...) authenticates with the key in
``SHOE_KEY_FILE`` when that variable names a file: a paired shoe answers nothing else.
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from shoe.cli.output import emit, key_values


def cmd_pair(args: argparse.Namespace) -> int:
    from drivers.client import ShoeClient
    from drivers.errors import ShoeAuthError
    from drivers.keyfile import append_record, load_key, new_key_path, write_key
    from drivers.pairing import pair_shoe
    from drivers.timeouts import LinkTimeouts
    from drivers.transport import open_transport, redact_port
    from protocols import auth

    path = Path(args.key_file).expanduser()
    pending = new_key_path(path)
    old = [load_key(p) for p in (path, pending) if p.exists()]
    key = os.urandom(auth.KEY_SIZE)
    timeouts = LinkTimeouts()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    candidates: list[bytes | None] = [*old, None]
    write_key(pending, key)
    last: Exception | None = None
    try:
        for previous in candidates:
            try:
                key_id = pair_shoe(open_transport(args.port), key, old_key=previous, timeouts=timeouts)
                break
            except ShoeAuthError as exc:  # not this old key (or the shoe refuses plain): try the next
                last = exc
        else:
            assert last is not None
            raise last
    except BaseException:
        with contextlib.suppress(OSError):
            pending.unlink()
        raise
    os.replace(pending, path)
    with ShoeClient.open(args.port, key=key) as client:
        serial = client.identity.serial if client.identity else None
    record: dict[str, Any] = {
        "event": "paired",
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "by": args.by or getpass.getuser(),
        "serial": serial,
        "port": redact_port(args.port),
        "key_id": f"0x{key_id:08X}",
        "rotated": bool(old),
    }
    append_record(path, record)
    emit({**record, "key_file": str(path)}, as_json=args.json, human=key_values)
    return 0


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("pair", help="pair the shoe with this table: a new key, rotated or set (stop shoed first)")
    p.add_argument("--key-file", required=True, metavar="PATH", help="the key file shoed reads ([shoe] key_file)")
    p.add_argument("--by", metavar="NAME", help="who pairs, for the pairing record (default: the login name)")
    p.set_defaults(func=cmd_pair)
