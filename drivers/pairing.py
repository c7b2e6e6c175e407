"""Pairing a shoe with its host (SPEC §13.2): PAIR, plain or sealed under the old key, then a check session.

The technician's step, run while nothing else holds the port (``shoectl pair``). With ``old_key`` the new
key is a **rotation**, sent under a session of the old one; without, it goes plain and the shoe takes it
only while unpaired or with its door open. Either way a session under the new key proves it took.
"""

from __future__ import annotations

import contextlib

from drivers.errors import ShoeAuthError, ShoeProtocolError, ShoeUnavailable
from drivers.link import Link
from drivers.timeouts import LinkTimeouts
from drivers.transport import Transport
from protocols import auth
from protocols import messages as m
from protocols.codes import NakCode

__all__ = ["pair_shoe"]


def _link(transport: Transport, key: bytes | None, timeouts: LinkTimeouts) -> Link:
    link = Link(transport, timeouts=timeouts, on_events=lambda _: None, on_notice=lambda _: None,
                auto_reconnect=False, key=key)  # fmt: skip
    try:
        link.start()
    except BaseException:
        link.close()
        raise
    return link


def pair_shoe(transport: Transport, key: bytes, *, old_key: bytes | None, timeouts: LinkTimeouts) -> int:
    """Give the shoe behind ``transport`` the pairing ``key``; return its key id. The transport is closed after.

    Raises ``ShoeAuthError`` (``shoe-paired``: it refused a plain PAIR; ``key-mismatch``: ``old_key`` is not
    its key) or a ``ShoeError`` of the link."""
    auth.check_key(key)
    link = _link(transport, old_key, timeouts)
    try:
        answer = link.request(m.Pair(key), retries=0)
        if isinstance(answer, m.Nak):
            if answer.code is NakCode.AUTH_REQUIRED:
                raise ShoeAuthError(
                    "shoe-paired",
                    "the shoe is paired and refuses a plain PAIR",
                    hint="rotate with the current key (shoectl pair finds it in the key file), or open the "
                    "shoe's door to re-pair",
                )
            raise ShoeProtocolError(f"PAIR refused: {answer.code.name} ({answer.detail})", nak=answer.code)
        if not isinstance(answer, m.Ok):
            raise ShoeProtocolError(f"PAIR answered by {answer.TYPE.name}")
        try:
            fresh = link._transport.reopen()
        except ShoeUnavailable:
            # A device port is opened exclusively (flock): this process's own open holds it until closed. An
            # in-process emulator's transport is reopened before the close instead, which would end the shoe.
            link.close()
            fresh = link._transport.reopen()
        check = _link(fresh, key, timeouts)  # a session under the new key proves it took
        with contextlib.suppress(Exception):
            check.close()
    finally:
        link.close()
    return auth.key_id(key)
