"""``TableService``: the table's controller, one owner thread behind a thread-safe facade.

The owner thread (:mod:`.owner`) holds the journal, the shoe link and the round; ``submit`` puts a
command on its queue and waits for the answer, which comes only after everything the command did is
in the journal. Views, health, events and metrics are read from snapshots the owner publishes, so the
HTTP threads never touch the shoe or the round. ``kill()`` (for tests) stops the owner as a power cut
would: no stop entry, journal and link closed under it.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import msgspec
import structlog
from prometheus_client import CollectorRegistry

from drivers.errors import ShoeError
from drivers.transport import Transport, open_transport, redact_port
from shoe import present
from shoe.hands import tables as hand_tables
from shoe.journal import Entry, JournalDataError
from shoe.service.answer import Answer, AnswerTimeout
from shoe.service.api.actions import execute
from shoe.service.config.settings import ServiceConfig
from shoe.service.errors import ErrorKind, Role, ServiceError, from_shoe
from shoe.service.journal.feed import EventFeed, Held
from shoe.service.journal.secrecy import public_view
from shoe.service.metrics import Live, Metrics
from shoe.service.owner import Command, Owner, ShoeItem
from shoe.service.rounds.mississippi import MississippiRun
from shoe.service.rounds.run import RoundRun
from shoe.service.rounds.stud import StudRun
from shoe.version import version

if TYPE_CHECKING:
    from shoe.journal.lock import JournalLock

__all__ = ["GAMES", "TableService"]

log = structlog.get_logger("shoe.service")
GAMES: dict[str, type[RoundRun]] = {MississippiRun.game: MississippiRun, StudRun.game: StudRun}
STOP, KILL = "__stop__", "__kill__"
READ_COUNTERS = "__read-counters__"  # a read of the shoe on the owner thread between items: changes nothing
PEOPLE = "__people__"  # a change of the people desk (shoe.people), journaled on the owner thread
APPROVAL = "__approval__"  # a person approves or rejects a waiting step (shoe.service.people.approvals)
TABLES_AFTER_S = 1.0  # the hand tables are built this long after READY (TableService._build_tables)
TICK_S = 2.0  # the longest the owner sleeps; it wakes sooner when work is due (Owner.next_command)




class TableService:
    def __init__(self, config: ServiceConfig, *, transport_factory: Callable[[], Transport] | None = None) -> None:
        self.config = config
        self._feed = EventFeed()
        self._metrics = Metrics(self._live_figures)
        factory = transport_factory or (lambda: open_transport(config.shoe_port))
        self._owner = Owner(config, factory, self._feed, self._metrics, GAMES)
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._tables = threading.Thread(target=self._build_tables, name="hand-tables", daemon=True)
        self._stopping_tables = threading.Event()
        self._boot_error: BaseException | None = None
        self._started = time.monotonic()
        self._running = False
        self.floor_status: Callable[[], dict[str, Any]] | None = None  # the floor shipper's, when shoed starts one
        self.on_owner_end: Callable[[], None] | None = None  # called when the owner thread's loop ends (shoed)

    def attach_floor(self, status: Callable[[], dict[str, Any]], alarm: Callable[[], str | None]) -> None:
        """The floor shipper's status (``/v1/status`` ``floor``) and alarm (journaled by the owner: FloorWatch)."""
        self.floor_status = status
        self._owner.floor_watch.source = alarm

    def follow_journal(self, follower: Callable[[Sequence[Entry]], None]) -> None:
        """Give ``follower`` the entries of every commit from now on, on the owner thread, after the commit: it
        must only queue them (the report's summary, ``shoe.api.report``). The list is swapped, never changed in place,
        so the owner thread may be walking the old one meanwhile."""
        sink = self._owner.sink
        sink.followers = [*sink.followers, follower]

    # -- life --------------------------------------------------------------------------------------

    def start(self, *, new_journal: bool = False, lock: JournalLock | None = None) -> None:
        """Lock and open the journal, open the shoe, recover, start the owner thread; return when ready.

        ``new_journal``: start even on a journal the lock file's marker says is not the one used here
        (missing, another chain, shorter); journaled in the start entry. Raises ``JournalLocked`` when
        another process holds the journal. ``lock``: the journal's lock, already taken (``shoed`` takes it
        before it serves its first status); released with the journal.
        """
        if self._thread is not None:
            raise RuntimeError("TableService.start() called twice")
        self._owner.sink.new_journal = new_journal
        if lock is not None:
            self._owner.sink.lock = lock
        self._started = time.monotonic()
        self._thread = threading.Thread(target=self._main, name="shoed-owner", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._boot_error is not None:
            self._thread.join()
            raise self._boot_error
        self._running = True

    def _main(self) -> None:
        structlog.contextvars.bind_contextvars(table=self.config.table)
        owner = self._owner
        try:
            with owner.shown.busy:
                owner.boot()
        except BaseException as exc:
            owner.shown.freeze()
            self._boot_error = exc
            owner.shutdown(clean=False)
            self._ready.set()
            return
        self._ready.set()
        self._tables.start()
        while True:
            item = owner.next_command(TICK_S)
            if owner.killed:
                break
            busy = owner.shown.busy  # the round's view is built by a reader only between items
            busy.acquire()
            try:
                if isinstance(item, ShoeItem):
                    owner.handle_shoe(item.item)
                    owner.after()
                elif item is not None and item.action == READ_COUNTERS:
                    _read_counters(owner, item)
                elif item is not None and item.action == PEOPLE:
                    _journal_people(owner, item)
                elif item is not None and item.action == APPROVAL:
                    owner.approvals.decide(owner, item)
                    owner.after()
                elif item is not None and item.action in (STOP, KILL):
                    owner.shutdown(clean=item.action == STOP)
                    item.future.set_result({})
                    break
                elif item is not None:
                    execute(owner, item)
                if owner.dead():  # the item's journal write failed: stop now, not at the next wake (TICK_S)
                    break
                owner.tick()
            except Exception as exc:
                if owner.dead():
                    break
                log.exception("owner thread: item failed")
                owner.recover(exc)  # memory equals the journal again, or the service stops
                if owner.dead():
                    break
            finally:
                if owner.dead():  # memory may be ahead of the journal now: no view is built from it
                    owner.shown.freeze()
                busy.release()
        if owner.dead():  # a power cut (tests) or a failed journal write: no stop entry
            owner.shutdown(clean=False)
        self._running = False
        self._stopping_tables.set()  # an owner that ended by itself settles nothing more: no table build
        if self.on_owner_end is not None:
            self.on_owner_end()

    def _build_tables(self) -> None:
        """Build the hand evaluator's tables (~0.4 s) :data:`TABLES_AFTER_S` after READY.

        Not before READY (on first use they stalled the first settlement of the day), nor beside the boot
        or its first second (they took the GIL from it: every syscall of the boot, the link's resync after
        it and the first requests then waited for the build's switch interval, ~0.3 s of a start). A
        settlement that comes first builds them itself, or waits for this build (tables.build holds a
        lock). A service stopped before then builds nothing.
        """
        if not self._stopping_tables.wait(TABLES_AFTER_S):
            hand_tables.build()

    def stop(self) -> None:
        """Finish the current command, refuse the queued ones, journal a stop entry, close everything."""
        if not self._running or self._thread is None:
            return
        self._owner.stopping = True
        future = Answer()
        self._owner.inbox.put(Command(STOP, {}, None, future))
        self._thread.join()
        self._running = False
        self._stopping_tables.set()
        if self._tables.is_alive():
            self._tables.join(30)  # a stop while they are built: the build ends first
        log.info("service stopped", journal_seq=self._feed.latest)

    def kill(self) -> None:
        """Stop as abruptly as a power cut (tests): no stop entry; journal and link closed at once."""
        owner = self._owner
        owner.killed = True
        sink, client = owner.sink, owner.supervisor.client
        if sink.journal is not None:
            sink.journal.close()
        if client is not None:
            client.close()
        if sink.lock is not None:  # the kernel would release it with the process
            sink.lock.release()
        owner.inbox.put(Command(KILL, {}, None, Answer()))
        if self._thread is not None:
            self._thread.join()
        self._running = False
        if self._tables.is_alive():
            self._tables.join(30)

    # -- commands ----------------------------------------------------------------------------------

    def submit(
        self,
        action: str,
        params: Mapping[str, Any] | msgspec.Struct | None,
        role: Role,
        by: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """Run ``action`` on the owner thread; return its accepted record, secrecy-filtered.

        ``params`` is the action's request (``shoe.service.api.requests``), or a mapping converted to it with
        the same checks as the HTTP edge (``bad-request`` names the field's path).
        """
        request = params if isinstance(params, msgspec.Struct) else dict(params or {})
        timeout = self.config.submit_timeout + (self.config.timeouts.scan if action == "reveal" else 0.0)
        return self._on_owner(Command(action, request, role, Answer(), by), timeout)

    def decide_approval(
        self,
        request_id: str,
        approve: bool,
        by: Mapping[str, str] | None,
        staff_roles: frozenset[str],
        digest: str | None = None,
    ) -> dict[str, Any]:
        """A person (``by``, holding the employee roles ``staff_roles``) approves or rejects a waiting step;
        approved, the step runs now and its reply is ``result`` (shoe.service.people.approvals). ``digest``: the
        request's digest as the approver's display showed it (refused when it is not the request's)."""
        params = {"request_id": request_id, "approve": approve, "staff_roles": sorted(staff_roles), "digest": digest}
        timeout = self.config.submit_timeout + self.config.timeouts.scan
        return self._on_owner(Command(APPROVAL, params, None, Answer(), by), timeout)

    def approvals_view(self) -> list[dict[str, Any]]:
        """The waiting requests, then the last decided ones (a copy the owner thread published)."""
        return copy.deepcopy(self._owner.approvals.shown)

    def journal_people(self, data: Mapping[str, Any], by: Mapping[str, str] | None) -> None:
        """Append one ``people`` entry (shoe.people.desk) on the owner thread; durable on return, or raises."""
        self._on_owner(Command(PEOPLE, dict(data), None, Answer(), by), self.config.submit_timeout)

    def shoe_counters(self) -> dict[str, Any]:
        """The shoe's lifetime counters (COUNTERS, protocols/SPEC.md §3), asked of the shoe now by the owner
        thread (the only one that talks to it), between two items: ``{"shoe", "read_at", "counters"}``."""
        return self._on_owner(Command(READ_COUNTERS, {}, None, Answer()), self.config.submit_timeout)

    def _on_owner(self, command: Command, timeout: float) -> dict[str, Any]:
        if not self._running:
            raise ServiceError("not-running", "the service is not running", kind=ErrorKind.UNAVAILABLE)
        future = command.future
        self._owner.inbox.put(command)
        try:
            return future.result(timeout=timeout)
        except AnswerTimeout:
            if future.cancel():
                raise ServiceError(
                    "busy",
                    "the service did not get to the action in time; nothing was done",
                    kind=ErrorKind.UNAVAILABLE,
                ) from None
            raise ServiceError(
                "timeout",
                "the action is still running; check the round before repeating it",
                kind=ErrorKind.UNAVAILABLE,
            ) from None

    # -- reads (any thread) ------------------------------------------------------------------------

    def round_view(self, role: Role) -> dict[str, Any] | None:
        """The current (or last) round as anyone may see it: the same for every role."""
        view = self._owner.shown.view
        return None if view is None else copy.deepcopy(view)

    def deck_view(self) -> dict[str, Any] | None:
        """The deck in the shoe (``shoe.service.deck.cycle``): the same for every role; None before the start."""
        view = self._owner.shown.deck
        return None if view is None else copy.deepcopy(view)

    def events_since(self, cursor: int, timeout: float) -> tuple[int, list[dict[str, Any]]]:
        return self._feed.since(cursor, timeout)

    def events_json_since(self, cursor: int, timeout: float) -> tuple[int, list[Held]]:
        """:meth:`events_since`, each event as the feed holds it: (cursor, type, compact JSON)."""
        return self._feed.since_json(cursor, timeout)

    def health(self) -> dict[str, Any]:
        shown = self._owner.shown
        return {
            "service": {
                "version": version(),
                "uptime_s": round(time.monotonic() - self._started, 3),
                "journal": str(self.config.journal),
                "journal_seq": self._feed.latest,
                "table": self.config.table,
                "running": self._running,
            },
            "shoe": {
                "link": shown.link,
                "port": redact_port(self.config.shoe_port),  # never its options (the emulator's deck, seed)
                "identity": copy.deepcopy(shown.identity),
                "status": copy.deepcopy(shown.status),
            },
            "round": copy.deepcopy(shown.summary),
            "deck": copy.deepcopy(shown.deck),
            "floor": None if self.floor_status is None else self.floor_status(),
            "integrity": self._owner.integrity.status(),  # the program's and the shoe's verification
        }

    def metrics_snapshot(self) -> dict[str, Any]:
        """Every metric as a plain dict (:meth:`Metrics.snapshot`), for in-process readers."""
        return self._metrics.snapshot()

    @property
    def metrics_registry(self) -> CollectorRegistry:
        """The private registry ``GET /metrics`` exposes (shoe.service.metrics)."""
        return self._metrics.registry

    def _live_figures(self) -> Live:
        """Read when scraped, from what the owner publishes. The link's statistics are plain counters its
        reader thread writes; reading them never touches the shoe."""
        owner = self._owner
        client, summary = owner.supervisor.client, owner.shown.summary
        return Live(
            journal_seq=self._feed.latest,
            link_up=owner.shown.link == "up",
            round_live=summary is not None and not summary.get("closed"),
            uptime_seconds=round(time.monotonic() - self._started, 3),
            link=None if client is None else client.link.stats,
        )

    @property
    def metrics(self) -> dict[str, Any]:
        return self.metrics_snapshot()

    def responsive(self, limit: float) -> bool:
        """For the watchdog: the owner thread is alive and has looped within ``limit`` seconds."""
        alive = self._thread is not None and self._thread.is_alive()
        return alive and time.monotonic() - self._owner.shown.heartbeat < limit


def _read_counters(owner: Owner, cmd: Command) -> None:
    """Answer ``shoe_counters`` on the owner thread; a shoe that cannot answer is ``shoe-unavailable`` (503)."""
    if not cmd.future.set_running_or_notify_cancel():
        return
    try:
        if owner.stopping:
            raise ServiceError("stopping", "the service is stopping", kind=ErrorKind.UNAVAILABLE)
        counters = owner.supervisor.shoe().counters()
    except ServiceError as exc:
        cmd.future.set_exception(exc)
        return
    except ShoeError as exc:
        cmd.future.set_exception(from_shoe(exc))
        return
    except Exception:
        cmd.future.set_exception(ServiceError("internal", "internal error; the service log has the details",
                                              kind=ErrorKind.INTERNAL))  # fmt: skip
        raise
    read_at = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    figures = public_view("shoe-counters-figures", present.counters(counters))  # only its declared fields
    answer = {"shoe": owner.supervisor.shoe_serial(), "read_at": read_at, "counters": figures}
    cmd.future.set_result(public_view("shoe-counters", answer))


def _journal_people(owner: Owner, item: Command) -> None:
    """A ``people`` entry, between two items: the people desk stores its change only once this returned."""
    if not item.future.set_running_or_notify_cancel():
        return
    assert isinstance(item.params, Mapping)
    owner.sink.by = item.by
    try:
        owner.desk.append("people", dict(item.params), None)
    except JournalDataError as exc:  # checked before writing: nothing was written (a bug of the people desk)
        item.future.set_exception(ServiceError("internal", str(exc), kind=ErrorKind.INTERNAL))
        return
    except Exception as exc:  # a failed write: refused, then the owner loop recovers (or the service stops)
        item.future.set_exception(
            ServiceError(
                "journal-error", "the change was not journaled, so it was not made", kind=ErrorKind.UNAVAILABLE
            )
        )
        raise exc from None
    finally:
        owner.sink.by = None
    item.future.set_result({})
