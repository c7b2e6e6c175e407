"""The journal's records and their hash chain. Pure: no I/O, no clocks, no threads.

Each entry's hash is ``sha256(prev_hash + canonical([seq, ts, kind, round_id, data]))`` in hex, where
``canonical`` is JSON with sorted keys, no spaces and UTF-8 text. The first entry's ``prev_hash`` is
``GENESIS``. Anyone can recompute the chain from an export with the standard library alone.

The chain alone is unkeyed: whoever can write the file can recompute every hash after an edit. A journal
given a table key (``shoe.journal.mac``) also stores ``mac = HMAC-SHA256(key, hash)`` with each entry,
which the floor recomputes with its copy of the key (docs/journal.md, "Threat model").
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

GENESIS = "0" * 64
COLUMNS = ("seq", "ts", "kind", "round_id", "data", "prev_hash", "hash")


class JournalError(Exception):
    """The journal cannot be used as asked; the message says what is wrong and what to do."""


class JournalDataError(JournalError):
    """An entry the journal cannot record (not plain JSON, or text with no UTF-8 form): refused whole,
    before the database is touched, so nothing was written. The journal itself is fine."""


@dataclass(frozen=True)
class Entry:
    seq: int
    ts: str
    kind: str
    round_id: str | None
    data: dict[str, Any]
    prev_hash: str
    hash: str
    mac: str | None = None
    """``HMAC-SHA256(table key, hash)`` in hex (:func:`entry_mac`); None in a journal without a key."""

    def as_dict(self) -> dict[str, Any]:
        """Every field, hashes included: one line of an export."""
        return {name: getattr(self, name) for name in COLUMNS}


@dataclass(frozen=True)
class VerifyResult:
    ok: bool
    checked: int
    """Entries found good; when not ``ok``, those before the first bad one."""
    first_bad_seq: int | None
    problem: str | None


@dataclass(frozen=True, slots=True)
class Pending:
    """An entry checked and serialised, not yet written: what ``Journal.write`` commits (:func:`prepare`)."""

    kind: str
    round_id: str | None
    text: str
    """The data's canonical text: what the row stores and the hash covers."""
    data: dict[str, Any]
    """The data as readers will read it back (parsed from ``text``)."""


def prepare(kind: str, data: Mapping[str, Any], round_id: str | None = None) -> Pending:
    """Validate and serialise one entry before any database is touched.

    Data it cannot record is a :class:`JournalDataError` and nothing was written (nor queued).
    """
    if not isinstance(kind, str) or not kind:
        raise JournalDataError(f"an entry's kind must be a non-empty string, not {kind!r}: nothing was written")
    if round_id is not None and not isinstance(round_id, str):
        raise JournalDataError(f"round_id must be a string or None, not {round_id!r}: nothing was written")
    if not isinstance(data, Mapping):
        raise JournalDataError(f"an entry's data must be a mapping, not {type(data).__name__}: nothing was written")
    plain = dict(data)
    fast = _fast_canonical(plain)
    if fast is None:
        text = canonical(plain)
        back = json.loads(text)
        if canonical(back) != text:  # keys that were not text, sorted as numbers: verify would call it edited
            raise JournalDataError(
                "journal data's keys must be text (a mapping with number keys sorts differently once they are "
                "text, and the stored entry would not verify): nothing was written"
            )
    else:
        text, back = fast
    for name in (kind, round_id):  # the hash covers them too: they must have a UTF-8 form
        if name is not None and not name.isascii():
            canonical(name)
    return Pending(kind, round_id, text, back)  # the data exactly as readers will get it back


class _FloatSeen(Exception):
    pass


def _refuse_float(_text: str) -> float:
    raise _FloatSeen


_SORTED_ENCODE = msgspec.json.Encoder(order="sorted").encode
_DECODE_NO_FLOAT = msgspec.json.Decoder(float_hook=_refuse_float).decode


def _fast_canonical(data: dict[str, Any]) -> tuple[str, Any] | None:
    """``canonical(data)`` and its parse, in C, when that is provably the json module's text; else ``None``.

    msgspec writes keys sorted, strings escaped and integers exactly as ``canonical`` does, and refuses lone
    surrogates, non-str keys, integers past the digit limit and unknown objects as it does. Where they
    differ, the round trip tells: NaN and infinities (msgspec writes ``null``), sets, tuples, bytes,
    enums and other objects msgspec would write as something else come back unequal to ``data``, and a
    float (written ``1e16`` where json writes ``1e+16``) stops the parse. Each goes the json module's way,
    with its text or its refusal. The entry hash covers this text, so it must be byte for byte the same:
    ``tests/journal/test_canonical_fast.py`` checks it over any JSON-like value.
    """
    try:
        raw = _SORTED_ENCODE(data)
        back = _DECODE_NO_FLOAT(raw)
        if back != data:  # an object's own __eq__ may raise too (an array's): the json module's way then
            return None
    except Exception:
        return None
    return raw.decode(), back


def parse_json(text: str | bytes) -> Any:
    """``json.loads(text)``, in C where that is the same value: msgspec's parse of text without a float (a float
    stops it: its digits are the json module's to read) gives back what the json module's does, with a duplicate
    key's last value, big integers and escapes alike; anything it refuses (a lone surrogate's escape, NaN, a
    byte-order mark, a float) is read by the json module, with its value or its error
    (``tests/journal/test_parse_json.py`` checks both over any JSON text)."""
    try:
        return _DECODE_NO_FLOAT(text)
    except Exception:
        return json.loads(text)


def _canonical_parse(text: str) -> Any:
    """The JSON value of ``text`` when ``text`` is provably its canonical form (a parse in C without a float, written
    back by :data:`_SORTED_ENCODE` to the same bytes: :func:`_fast_canonical`'s case); else ``None``, for the
    json module's parse and :func:`canonical` to decide."""
    try:
        parsed = _DECODE_NO_FLOAT(text)
        if _SORTED_ENCODE(parsed) == text.encode():
            return parsed
    except Exception:
        pass
    return None


def canonical(value: Any) -> str:
    """``value`` as canonical JSON text, guaranteed to have a UTF-8 form (the hash and SQLite need it).

    Anything else is a :class:`JournalDataError`: not plain JSON (NaN, sets, objects, non-str keys, an
    integer past Python's 4,300-digit limit), nested too deep to serialise, or text with a lone surrogate.
    """
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise JournalDataError(
            f"journal data must be text with a UTF-8 form; it holds {exc.object[exc.start : exc.end]!r} "
            "(a lone surrogate): nothing was written"
        ) from None
    except RecursionError:
        raise JournalDataError("journal data is nested too deep to record: nothing was written") from None
    except (TypeError, ValueError) as exc:
        raise JournalDataError(
            f"journal data must be plain JSON (str keys, no NaN, no sets): {exc}: nothing was written"
        ) from exc
    return text


def entry_hash(prev_hash: str, *, seq: int, ts: str, kind: str, round_id: str | None, data: Any) -> str:
    payload = prev_hash + canonical([seq, ts, kind, round_id, data])
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _head_text(seq: int, ts: str, kind: str, round_id: str | None) -> str:
    """``canonical([seq, ts, kind, round_id])``: in C for an int and strings (the same text, as for data)."""
    if type(seq) is int and type(ts) is str and type(kind) is str and (round_id is None or type(round_id) is str):
        try:
            return _SORTED_ENCODE([seq, ts, kind, round_id]).decode()
        except Exception:  # a lone surrogate: canonical's refusal says so
            pass
    return canonical([seq, ts, kind, round_id])


def entry_hash_of_text(prev_hash: str, *, seq: int, ts: str, kind: str, round_id: str | None, data_text: str) -> str:
    """:func:`entry_hash` from the data's canonical text, serialised once by the caller: the same digest.

    ``canonical([seq, ts, kind, round_id, data])`` is ``canonical([seq, ts, kind, round_id])`` with its
    closing bracket replaced by ``,`` + ``canonical(data)`` + ``]`` (same separators, keys sorted in both).
    """
    head = _head_text(seq, ts, kind, round_id)
    return hashlib.sha256(f"{prev_hash}{head[:-1]},{data_text}]".encode()).hexdigest()


MAC_BOUNDARY_KIND = "journal-key"
"""The entry a journal that held entries without a MAC writes when it is first given a key: every entry
from it on carries a MAC; the floor accepts entries without one only before it (docs/journal.md)."""


def entry_mac(key: bytes, digest: str) -> str:
    """The entry's MAC: ``HMAC-SHA256(key, hash)`` in hex. The hash covers the entry and, through
    ``prev_hash``, every entry before it, so the MAC of one entry binds its whole history."""
    return hmac.new(key, digest.encode("ascii"), hashlib.sha256).hexdigest()


def key_id(key: bytes) -> str:
    """A key's public name (the first 16 hex digits of ``sha256("shoe-table-key" + key)``): what the
    journal's boundary entry and the floor's credential record show, never the key."""
    return hashlib.sha256(b"shoe-table-key" + key).hexdigest()[:16]


def _parse_data(seq: int, data: object) -> tuple[Any, str | None]:
    """The data column as a JSON object: stored text must be exactly its canonical form."""
    if isinstance(data, dict):
        try:
            canonical(data)
        except JournalError:
            return None, f"entry {seq}: data is not plain JSON (edited?)"
        return data, None
    if not isinstance(data, str):
        return None, f"entry {seq}: data is not text (edited?)"
    fast = _canonical_parse(data)
    if isinstance(fast, dict):  # the usual stored entry: read and found canonical in C
        return fast, None
    try:
        parsed = json.loads(data)
    except ValueError:
        return None, f"entry {seq}: data is not valid JSON (edited?)"
    if not isinstance(parsed, dict):
        return None, f"entry {seq}: data is not a JSON object (edited?)"
    try:
        if canonical(parsed) != data:
            return None, f"entry {seq}: data is not in canonical form (edited?)"
    except JournalError:
        return None, f"entry {seq}: data is not plain JSON (edited?)"
    return parsed, None


def check_record(record: Sequence[object], expect_seq: int, expect_prev: str) -> tuple[int | None, str | None]:
    """One stored record against the chain so far: ``(first bad seq, problem)`` or ``(None, None)`` if good.

    The record's columns are as stored (see ``COLUMNS``); a tampered store may hold any type in any column.
    """
    seq, ts, kind, round_id, data, prev_hash, stored_hash = record
    if not isinstance(seq, int) or isinstance(seq, bool):
        return expect_seq, f"entry {expect_seq}: seq is not an integer (edited?)"
    if seq > expect_seq:
        return expect_seq, f"entry {expect_seq} is missing (deleted?): entry {seq} follows entry {expect_seq - 1}"
    if seq < 1:
        return seq, f"entry {seq}: seq numbers start at 1 (edited?)"
    if seq < expect_seq:
        return seq, f"entry {seq} is out of order: it comes after entry {expect_seq - 1} (reordered or inserted?)"
    for name, value in (("ts", ts), ("kind", kind), ("prev_hash", prev_hash), ("hash", stored_hash)):
        if not isinstance(value, str):
            return seq, f"entry {seq}: {name} is not text (edited?)"
    if round_id is not None and not isinstance(round_id, str):
        return seq, f"entry {seq}: round_id is not text (edited?)"
    parsed, problem = _parse_data(seq, data)
    if problem:
        return seq, problem
    if prev_hash != expect_prev:
        if seq == 1:
            return seq, "entry 1: prev_hash is not the genesis value (the journal's start was replaced?)"
        return seq, (
            f"entry {seq}: prev_hash does not match the hash of entry {seq - 1} "
            "(an entry before it was replaced, inserted or reordered)"
        )
    assert isinstance(ts, str) and isinstance(kind, str)
    if isinstance(data, str):  # checked canonical above: the hash from its text, serialised once
        digest = entry_hash_of_text(expect_prev, seq=seq, ts=ts, kind=kind, round_id=round_id, data_text=data)
    else:
        digest = entry_hash(expect_prev, seq=seq, ts=ts, kind=kind, round_id=round_id, data=parsed)
    if digest != stored_hash:
        return seq, f"entry {seq}: hash does not match its contents (edited?)"
    return None, None


def verify_records(
    records: Iterable[Sequence[object]], *, start_seq: int = 1, start_prev: str = GENESIS
) -> VerifyResult:
    """Recompute the chain over records in stored order and name the first bad one.

    ``start_seq``/``start_prev`` check a slice that begins after a trusted entry. A chain alone cannot
    tell that entries were cut off its end: compare ``last()`` with a hash kept elsewhere for that.
    """
    from shoe.journal.approvals import ApprovalLedger  # it builds on canonical(), defined here

    expect_seq, expect_prev, checked = start_seq, start_prev, 0
    closed: dict[str, int] = {}  # round id -> the seq of its round-closed entry
    approvals = ApprovalLedger(complete=start_seq == 1)
    for record in records:
        bad_seq, problem = check_record(record, expect_seq, expect_prev)
        if not problem:
            bad_seq, problem = _check_round(record, closed)
        if not problem and record[2] == "approval":
            bad_seq, problem = expect_seq, approvals.check(expect_seq, _data_of(record[4]))
        if problem:
            return VerifyResult(ok=False, checked=checked, first_bad_seq=bad_seq, problem=problem)
        expect_seq, expect_prev, checked = expect_seq + 1, str(record[6]), checked + 1
    return VerifyResult(ok=True, checked=checked, first_bad_seq=None, problem=None)


def _data_of(data: object) -> dict[str, Any]:
    """A record's data column, already checked by :func:`check_record` (text in canonical form, or a dict)."""
    parsed = parse_json(data) if isinstance(data, str) else data
    return parsed if isinstance(parsed, dict) else {}


def _check_round(record: Sequence[object], closed: dict[str, int]) -> tuple[int | None, str | None]:
    """A round is closed once, and nothing of it follows its closing (a chain alone allows both).

    Two services writing to one journal made both: one voided a round the other then settled. An
    approval decided or refused after its round closed is journaled outside any round, naming the
    round in its data (docs/people.md, "Approvals and the journal"): this rule holds for it too.
    """
    seq, kind, round_id = record[0], record[2], record[3]
    if not isinstance(round_id, str) or not isinstance(seq, int):
        return None, None
    first = closed.get(round_id)
    if first is not None:
        what = "is closed a second time" if kind == "round-closed" else f"has a {kind} entry"
        return seq, (
            f"entry {seq}: round {round_id} {what} after its closing at entry {first} "
            "(two services writing to one journal?)"
        )
    if kind == "round-closed":
        closed[round_id] = seq
    return None, None


def verify_entries(entries: Iterable[Entry], *, start_seq: int = 1, start_prev: str = GENESIS) -> VerifyResult:
    records = ([getattr(e, name) for name in COLUMNS] for e in entries)
    return verify_records(records, start_seq=start_seq, start_prev=start_prev)
