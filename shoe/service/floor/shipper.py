"""The floor shipper (docs/floor.md): a thread of ``shoed`` that sends the journal's committed entries to
the floor database, in order and in batches, and never the owner thread.

The journal is the outbox. The shipper opens its own read connection to it (SQLite's write-ahead log lets
it read while the owner writes, and it never takes the journal's lock), asks the floor where its journal's
stored chain ends (``floor.head``), and sends what follows (``floor.ship``). At-least-once on the wire,
exactly once in the database: a batch re-sent after a lost answer is a no-op there. A database that is
down, slow or gone is retried with a doubling backoff (to ``max_backoff_s``); the table goes on dealing,
and the backlog drains on reconnect. The cursor the database acknowledged is kept beside the journal
(``journal.sqlite.floor``), so a floor that comes back behind it (an acknowledged entry lost) is noticed.
The URL is the table's own credential (``shoectl floor enrol``): the floor binds every call to it, and
checks each entry's MAC (written by the journal at append) under the table's key.

Refusals are alarms, never retried blindly: a fork (the journal rewritten or an entry edited after it
was shipped), a bad hash, a replaced journal. They show in ``/v1/status`` (``floor.alarm``), the metrics
(``shoe_floor_alarm``), the log and ``shoectl doctor``; the floor keeps its own copy in ``floor.alarms``.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import structlog
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from shoe.floor.client import FloorClient, Head
from shoe.floor.errors import FloorError, redact_url
from shoe.journal import Journal, JournalError

__all__ = ["Shipper", "ShipperCollector", "cursor_path"]

log = structlog.get_logger("shoe.floor.shipper")


def cursor_path(journal: Path) -> Path:
    """The sidecar file with the last cursor the floor acknowledged: ``journal.sqlite.floor``."""
    return journal.with_name(journal.name + ".floor")


def _age(ts: str | None, now: float) -> float:
    if not ts:
        return 0.0
    try:
        return max(0.0, round(now - datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp(), 3))
    except ValueError:
        return 0.0


class Shipper:
    """Ships one journal to the floor; :meth:`status` and the metrics read its figures from any thread."""

    def __init__(
        self,
        journal_path: Path,
        url: str,
        table: str,
        *,
        batch: int = 200,
        poll_s: float = 0.2,
        max_backoff_s: float = 30.0,
        connect_timeout: float = 5.0,
        client: Callable[[], FloorClient] | None = None,
    ) -> None:
        self.journal_path, self.url, self.table = Path(journal_path), url, table
        self.batch, self.poll_s, self.max_backoff_s = batch, poll_s, max_backoff_s
        self._client = (client or (lambda: FloorClient(url, connect_timeout=connect_timeout)))()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._journal: Journal | None = None
        self.journal_id: str | None = None
        self.acked_seq, self.acked_hash = 0, ""
        self._head_known = False
        self.journal_seq: int = 0
        self._oldest_unacked_ts: str | None = None
        self.state: str = "starting"
        self.last_error: str | None = None
        self.alarm: str | None = None
        self._saved: dict[str, Any] | None = None
        self.shipped_total, self.reconnects_total, self.batches_total = 0, 0, 0
        self.last_ack_wall: float | None = None
        self._load_cursor()

    # -- life ------------------------------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="floor-shipper", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 5.0, *, drain_s: float = 0.0) -> None:
        """Stop after the batch in flight (bounded by ``timeout``); closes the read connection and the link.

        ``drain_s``: first give a reachable floor that long to take the last entries (shoed's stop entry).
        """
        if drain_s > 0 and self._thread is not None and self.state in ("shipping", "caught-up", "connecting"):
            self.wait_caught_up(drain_s)
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self._client.close()
        if self._journal is not None and (self._thread is None or not self._thread.is_alive()):
            self._journal.close()

    def _run(self) -> None:
        backoff = 0.5
        while not self._stop.is_set():
            try:
                progressed = self.step()
                backoff = 0.5
                if not progressed:
                    self._stop.wait(self.max_backoff_s if self.state == "refused" else self.poll_s)
            except FloorError as exc:
                self._down(exc)
                self._wait_observing(backoff)
                backoff = min(self.max_backoff_s, backoff * 2)
            except JournalError as exc:
                self._set(state="journal-error", last_error=str(exc))
                log.error("floor shipper: cannot read the journal", error=str(exc))
                self._stop.wait(backoff)
                backoff = min(self.max_backoff_s, backoff * 2)
            except Exception as exc:  # a bug: log it, keep the thread (the table is unaffected) and retry later
                log.exception("floor shipper: unexpected failure")
                self._set(state="error", last_error=f"{type(exc).__name__}: {exc}")
                self._client.close()
                self._head_known = False
                self._stop.wait(self.max_backoff_s)

    def _wait_observing(self, seconds: float) -> None:
        """Wait out a backoff, keeping the lag figures current (the table goes on writing meanwhile)."""
        end = time.monotonic() + seconds
        while not self._stop.wait(min(0.5, max(0.0, end - time.monotonic()))) and time.monotonic() < end:
            with contextlib.suppress(JournalError):
                if self._journal is not None:
                    self._observe(self._journal)

    # -- one step (tests call it directly) -------------------------------------------------------------

    def step(self) -> bool:
        """Read what follows the acknowledged cursor and send one batch: True if the floor took entries."""
        journal = self._open()
        if self.journal_id is None:
            first = journal.first()
            if first is None:
                self._set(state="caught-up")
                return False
            self.journal_id = first.hash
        self._observe(journal)
        if not self._head_known:
            self._resume(journal, self._client.head(self.table, self.journal_id))
        if self.state == "refused":
            self._head_known = False  # look again next time: the floor's operators may have resolved it
            return False
        batch = list(itertools.islice(journal.entries(after_seq=self.acked_seq), self.batch))
        if not batch:
            self._set(state="caught-up", last_error=None)
            return False
        self._set(state="shipping")
        shipped = self._client.ship(self.table, self.journal_id, batch)
        self.batches_total += 1
        before = self.acked_seq
        if shipped.status in ("ok", "gap"):
            self._ack(shipped.head_seq, shipped.head_hash)
            self._observe(journal)
            if shipped.status == "gap":
                log.warning("floor shipper: the floor is behind the batch", detail=shipped.detail)
            return self.acked_seq > before or shipped.status == "gap"
        self._refused(shipped.status, shipped.detail or shipped.status)
        return False

    def _open(self) -> Journal:
        if self._journal is None:
            self._journal = Journal.open(self.journal_path)
        return self._journal

    def _resume(self, journal: Journal, head: Head) -> None:
        """Take the floor's head as the cursor; compare it with ours and with the local journal."""
        if head.state == "refused":  # this credential is not the table's: the floor kept the alarm
            self._refused("refused", head.detail or f"the floor refuses this credential for table {self.table}")
            return
        if head.table_journal not in (None, self.journal_id):
            self._client.ship(self.table, self.journal_id or "", [])  # the floor keeps its alarm too
            self._refused("replaced", f"the floor holds journal {head.table_journal} for table {self.table}; this "
                          f"journal ({self.journal_id}) was refused (the table's journal was replaced)")  # fmt: skip
            return
        if head.state == "forked":
            self._refused("fork", f"the floor marked this journal forked at entry {head.seq + 1}: see floor.alarms")
            return
        cursor = self._cursor_for_journal()
        if cursor is not None and head.seq < cursor[0]:
            log.error("floor shipper: the floor lost acknowledged entries", floor_head=head.seq, acked=cursor[0])
            self._set(last_error=f"the floor holds entries up to {head.seq} but had acknowledged {cursor[0]}: "
                      "re-sending them (a failover to a standby that was not synchronous?)")  # fmt: skip
        if head.seq > 0:
            local = next(journal.entries(after_seq=head.seq - 1), None)
            if local is None or local.seq != head.seq or local.hash != head.hash:
                why = "is missing" if local is None or local.seq != head.seq else f"has hash {local.hash}"
                detail = (f"the floor holds entry {head.seq} with hash {head.hash}, but the local journal's entry "
                          f"{head.seq} {why} (the local journal was truncated, edited or replaced)")  # fmt: skip
                self._client.report_divergence(self.table, self.journal_id or "", head.seq, detail)
                self._refused("diverged", detail)
                return
        self._ack(head.seq, head.hash, save=cursor is None or head.seq != cursor[0])
        self._head_known = True
        if self.state in ("refused", "down", "starting"):
            self._set(state="connecting", alarm=None)

    def _observe(self, journal: Journal) -> None:
        last = journal.last()
        nxt = next(journal.entries(after_seq=self.acked_seq), None) if last and last.seq > self.acked_seq else None
        with self._lock:
            self.journal_seq = last.seq if last else 0
            self._oldest_unacked_ts = nxt.ts if nxt else None

    def _ack(self, seq: int, digest: str, *, save: bool = True) -> None:
        with self._lock:
            self.shipped_total += max(0, seq - self.acked_seq) if self._head_known else 0
            self.acked_seq, self.acked_hash = seq, digest
            self.last_ack_wall = time.time()
        if save:
            self._save_cursor()

    def _down(self, exc: FloorError) -> None:
        error = str(exc)
        if self.state != "down" or error != self.last_error:
            if exc.kind == "not-migrated":
                log.error("floor shipper: the floor database answers but is not migrated; retrying", error=error)
            elif exc.kind in ("permission", "usage"):
                log.error("floor shipper: the floor database refuses this table's credential; retrying", error=error)
            else:
                log.warning("floor shipper: the floor database is unreachable; retrying", error=error)
        if self.state != "down":
            self.reconnects_total += 1
        self._client.close()
        self._head_known = False
        self._set(state="down", last_error=error)
        with contextlib.suppress(JournalError, FloorError):
            if self._journal is not None:
                self._observe(self._journal)

    def _refused(self, status: str, detail: str) -> None:
        if self.alarm != detail:
            log.error("floor shipper: the floor refused this journal (alarm)", status=status, detail=detail)
        self._set(state="refused", alarm=detail, last_error=None)

    def _set(self, **values: Any) -> None:
        with self._lock:
            for name, value in values.items():
                setattr(self, name, value)

    # -- the acknowledged cursor beside the journal ----------------------------------------------------

    def _load_cursor(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            saved = json.loads(cursor_path(self.journal_path).read_text(encoding="utf-8"))
            if isinstance(saved, dict) and isinstance(saved.get("acked_seq"), int):
                self._saved = saved
                self.acked_seq = saved["acked_seq"]  # for the lag while the floor is unreachable at start

    def _cursor_for_journal(self) -> tuple[int, str] | None:
        saved = self._saved
        if saved is None or saved.get("journal_id") != self.journal_id or saved.get("table") != self.table:
            return None
        return int(saved["acked_seq"]), str(saved.get("acked_hash", ""))

    def _save_cursor(self) -> None:
        doc = {"table": self.table, "journal_id": self.journal_id, "acked_seq": self.acked_seq,
               "acked_hash": self.acked_hash}  # fmt: skip
        path = cursor_path(self.journal_path)
        tmp = path.with_name(path.name + ".tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(doc, f)
            os.replace(tmp, path)
            self._saved = doc
        except OSError as exc:  # the floor is the truth; the sidecar only helps notice a floor that fell back
            log.warning("floor shipper: cannot save the acknowledged cursor", path=str(path), error=str(exc))

    # -- reads (any thread) ----------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """The ``floor`` part of ``/v1/status``: state, cursor, lag in entries and seconds, alarm."""
        now = time.time()
        with self._lock:
            lag = max(0, self.journal_seq - self.acked_seq)
            return {
                "url": redact_url(self.url),
                "table": self.table,
                "state": self.state,
                "journal_id": self.journal_id,
                "acked_seq": self.acked_seq,
                "journal_seq": self.journal_seq,
                "lag_entries": lag,
                "lag_seconds": _age(self._oldest_unacked_ts, now) if lag else 0.0,
                "last_ack_age_s": None if self.last_ack_wall is None else round(now - self.last_ack_wall, 3),
                "alarm": self.alarm,
                "last_error": self.last_error,
            }

    def wait_caught_up(self, timeout: float) -> bool:
        """For tests and a clean stop: True once everything the journal holds is acknowledged."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            s = self.status()
            if s["state"] == "caught-up" and s["lag_entries"] == 0 and s["journal_seq"] > 0:
                journal = self._journal
                last = journal.last() if journal is not None else None
                if last is None or last.seq <= s["acked_seq"]:
                    return True
            time.sleep(0.05)
        return False


class ShipperCollector(Collector):
    """``shoe_floor_*`` gauges and counters, read from :meth:`Shipper.status` when scraped."""

    def __init__(self, shipper: Shipper) -> None:
        self._shipper = shipper

    def collect(self) -> Iterator[Metric]:
        s, sh = self._shipper.status(), self._shipper
        yield GaugeMetricFamily("shoe_floor_lag_entries", "Journal entries the floor has not acknowledged.",
                                s["lag_entries"])  # fmt: skip
        yield GaugeMetricFamily("shoe_floor_lag_seconds", "Age of the oldest entry the floor has not acknowledged.",
                                s["lag_seconds"])  # fmt: skip
        yield GaugeMetricFamily("shoe_floor_acked_seq", "The last journal seq the floor acknowledged.", s["acked_seq"])
        yield GaugeMetricFamily("shoe_floor_up", "1 while the floor database answers.",
                                int(s["state"] in ("shipping", "caught-up", "connecting")))  # fmt: skip
        yield GaugeMetricFamily("shoe_floor_alarm", "1 while the floor refuses this journal.", int(bool(s["alarm"])))
        yield CounterMetricFamily("shoe_floor_shipped_entries", "Entries the floor acknowledged.", sh.shipped_total)
        yield CounterMetricFamily("shoe_floor_outages", "Times the floor database became unreachable.",
                                  sh.reconnects_total)  # fmt: skip
