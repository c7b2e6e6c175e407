"""One pass from the line's bytes to messages: deframe, CRC, MAC and counter, decode.

:class:`MessageReader` is a :class:`~protocols.framing.Deframer` whose :meth:`~MessageReader.read` does, for
each run between delimiters, what ``Deframer.feed``, ``auth.Receiver.open`` and ``codec.decode`` do one after
the other, in one loop: no ``Frame`` built, opened into another ``Frame`` and decoded by a third call. It takes
only a run that passes **every** check of those steps (size, COBS, CRC, format, MAC, a counter above the last,
a payload the layout's decoder takes), and yields ``(msg_type, seq, message)`` for it. Anything else, or any
frame it is not sure of (a HELLO_REPLY, whose duplicate the link recognises by its bytes; a plain frame on an
authenticated link; a payload only the field codecs take), comes out exactly as ``feed`` gives it, a ``Frame``
or a ``BadFrame``, for the caller's separate steps: so the results, the refusals and the receiver's counter
are the separate steps' own (``tests/protocols/test_one_pass.py``). The runs are split at the same
delimiters as ``feed`` splits them, with the same buffer, so a corrupted frame costs the same one frame.
"""

from __future__ import annotations

import hmac
import struct
from typing import Any

from cobs import cobs

from protocols import codec
from protocols.auth import FORMAT_AUTH, MAC_SIZE, OVERHEAD, Receiver
from protocols.codes import PROTOCOL_VERSION, MsgType
from protocols.crc import RESIDUE, crc32c
from protocols.framing import (
    _REFUSED,
    _SPLITTERS,
    CRC,
    MAX_BODY,
    MAX_ENCODED,
    MIN_BODY,
    BadFrame,
    Deframer,
    Frame,
)
from protocols.messages import Message

Read = tuple[int, int, Message]
"""``(msg_type, seq, message)`` of a frame that passed every check in the one pass."""

_SEALED_MIN = MIN_BODY + OVERHEAD  # header, counter, MAC, CRC: an authenticated body holds at least these
_TAIL = MAC_SIZE + CRC.size
_HELLO_REPLY = int(MsgType.HELLO_REPLY)


_SEALED: dict[int, Any] = {}
"""``_SEALED[len(body)](body)`` is ``(format, msg_type, seq, counter, payload, mac)`` of an authenticated body, in
one ``unpack_from`` (the CRC left out); built the first time a length is seen."""


def _sealed_splitter(size: int) -> Any:
    split = _SEALED[size] = struct.Struct(f"<BBHI{size - _SEALED_MIN}s{MAC_SIZE}s{CRC.size}x").unpack_from
    return split


class MessageReader(Deframer):
    """A deframer that also opens and decodes, in one pass (:meth:`read`); ``feed`` is unchanged."""

    def read(self, data: bytes | bytearray | memoryview, receiver: Receiver | None) -> list[Read | Frame | BadFrame]:
        """The runs completed by ``data``: a ``Read`` for each that passes every check, else what ``feed`` gives.

        ``receiver``: the session's receiving side (an authenticated link: only sealed frames are taken, and its
        counter advances for each one taken), or None (a plain link: only format-1 frames are taken).
        """
        if self._overflowed:
            return list(self.feed(data))  # a run past the limit is being dropped: the usual way until it ends
        runs = self._split(data)
        out: list[Read | Frame | BadFrame] = []
        append = out.append
        checked = min(self._max, MAX_ENCODED)
        cobs_decode, crc, splitters, refused = cobs.decode, crc32c, _SPLITTERS, _REFUSED
        decoders, fast_errors, same, sealed = codec._DECODERS, codec._FAST_ERRORS, hmac.compare_digest, _SEALED
        keyed = None if receiver is None else receiver.keyed
        for encoded in runs:
            if len(encoded) <= checked:
                try:
                    body = cobs_decode(encoded)
                    if crc(body) == RESIDUE:
                        n = len(body)
                        if keyed is None:
                            version, msg_type, seq, payload = splitters[n](body)
                            if version == PROTOCOL_VERSION:
                                try:
                                    message = decoders[msg_type](payload)
                                except fast_errors:
                                    pass
                                else:
                                    append((msg_type, seq, message))
                                    continue
                            append(Frame(version, msg_type, seq, payload))
                            continue
                        if body[0] == FORMAT_AUTH and _SEALED_MIN <= n <= MAX_BODY:
                            split = sealed.get(n) or _sealed_splitter(n)
                            _, msg_type, seq, counter, payload, tag = split(body)
                            if msg_type != _HELLO_REPLY and counter > receiver.last:  # type: ignore[union-attr]
                                state = keyed.copy()
                                state.update(body[: n - _TAIL])
                                if same(state.digest(), tag):  # constant time
                                    try:
                                        message = decoders[msg_type](payload)
                                    except fast_errors:
                                        pass  # unknown, or for the field codecs to decide: the separate steps
                                    else:
                                        receiver.last = counter  # type: ignore[union-attr]
                                        append((msg_type, seq, message))
                                        continue
                            append(Frame(*splitters[n](body)))
                            continue
                        append(Frame(*splitters[n](body)))  # a plain frame on an authenticated link
                        continue
                except refused:
                    pass
            if (item := self._not_taken(encoded)) is not None:
                append(item)
        return out
