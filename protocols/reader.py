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

Once COBS and the CRC have passed, a body is read by **one call**, chosen by its length from a table
(:data:`_PLAIN_READERS`, :data:`_SEALED_READERS`): for the length of a fixed-size layout (CARD_READ, STACK_TAKEN,
STATUS, COUNTERS...) a generated function that splits header, (counter,) fields (and MAC) with one
``unpack_from`` of the whole body and builds the message; for any other length, or a body that function does not
take, the general reader of that length (header split, the layout's decoder on the payload).
"""

from __future__ import annotations

import hmac
import struct
from collections.abc import Callable
from typing import Any

from cobs import cobs

from protocols import codec
from protocols.auth import FORMAT_AUTH, MAC_SIZE, OVERHEAD, Receiver
from protocols.codes import PROTOCOL_VERSION, MsgType
from protocols.crc import RESIDUE, crc32c
from protocols.framing import (
    _REFUSED,
    CRC,
    MAX_BODY,
    MAX_ENCODED,
    MIN_BODY,
    BadFrame,
    Deframer,
    Frame,
    _splitter,
)
from protocols.messages import Message

Read = tuple[int, int, Message]
"""``(msg_type, seq, message)`` of a frame that passed every check in the one pass."""

Item = Read | Frame
PlainReader = Callable[[bytes], Item]
SealedReader = Callable[[bytes, Receiver, Any], Item]

_SEALED_MIN = MIN_BODY + OVERHEAD  # header, counter, MAC, CRC: an authenticated body holds at least these
_TAIL = MAC_SIZE + CRC.size
_HELLO_REPLY = int(MsgType.HELLO_REPLY)
_DECODERS, _FAST_ERRORS = codec._DECODERS, codec._FAST_ERRORS
_SAME = hmac.compare_digest


def _general_plain(size: int) -> PlainReader:
    """The reader of a checked body of ``size`` bytes on a plain link: the header split, the layout's decoder."""
    split = _splitter(size)

    def read(body: bytes) -> Item:
        version, msg_type, seq, payload = split(body)
        if version == PROTOCOL_VERSION:
            try:
                return msg_type, seq, _DECODERS[msg_type](payload)
            except _FAST_ERRORS:
                pass  # unknown, or for the field codecs to decide: the separate steps
        return Frame(version, msg_type, seq, payload)

    return read


class _Left(Exception):  # not an error: a frame the separate steps must have, and what follows it
    """A sealed frame the one pass leaves to the separate steps; then so is every later frame of the same read.

    Its opening may move the counter (a MAC that checks on a payload only the field codecs decide, a HELLO_REPLY
    that is not the session's own): a later frame taken here first would be judged against the counter before
    it, where the separate steps judge it after (a reordered frame accepted, or an honest one refused)."""

    def __init__(self, frame: Frame) -> None:
        super().__init__()
        self.frame = frame


def _general_sealed(size: int) -> SealedReader:
    """The reader of a checked body of ``size`` bytes on an authenticated link: format, counter, MAC, decode.

    A body that is not sealed, a counter not above the last or a MAC that does not check come out as the frame,
    for the separate steps (``Link._open``, which refuses and counts them: the counter does not move). A
    HELLO_REPLY (the link recognises its duplicate by its bytes) and a payload the layout's decoder does not take
    under a MAC that checks are left, with the rest of the read (``_Left``): their opening moves the counter."""
    split = _splitter(size)
    if size < _SEALED_MIN:
        return lambda body, receiver, keyed: Frame(*split(body))
    sealed = struct.Struct(f"<BBHI{size - _SEALED_MIN}s{MAC_SIZE}s{CRC.size}x").unpack_from
    mac_end = size - _TAIL

    def read(body: bytes, receiver: Receiver, keyed: Any) -> Item:
        fmt, msg_type, seq, counter, payload, tag = sealed(body)
        if fmt != FORMAT_AUTH:
            return Frame(*split(body))  # a plain frame on an authenticated link: refused, the counter unmoved
        if msg_type == _HELLO_REPLY:
            raise _Left(Frame(*split(body)))
        if counter > receiver.last:
            state = keyed.copy()
            state.update(body[:mac_end])
            if _SAME(state.digest(), tag):  # constant time
                try:
                    message = _DECODERS[msg_type](payload)
                except _FAST_ERRORS:
                    raise _Left(Frame(*split(body))) from None  # for the field codecs to decide, or unknown
                receiver.last = counter
                return msg_type, seq, message
        return Frame(*split(body))

    return read


def _fixed_readers(*, sealed: bool) -> dict[int, Any]:
    """By body length: one generated reader for the bodies of the fixed-size layouts of that length.

    Header, (counter,) fields (and MAC) in one ``unpack_from`` of the body, the fields' tables, the message and
    the ``Read``, in one call. Sealed, it checks the format, the counter and the MAC before it builds the
    message, and moves the counter only once the message is built, as :func:`_general_sealed` does. Anything
    it does not take (another type of that length, another format, a replayed counter, a MAC that does not
    check, a byte out of a table's range) it gives to the general reader of the length, which decides exactly
    as before. A longer payload of the same type (SPEC §7: bytes after the last field are ignored) has another
    length, so the general way.
    """
    by_length: dict[int, list[codec.Layout]] = {}
    for msg_type, layout in codec._LAYOUTS.items():
        if layout.rest or msg_type == _HELLO_REPLY:
            continue
        size = MIN_BODY + layout.struct.size + (OVERHEAD if sealed else 0)
        by_length.setdefault(size, []).append(layout)
    readers: dict[int, Any] = {}
    for size, layouts in by_length.items():
        general = _general_sealed(size) if sealed else _general_plain(size)
        env: dict[str, Any] = {"same": _SAME, "general": general, "fast_errors": _FAST_ERRORS}
        single = len(layouts) == 1  # the type is then checked with the format, after the one unpack
        lines = [] if single else ["    t = body[1]"]
        for layout in layouts:
            t = int(layout.cls.TYPE)
            fields = "".join(f"v{i}, " for i in range(layout.fixed))
            head, tag = ("<BBHI", f"{MAC_SIZE}s") if sealed else ("<BBH", "")
            # ``unpack`` (the exact length, the CRC as padding): a one-argument call, cheaper than ``unpack_from``
            env[f"unpack_{t}"] = struct.Struct(head + layout.struct.format.lstrip("<") + tag + f"{CRC.size}x").unpack
            env[f"cls_{t}"] = layout.cls
            values = []
            for i, table in enumerate(layout.tables):
                if table is None:
                    values.append(f"v{i}")
                else:
                    env[f"table_{t}_{i}"] = table
                    values.append(f"table_{t}_{i}[v{i}]")
            build = f"cls_{t}({', '.join(values)})"
            indent = "    " if single else "        "
            if not single:
                lines.append(f"    if t == {t}:")
            is_type = f" and msg_type == {t}" if single else ""
            if sealed:
                body_lines = [
                    f"fmt, msg_type, seq, counter, {fields}tag = unpack_{t}(body)",
                    f"if fmt == {FORMAT_AUTH}{is_type} and counter > receiver.last:",
                    "    state = keyed.copy()",
                    f"    state.update(body[:{size - _TAIL}])",
                    "    if same(state.digest(), tag):  # constant time",
                    "        try:",
                    f"            message = {build}",
                    "        except fast_errors:",
                    "            return general(body, receiver, keyed)",
                    "        receiver.last = counter",
                    "        return msg_type, seq, message",
                    "return general(body, receiver, keyed)",
                ]
            else:
                body_lines = [
                    f"version, msg_type, seq, {fields}= unpack_{t}(body)",
                    f"if version == {PROTOCOL_VERSION}{is_type}:",
                    "    try:",
                    f"        return msg_type, seq, {build}",
                    "    except fast_errors:",
                    "        pass",
                    "return general(body)",
                ]
            lines += [indent + line for line in body_lines]
        if not single:
            lines.append("    return general(body, receiver, keyed)" if sealed else "    return general(body)")
        args = "body, receiver, keyed" if sealed else "body"
        source = f"def read({args}):\n" + "\n".join(lines) + "\n"
        exec(compile(source, f"<read {'sealed ' if sealed else ''}body of {size} B>", "exec"), env)
        readers[size] = env["read"]
    return readers


def _unchecked(body: bytes, *_: Any) -> Item:
    """A body too short for header and CRC, or too long: ``decode_frame`` gives its one error (KeyError: the
    deframer's refusal, as a length missing from its splitters was)."""
    raise KeyError(len(body))


def _table(*, sealed: bool) -> list[Any]:
    """The reader of each body length 0..MAX_ENCODED (a list: indexed faster than a dict is looked up): the
    fixed layouts' readers, the general readers built the first time a length is seen, ``_unchecked`` outside
    MIN_BODY..MAX_BODY."""
    table: list[Any] = [_unchecked] * (MAX_ENCODED + 1)
    general = _general_sealed if sealed else _general_plain

    def first(size: int) -> Any:
        def build(*args: Any) -> Item:
            reader = table[size] = general(size)
            return reader(*args)

        return build

    for size in range(MIN_BODY, MAX_BODY + 1):
        table[size] = first(size)
    for size, reader in _fixed_readers(sealed=sealed).items():
        table[size] = reader
    return table


_PLAIN_READERS: list[PlainReader] = _table(sealed=False)
"""``_PLAIN_READERS[len(body)](body)``: a checked body on a plain link as a ``Read``, or its ``Frame``."""
_SEALED_READERS: list[SealedReader] = _table(sealed=True)
"""``_SEALED_READERS[len(body)](body, receiver, receiver.keyed)``: the same on an authenticated link."""


def _card_read_event() -> tuple[type[Message], dict[int, Any]]:
    """CARD_READ's class and its card-read table, for the loop's own copy of its reader (``MessageReader.read``):
    the layout that copy unpacks (u32, u32, u8, card read), checked here so that a changed layout fails at import
    rather than reads wrong."""
    layout = codec._LAYOUTS[int(MsgType.CARD_READ)]
    if layout.struct.format != "<IIBH" or layout.rest or layout.tables[:3] != (None, None, None):
        raise RuntimeError("CARD_READ's layout changed: protocols/reader.py reads it as u32, u32, u8, card read")
    table = layout.tables[3]
    assert table is not None
    return layout.cls, table


_CARD_READ = int(MsgType.CARD_READ)
_CARD_READ_CLS, _CARD_READ_TABLE = _card_read_event()
_CARD_READ_PLAIN = MIN_BODY + 11
_CARD_READ_SEALED = _CARD_READ_PLAIN + OVERHEAD
_UNPACK_CARD_READ_PLAIN = struct.Struct(f"<BBHIIBH{CRC.size}x").unpack
_UNPACK_CARD_READ_SEALED = struct.Struct(f"<BBHIIIBH{MAC_SIZE}s{CRC.size}x").unpack


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
        cobs_decode, crc, refused = cobs.decode, crc32c, _REFUSED
        # CARD_READ, one per card dealt and the most frequent frame on the link, is read in the loop itself (its
        # generated reader's steps without the call); anything that copy does not take goes to the table's reader.
        card_read, event, reads, version_1 = _CARD_READ, _CARD_READ_CLS, _CARD_READ_TABLE, PROTOCOL_VERSION
        if receiver is None:
            plain, unpack, size = _PLAIN_READERS, _UNPACK_CARD_READ_PLAIN, _CARD_READ_PLAIN
            for encoded in runs:
                if len(encoded) <= checked:
                    try:
                        body = cobs_decode(encoded)
                        if crc(body) == RESIDUE:
                            n = len(body)
                            if n == size:
                                version, msg_type, seq, v0, v1, v2, v3 = unpack(body)
                                if version == version_1 and msg_type == card_read:
                                    # a card read out of the table: KeyError, the frame as the deframer gives it
                                    append((msg_type, seq, event(v0, v1, v2, reads[v3])))
                                    continue
                            append(plain[n](body))
                            continue
                    except refused:
                        pass
                if (item := self._not_taken(encoded)) is not None:
                    append(item)
            return out
        sealed, keyed, unpack = _SEALED_READERS, receiver.keyed, _UNPACK_CARD_READ_SEALED
        size, mac_end, known = _CARD_READ_SEALED, _CARD_READ_SEALED - _TAIL, reads.get
        rest = iter(runs)
        for encoded in rest:
            if len(encoded) <= checked:
                try:
                    body = cobs_decode(encoded)
                    if crc(body) == RESIDUE:
                        n = len(body)
                        if n == size:
                            fmt, msg_type, seq, counter, v0, v1, v2, v3, tag = unpack(body)
                            if fmt == FORMAT_AUTH and msg_type == card_read and counter > receiver.last:
                                state = keyed.copy()
                                state.update(body[:mac_end])
                                # a card read out of the table: the table's reader decides (``_Left``)
                                if _SAME(state.digest(), tag) and (r := known(v3)) is not None:  # constant time
                                    receiver.last = counter
                                    append((msg_type, seq, event(v0, v1, v2, r)))
                                    continue
                        append(sealed[n](body, receiver, keyed))
                        continue
                except refused:
                    pass
                except _Left as left:
                    append(left.frame)
                    out += self._frames(rest)  # in order, for the separate steps (``_Left``)
                    return out
            if (item := self._not_taken(encoded)) is not None:
                append(item)
        return out
