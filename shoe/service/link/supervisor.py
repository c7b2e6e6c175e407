"""The shoe link's supervision: connecting and reconnecting, the link thread's callback, the shoe's
status, its position against the journal's, alarms, and the shoe operations the round desk uses.

The link is authenticated (SPEC §13) with the table's pairing key (``[shoe] key_file``, default
``shoe.key`` beside the journal; ``drivers.keyfile`` refuses a file others may read). The embedded
emulator (an ``emu://`` port) is paired out of the box: the key is made on first start and given to the
in-process emulator, as a technician pairs a real shoe with ``shoectl pair``. No session (a shoe not
paired, another key, a key file refused) is a blocking alarm that names the cause and the fix; a plain
link (no key on this host, a v1.0 shoe) is driven but shown unauthenticated, with an alarm unless
``[shoe] allow_unauthenticated`` says this is a bench. A table that holds a key never falls back to
plain frames.

Only the owner thread calls it, except ``post``, which the link's reader thread calls for every event
and notice (it notes the read time and the link state, and queues the item for the owner). What it
learns for other threads (link state, identity, status) it writes into the :class:`Snapshots`.
"""

from __future__ import annotations

import queue
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import structlog

from drivers.client import ShoeClient
from drivers.errors import ShoeAuthError, ShoeDiscrepancy, ShoeError, ShoeProtocolError, ShoeTimeout
from drivers.keyfile import create_key, load_key
from drivers.notices import LinkLost, LinkRestored, Notice, Resynced
from drivers.stacks import Stack
from drivers.transport import Transport, redact_port, shown_port_text
from protocols import messages as m
from protocols.codes import NakCode
from protocols.fields import CardRead
from shoe import present as render
from shoe.service.config.settings import ServiceConfig
from shoe.service.errors import ErrorKind, ServiceError
from shoe.service.journal.secrecy import scrub_text
from shoe.service.journal.sink import JournalSink
from shoe.service.rounds.recovery import POSITION_EVENT, journal_position, judge_position
from shoe.service.snapshots import Snapshots

if TYPE_CHECKING:
    from shoe.service.rounds.run import RoundRun

__all__ = ["STATUS_EVERY_S", "LinkSupervisor", "ShoeItem"]

log = structlog.get_logger("shoe.service")
STATUS_EVERY_S = 5.0


@dataclass(frozen=True)
class ShoeItem:
    """A shoe event or link notice, queued for the owner thread."""

    item: m.Event | Notice


class LinkSupervisor:
    def __init__(
        self,
        config: ServiceConfig,
        transport_factory: Callable[[], Transport],
        inbox: queue.SimpleQueue[Any],
        sink: JournalSink,
        *,
        shown: Snapshots,
        current: Callable[[], RoundRun | None],
    ) -> None:
        self.config = config
        self.transport_factory = transport_factory
        self.inbox = inbox
        self.sink = sink
        self.shown = shown
        self.current = current  # the round on the desk (its id for alarms; a paused one's announced stack)
        self.client: ShoeClient | None = None
        self.transport: Transport | None = None  # the one the client was opened on (reopened ones reach the same shoe)
        self.boot_id: int | None = None
        self.alarm: dict[str, Any] | None = None
        """An open alarm that refuses new rounds until a technician acknowledges it (``clear-fault``)."""
        self._next_connect = 0.0
        self._connect_failing = False
        self._status_at = 0.0
        self._in_tray: int | None = None  # the last stack dispensed, until a STACK_TAKEN says it is gone
        self._taken: int | None = None
        self._auth_alarmed: str | None = None  # the cause of the last no-session alarm (raised once per cause)

    # -- the pairing key ---------------------------------------------------------------------------

    @property
    def key_path(self) -> Path:
        return self.config.key_file or self.config.journal.parent / "shoe.key"

    def _key(self) -> bytes | None:
        """The table's pairing key; None when this host was never paired (and no emulator is embedded)."""
        path = self.key_path
        if self.config.shoe_port.startswith("emu:") and not path.exists():
            create_key(path)  # the embedded emulator: paired out of the box (first start)
            log.info("pairing key created for the embedded emulator", key_file=str(path))
        if self.config.key_file is None and not path.exists():
            return None
        return load_key(path)

    @staticmethod
    def _pair_embedded(transport: Transport, key: bytes | None) -> None:
        """An in-process emulator is the shoe on this table's bench: give it the table's key (its service menu)."""
        emu_transport = sys.modules.get("drivers.emu_transport")
        if emu_transport is None:  # no in-process emulator made here: nothing to pair, no import on a real port
            return
        EmulatorTransport = emu_transport.EmulatorTransport  # noqa: N806 - the class, looked up where it lives
        reached: object = transport
        for _ in range(8):  # through wrappers that keep the transport they wrap as ``inner`` (a sniffer, a tap)
            if isinstance(reached, EmulatorTransport) or not hasattr(reached, "inner"):
                break
            reached = reached.inner
        emulator = reached.shoe if isinstance(reached, EmulatorTransport) else None
        if key is not None and emulator is not None and emulator.key_id is None and emulator.v11:
            emulator.pair(key)

    def _live_id(self) -> str | None:
        run = self.current()
        return run.round_id if run is not None and not run.closed else None

    # -- connecting ------------------------------------------------------------------------------

    def due(self) -> float:
        """When the owner's tick next has link work: a reconnect, or the status poll (``inf``: none)."""
        if self.client is None:
            return self._next_connect
        return self._status_at + STATUS_EVERY_S if self.shown.link == "up" else float("inf")

    def reconnect_due(self, now: float) -> bool:
        return self.client is None and now >= self._next_connect

    def connect(self) -> bool:
        client: ShoeClient | None = None
        try:
            key = self._key()
            transport = self.transport_factory()
            self._pair_embedded(transport, key)
            client = ShoeClient(transport, timeouts=self.config.timeouts, resume=self.sink.last_event, key=key)
            client.subscribe(self.post)
            client.connect()
            status = client.status()
        except ShoeError as exc:
            if isinstance(exc, ShoeAuthError) and self._auth_alarmed != exc.cause:
                self._auth_alarmed = exc.cause
                self.raise_alarm(exc.cause, f"{scrub_text(str(exc))}; {exc.hint}", blocking=True)
            if client is not None:
                client.close()
            self.shown.link = "down"
            self._next_connect = time.monotonic() + self.config.timeouts.reconnect_max
            if not self._connect_failing:
                port = self.config.shoe_port
                error, hint = (scrub_text(shown_port_text(text, port)) for text in (str(exc), exc.hint))
                log.warning("shoe not connected; retrying", port=redact_port(port), error=error, hint=hint)
            self._connect_failing = True
            return False
        self._connect_failing = False
        self.client, self.shown.link, self.boot_id = client, "up", status.boot_id
        self.transport = transport  # the deck's load action finds an in-process emulator behind it
        self.shown.identity = render.identity(client.identity) if client.identity else None
        if self.shown.identity is not None:
            self.shown.identity = {**self.shown.identity, "link": self._link_security(client)}
        self.shown.status, self._status_at = render.status(status), time.monotonic()
        log.info(
            "shoe connected", port=redact_port(self.config.shoe_port), serial=self.shoe_serial(), boot_id=status.boot_id
        )
        try:
            self._check_position(client, status)
        except ShoeError as exc:
            log.warning("could not read the shoe's counters; its position is not checked", error=str(exc))
        return True

    def _link_security(self, client: ShoeClient) -> str:
        """``authenticated``, or ``unauthenticated`` with an alarm unless this is an allowed bench (SPEC §13.8)."""
        self._auth_alarmed = None
        if client.authenticated:
            return "authenticated"
        if not self.config.allow_unauthenticated:
            version = "v1.0" if client.identity is None or not client.identity.minor else "v1.1"
            self.raise_alarm(
                "link-unauthenticated",
                f"the shoe link is not authenticated (a {version} shoe, and no pairing key on this host): a device "
                "in the cable could rewrite the cards unnoticed",
            )
        return "unauthenticated"

    def poll_status(self, now: float) -> bool:
        """Refresh the shoe's status snapshot every ``STATUS_EVERY_S`` while the link is up; True if it did."""
        if self.client is not None and self.shown.link == "up" and now - self._status_at > STATUS_EVERY_S:
            self._status_at = now
            try:
                self.shown.status = render.status(self.client.status())
            except ShoeError:
                return False
            return True
        return False

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None
        self.shown.link = "down"

    def _check_position(self, client: ShoeClient, status: m.Status) -> None:
        """At connect: the shoe's last dispense id and counters against the journal's.

        A shoe ahead (cards moved that the journal never saw) is an alarm that refuses new rounds until a
        technician acknowledges it; a shoe behind (new, replaced, a fresh emulator) is journaled as such.
        The stack a paused round had announced is left to reconciliation (``recovery.reconcile``).
        """
        journal = self.sink.journal
        assert journal is not None, "the sink opens the journal before the shoe is connected"
        counters = client.counters()
        run = self.current()
        in_doubt = 0
        if run is not None and not run.closed and run.paused and run.announced is not None:
            in_doubt = int(run.announced.get("size") or 0)
        verdict = judge_position(journal_position(journal), self.sink.known_dispense_id, self.shoe_serial(),
                                 status, counters, in_doubt=in_doubt)  # fmt: skip
        data: dict[str, Any] = {
            "event": POSITION_EVENT,
            "verdict": verdict.verdict,
            "serial": self.shoe_serial(),
            "last_dispense_id": status.last_dispense_id,
            "cards_counter": counters.cards,
            "stacks_counter": counters.stacks,
            "authenticated": client.authenticated,
            "key_id": None if client.link.key_id is None or not client.authenticated else f"0x{client.link.key_id:08X}",
        }
        if verdict.detail:
            data["detail"] = verdict.detail
        if verdict.verdict == "ahead":
            self.raise_alarm("shoe-ahead-of-journal", verdict.detail, blocking=True)
        elif verdict.verdict != "same":
            log.warning("shoe position differs from the journal's", verdict=verdict.verdict, detail=verdict.detail)
        self.sink.append("link", data, self._live_id())

    # -- alarms ----------------------------------------------------------------------------------

    def raise_alarm(
        self, cause: str, detail: str, *, dispense_id: int | None = None, unjournaled: int | None = None,
        blocking: bool = False,
    ) -> None:  # fmt: skip
        """Journal an alarm (a ``fault`` entry, shown as a fault event); ``blocking`` refuses new rounds."""
        data: dict[str, Any] = {"event": "alarm", "cause": cause, "detail": detail, "blocking": blocking}
        if dispense_id is not None:
            data.update(dispense_id=dispense_id, known_dispense_id=dispense_id)
        if unjournaled is not None:
            data["unjournaled"] = unjournaled
        log.error("shoe alarm", cause=cause, dispense_id=dispense_id, blocking=blocking)
        self.sink.append("fault", data, self._live_id())
        if blocking:
            self.alarm = data

    def refuse_if_alarmed(self) -> None:
        """``open-round`` is refused while an alarm waits for a technician."""
        if self.alarm is not None:
            raise ServiceError(
                "shoe-alarm",
                f"the shoe is in alarm: {self.alarm.get('detail')}",
                kind=ErrorKind.CONFLICT,
                hint="a technician checks the shoe and the journal, then acknowledges with clear-fault",
            )

    def acknowledge_alarm(self) -> dict[str, Any] | None:
        """The technician's acknowledgement (``clear-fault``): the alarm it clears, or None."""
        alarm, self.alarm = self.alarm, None
        return alarm

    # -- the link thread's callback --------------------------------------------------------------

    def post(self, item: m.Event | Notice) -> None:
        """The link thread's callback: note timing and link state, queue the item for the owner."""
        if isinstance(item, m.CardReadEvent):
            self.sink.note_read(item.dispense_id, item.position)
        if isinstance(item, m.StackTaken):
            self._taken = item.dispense_id
        if isinstance(item, LinkLost):
            self.shown.link = "reconnecting"
        elif isinstance(item, LinkRestored | Resynced):
            self.shown.link = "up"
        self.inbox.put(ShoeItem(item))

    # -- the shoe operations the desk uses --------------------------------------------------------

    def shoe(self) -> ShoeClient:
        if self.client is None:
            raise ServiceError(
                "shoe-unavailable",
                f"the shoe at {redact_port(self.config.shoe_port)} is not connected",
                kind=ErrorKind.UNAVAILABLE,
                hint="check the cable and the port; the service keeps trying",
            )
        return self.client

    def dispense(self, size: int) -> Stack:
        """One stack; first wait (``take_timeout``) for the dealer to take the last one from the tray."""
        client = self.shoe()
        self.shown.heartbeat = time.monotonic()
        if self._in_tray is not None and self._taken != self._in_tray:
            self._wait_tray_empty(client)
        try:
            try:
                stack = client.dispense(size)
            except ShoeProtocolError as exc:
                if (
                    isinstance(exc, ShoeDiscrepancy)
                    or exc.nak is not NakCode.BAD_STATE
                    or not self._wait_tray_empty(client)
                ):
                    raise
                stack = client.dispense(size)
        except ShoeDiscrepancy as exc:
            # Nothing of this stack is journaled as dealt: the cards it moved are the alarm's to account for.
            self.raise_alarm(exc.cause, exc.detail, dispense_id=exc.dispense_id, unjournaled=exc.moved)
            self._in_tray = exc.dispense_id
            raise
        self._in_tray = stack.dispense_id
        return stack

    def _wait_tray_empty(self, client: ShoeClient) -> bool:
        """After a BAD_STATE refusal: wait for the dealer to take the last stack. False: not the tray."""
        deadline = time.monotonic() + self.config.take_timeout
        if not client.status().tray_occupied:
            return False
        while time.monotonic() < deadline:
            time.sleep(0.05)
            self.shown.heartbeat = time.monotonic()
            if not client.status().tray_occupied:
                return True
        raise ServiceError(
            "tray-occupied",
            "the last stack is still in the shoe's tray",
            hint="take the stack from the tray, then deal again",
        )

    def scan(self) -> CardRead:
        """One card passed across the reader. A ``ShoeDiscrepancy`` goes to the desk (it voids the round)."""
        try:
            return self.shoe().scan(self.config.timeouts.scan)
        except ShoeDiscrepancy:
            raise
        except (ShoeProtocolError, ShoeTimeout) as exc:
            raise ServiceError(
                "no-card",
                f"no card was read: {exc}",
                hint="pass the card across the reader, or enter it on the display",
            ) from exc

    def release_stub(self) -> int:
        try:
            return self.shoe().release_stub()
        except ShoeProtocolError as exc:
            if exc.nak is not NakCode.BAD_STATE:
                raise
            raise ServiceError(
                "stub-not-releasable",
                f"the shoe refused to release the stub: {exc}",
                hint="if the stub is already out: after a lost link the service records its count when it "
                "reconciles with the shoe (the round moves on to third street); otherwise void the round and reload",
            ) from exc

    def shoe_serial(self) -> str | None:
        identity = self.shown.identity
        return None if identity is None else identity.get("serial")

    def cards_remaining(self) -> int | None:
        if self.client is None:
            return None
        try:  # the count a round opens on is the deck's only whole-deck check: confirmed by the shoe's replay
            count = self.client.status(confirm=True).cards_remaining
        except ShoeDiscrepancy as exc:
            self.raise_alarm(exc.cause, exc.detail)
            raise ServiceError("shoe-discrepancy", f"the shoe's count is in doubt: {exc}", hint=exc.hint) from exc
        except ShoeError:
            return None
        return None if count == m.Status.UNKNOWN_REMAINING else count
