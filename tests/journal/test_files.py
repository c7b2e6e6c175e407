"""The journal's files under a running service: a deleted or replaced
write-ahead log or main file stops writing and saves what can be saved; one lock per journal; a
journal that the lock file says is not the one used here is refused."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from shoe.journal import Journal, JournalError
from shoe.journal.lock import (
    RECORD_BYTES,
    JournalLock,
    JournalLocked,
    JournalMismatch,
    Marker,
    checkpoint,
    lock_path,
)


def _fill(journal: Journal, n: int) -> None:
    for i in range(n):
        journal.append("card", {"i": i}, round_id="R1")


def test_a_deleted_wal_stops_writing_and_its_entries_are_saved(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    journal = Journal.open(path)
    _fill(journal, 50)
    os.unlink(path.with_name("j.sqlite-wal"))
    with pytest.raises(JournalError, match=r"write-ahead log .* was deleted .*every committed entry was copied"):
        journal.append("card", {"i": 50}, round_id="R1")
    with pytest.raises(JournalError, match="refuses further writes"):  # and every write after it
        journal.append("card", {"i": 51}, round_id="R1")
    journal.close()
    with Journal.open(path) as again:
        assert [e.data["i"] for e in again.entries()] == list(range(50))  # everything acknowledged is there
        assert again.verify().ok


def test_a_wal_deleted_during_a_commit_keeps_its_acknowledged_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "j.sqlite"
    journal = Journal.open(path)
    _fill(journal, 10)
    inside = journal._keyed_batch

    def delete_then_go_on(conn, batch):  # type: ignore[no-untyped-def]  # after the files were checked, in the commit
        os.unlink(path.with_name("j.sqlite-wal"))
        return inside(conn, batch)

    monkeypatch.setattr(journal, "_keyed_batch", delete_then_go_on)
    assert journal.append("card", {"i": 10}, round_id="R1").seq == 11  # acknowledged: it is in the WAL SQLite holds
    monkeypatch.undo()
    with pytest.raises(JournalError, match=r"write-ahead log .* was deleted .*every committed entry was copied"):
        journal.append("card", {"i": 11}, round_id="R1")  # the next write finds the WAL gone and saves it
    journal.close()
    with Journal.open(path) as again:  # exactly what was acknowledged: entry 10 too, entry 11 not
        assert [e.data["i"] for e in again.entries()] == list(range(11))
        assert again.verify().ok


def test_a_wal_replaced_by_another_file_is_detected(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal.open(path) as journal:
        _fill(journal, 5)
        wal = path.with_name("j.sqlite-wal")
        shutil.copy(wal, tmp_path / "copy")
        os.replace(tmp_path / "copy", wal)
        with pytest.raises(JournalError, match="deleted or replaced"):
            journal.append("card", {"i": 5})


def test_a_deleted_main_file_names_the_copy_still_open(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal.open(path) as journal:
        _fill(journal, 3)
        os.unlink(path)
        with pytest.raises(JournalError, match=r"deleted or replaced.*/proc/\d+/fd/\d+"):
            journal.append("card", {"i": 3})


def test_checkpoint_puts_every_entry_in_the_main_file(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal.open(path) as journal:
        _fill(journal, 20)
        assert journal.checkpoint() is True
        shutil.copy(path, tmp_path / "main-only.sqlite")  # the main file alone, no WAL
    with Journal.open(tmp_path / "main-only.sqlite") as copy:
        assert copy.last().seq == 20  # type: ignore[union-attr]


def test_one_lock_per_journal_naming_the_holder(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    first = JournalLock.acquire(path)
    with pytest.raises(JournalLocked, match=rf"in use by another shoed \(pid {os.getpid()}") as refused:
        JournalLock.acquire(path)
    assert refused.value.holder == os.getpid()
    first.release()
    JournalLock.acquire(path).release()  # released: free again
    assert oct(lock_path(path).stat().st_mode & 0o777) == "0o600"


def test_the_lock_is_taken_in_a_state_folder_not_made_yet(tmp_path: Path) -> None:
    path = tmp_path / "state" / "shoed" / "journal.sqlite"
    JournalLock.acquire(path).release()
    assert lock_path(path).exists() and oct(path.parent.stat().st_mode & 0o777) == "0o700"


@pytest.mark.parametrize("case", ["missing", "empty", "other chain", "shorter"])
def test_a_journal_that_is_not_the_one_used_here_is_refused(tmp_path: Path, case: str) -> None:
    path = tmp_path / "j.sqlite"
    with Journal.open(path) as journal:
        _fill(journal, 10)
        first = next(journal.entries()).hash
    lock = JournalLock.acquire(path)
    lock.record(first_hash=first, last_seq=10)
    lock.release()
    lock = JournalLock.acquire(path)
    last_seq, first_hash = {"missing": (0, None), "empty": (0, None), "other chain": (12, "f" * 64),
                            "shorter": (7, first)}[case]  # fmt: skip
    with pytest.raises(JournalMismatch, match="--new-journal"):
        lock.check(path, first_hash=first_hash, last_seq=last_seq)
    lock.check(path, first_hash=first, last_seq=10)  # the same journal, or longer: fine
    lock.check(path, first_hash=first, last_seq=11)
    lock.release()


@pytest.mark.parametrize("second", ["round-closed", "settlement"])
def test_verify_flags_a_round_closed_twice_or_written_after_its_closing(tmp_path: Path, second: str) -> None:
    path = tmp_path / "j.sqlite"
    with Journal.open(path) as journal:
        journal.append("round-opened", {"game": "mississippi-stud"}, round_id="R1")
        journal.append("round-closed", {"outcome": "void"}, round_id="R1")
        journal.append("service", {"event": "start"})
        journal.append(second, {"outcome": "complete"}, round_id="R1")
        journal.append("round-opened", {"game": "mississippi-stud"}, round_id="R2")
        result = journal.verify()
    assert (result.ok, result.first_bad_seq, result.checked) == (False, 4, 3)
    assert result.problem is not None and "round R1" in result.problem
    assert "after its closing at entry 2" in result.problem


def test_the_marker_is_rewritten_in_place_and_reads_back_after_each_checkpoint(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    older = b'{"pid": 1, "first_hash": null, "last_seq": 0}\n' + b"x" * 600  # a longer file from before
    lock_path(path).write_bytes(older)
    lock = JournalLock.acquire(path)
    journal = Journal.open(path)
    sizes = []
    for n in (3, 7, 12):
        _fill(journal, n)
        checkpoint(journal, lock)
        sizes.append(lock_path(path).stat().st_size)
        marker = Marker.read(lock_path(path).read_bytes())
        assert marker == Marker(next(journal.entries()).hash, journal.last().seq)  # type: ignore[union-attr]
    assert sizes == [RECORD_BYTES] * 3  # cut to the record's size once, then overwritten at that size
    journal.close()
    lock.release()
    assert JournalLock.acquire(path).previous == Marker(marker.first_hash, 22)


def test_bounds_are_the_first_hash_and_the_last_seq_whoever_asks_first(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal.open(path) as journal:
        assert journal.bounds() == (None, 0)
        _fill(journal, 4)
        first = next(journal.entries()).hash
        assert journal.bounds() == (first, 4)
        _fill(journal, 2)
        assert journal.bounds() == (first, 6)
    with Journal.open(path) as again:  # nothing in memory yet: both read from the file
        assert again.bounds() == (first, 6) == (again.first().hash, again.last().seq)  # type: ignore[union-attr]


def _record(lock: JournalLock, first_hash: str, last_seq: int) -> bytes:
    lock.record(first_hash=first_hash, last_seq=last_seq)
    return lock.path.read_bytes()


def test_a_marker_torn_between_two_records_is_one_of_them_or_none(tmp_path: Path) -> None:
    """The record is overwritten in place: a power cut may leave the first bytes of the new one over the rest of
    the old one. Every such mix, at every byte, reads as the old marker, the new one, or no marker: never a
    last seq that was never recorded (one above the journal's own would refuse the next start)."""
    path = tmp_path / "j.sqlite"
    lock = JournalLock.acquire(path)
    first = "ab" * 32
    for old_seq, new_seq in ((1199, 1234), (999, 1000), (9, 10), (41, 50)):
        old, new = _record(lock, first, old_seq), _record(lock, first, new_seq)
        assert len(old) == len(new) == RECORD_BYTES
        allowed = {None, Marker(first, old_seq), Marker(first, new_seq)}
        for cut in range(RECORD_BYTES + 1):
            torn = Marker.read(new[:cut] + old[cut:])
            assert torn in allowed, (old_seq, new_seq, cut, torn)
    lock.release()


def test_a_marker_written_whole_before_records_carried_a_check_still_reads() -> None:
    legacy = b'{"pid": 4321, "first_hash": "' + b"cd" * 32 + b'", "last_seq": 77}\n'  # truncated, then written
    assert Marker.read(legacy) == Marker("cd" * 32, 77)
    padded = legacy.rstrip(b"\n").ljust(RECORD_BYTES - 1) + b"\n"  # in place, so it must carry its check
    assert Marker.read(padded) is None
    assert Marker.read(padded.replace(b"77", b"78")) is None
