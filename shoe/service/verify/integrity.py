"""Program and firmware verification in ``shoed`` (GLI-11 §4.3 field verification of a gaming
device's program, the shuffler-firmware lesson of Deck Mate 2).

- **The program**, at start and every ``[verify] interval_s``: the release's manifest, its Ed25519
  signature under the trusted key, every covered file of the release root against it
  (``shoe.release``). The result is in the start entry (``program``: the software identity, release and
  manifest hash) and in a ``service`` ``program-check`` entry at each later check. ``mismatch`` or
  ``bad-signature`` is an alarm (``program-mismatch``) that refuses new rounds until a technician
  acknowledges it (clear-fault), or, with ``on_mismatch = "refuse-start"``, ``shoed`` does not start.
  No manifest at its place is ``unverified``: journaled and shown, never an alarm (the embedded default
  deals). A later check that finds the same differences as the alarm acknowledged raises none again;
  new differences do. Later checks read the files on a worker thread: the owner never waits for them.
- **The shoe's firmware**, at every connect: FIRMWARE_DIGEST over a fresh random seed (SPEC §12), judged
  against the approved images (``shoe.release.firmware``), journaled as a ``link`` ``firmware`` entry;
  ``unapproved`` is an alarm (``firmware-unapproved``) that refuses rounds the same way; a shoe without
  the request is ``unverified``.

Only the owner thread calls it, except :meth:`status` (``/v1/status``: it reads references the owner replaces whole).
"""

from __future__ import annotations

import copy
import hashlib
import secrets
import threading
import time
from typing import Any

import structlog

from drivers.errors import ShoeError
from shoe.release import program
from shoe.release.firmware import FirmwareAnswer, FirmwareVerdict, judge
from shoe.service.config.verify import VerifyConfig
from shoe.service.errors import ErrorKind, ServiceError
from shoe.service.journal.sink import JournalSink
from shoe.service.link.supervisor import LinkSupervisor
from shoe.service.verify.payloads import MAX_NAMED

__all__ = ["CAUSES", "Integrity", "ProgramRefused", "check_program"]

log = structlog.get_logger("shoe.service")
PROGRAM_ALARM, FIRMWARE_ALARM = "program-mismatch", "firmware-unapproved"
CAUSES = (PROGRAM_ALARM, FIRMWARE_ALARM)
CHECK_POLL_S = 0.25  # how often the owner looks whether a running program check finished


class ProgramRefused(Exception):
    """``on_mismatch = "refuse-start"`` and the program does not verify: ``shoed`` exits 1 naming why."""


def check_program(config: VerifyConfig) -> dict[str, Any]:
    """One check of the installed program as ``[verify]`` says: the ``ProgramCheck`` payload."""
    return program.check_program(config.manifest_path(), config.pubkey_path(), config.root, named=MAX_NAMED)


def _fingerprint(result: dict[str, Any]) -> str:
    return hashlib.sha256(repr((result["result"], result["named"], result["differences"])).encode()).hexdigest()


class Integrity:
    def __init__(self, config: VerifyConfig, sink: JournalSink, supervisor: LinkSupervisor) -> None:
        self.config, self.sink, self.supervisor = config, sink, supervisor
        self.program: dict[str, Any] | None = None
        self.firmware: dict[str, Any] | None = None
        self._next = float("inf")
        self._worker: threading.Thread | None = None
        self._pending: dict[str, Any] | None = None
        self._alarmed: str | None = None  # the fingerprint of the differences last alarmed
        self._verified = False  # a check passed once: a manifest or key gone later is a change, not a default

    # -- the program -------------------------------------------------------------------------------

    def at_start(self) -> dict[str, Any]:
        """The check for the start entry (its ``program``: the software identity and the result)."""
        started = time.perf_counter()
        result = check_program(self.config)
        log.info(
            "program checked",
            result=result["result"],
            files=result["files"],
            differences=result["differences"],
            seconds=round(time.perf_counter() - started, 3),
        )
        self.program = result
        self._verified = result["result"] == "ok"
        if self.config.interval_s > 0:
            self._next = time.monotonic() + self.config.interval_s
        return result

    def after_start(self) -> None:
        """The alarm for a start check that failed (after the start entry, which names the identity); with
        ``on_mismatch = "refuse-start"`` then ProgramRefused: the journal holds why ``shoed`` did not start."""
        if self.program is None:
            return
        self._alarm_if_new(self.program)
        if self.program["result"] in ("mismatch", "bad-signature") and self.config.on_mismatch == "refuse-start":
            raise ProgramRefused(f'{self.program["detail"]} ([verify] on_mismatch = "refuse-start")')

    def due(self) -> float:
        """When ``tick`` next has work: soon while a check runs (its result is journaled on a tick), else the next."""
        return time.monotonic() + CHECK_POLL_S if self._worker is not None else self._next

    def tick(self, now: float) -> None:
        """Start a periodic check when due; journal one that finished."""
        if self._worker is not None and not self._worker.is_alive():
            self._worker = None
            result, self._pending = self._pending, None
            if result is not None:
                if result["result"] == "unverified" and self._verified:
                    result = {**result, "result": "mismatch", "detail": "verified before, now: " + result["detail"]}
                self._verified = self._verified or result["result"] == "ok"
                self.program = result
                self.sink.append("service", {"event": "program-check", **result}, None)
                self._alarm_if_new(result)
        if self._worker is None and now >= self._next:
            self._next = now + self.config.interval_s
            self._worker = threading.Thread(target=self._run, name="shoed-verify", daemon=True)
            self._worker.start()

    def _run(self) -> None:
        try:
            self._pending = check_program(self.config)
        except Exception as exc:  # an unreadable tree is a result, not a dead service
            log.exception("program check failed")
            self._pending = {**program.NO_IDENTITY, "result": "mismatch", "detail": f"the check failed: {exc}"}

    def _alarm_if_new(self, result: dict[str, Any]) -> None:
        if result["result"] not in ("mismatch", "bad-signature"):
            self._alarmed = None
            return
        fingerprint = _fingerprint(result)
        if fingerprint != self._alarmed:
            self._alarmed = fingerprint
            self.supervisor.raise_alarm(PROGRAM_ALARM, result["detail"], blocking=True)

    # -- the shoe's firmware -----------------------------------------------------------------------

    def on_connect(self) -> None:
        """Ask the shoe just connected for its firmware digest over a fresh seed; journal it; alarm if unapproved."""
        client = self.supervisor.client
        if client is None:
            return
        seed = secrets.token_bytes(16)
        try:
            report = client.firmware_digest(seed)
        except ShoeError as exc:
            verdict = FirmwareVerdict(
                "unverified", "no-answer", f"the shoe did not answer FIRMWARE_DIGEST: {exc}", seed.hex()
            )
        else:
            answer = None
            if report is not None:
                answer = FirmwareAnswer(report.seed, report.hmac, report.firmware, report.bootloader, report.image_size)
            verdict = judge(seed, answer, self.config.firmware)
        data = verdict.as_dict()
        self.firmware = data
        log.info("shoe firmware checked", verdict=verdict.verdict, cause=verdict.cause, firmware=data["firmware"])
        self.sink.append("link", {"event": "firmware", **data}, self.supervisor._live_id())
        if verdict.verdict == "unapproved":
            self.supervisor.raise_alarm(FIRMWARE_ALARM, verdict.detail, blocking=True)

    # -- the gate ----------------------------------------------------------------------------------

    def refuse_rounds(self) -> None:
        """``open-round`` is refused (409) while a verification alarm waits for a technician's acknowledgement."""
        alarm = self.supervisor.alarm
        if alarm is None or alarm.get("cause") not in CAUSES:
            return
        what = "the installed program" if alarm["cause"] == PROGRAM_ALARM else "the shoe's firmware"
        raise ServiceError(
            str(alarm["cause"]),
            f"rounds are refused: {what} failed verification: {alarm.get('detail')}",
            kind=ErrorKind.CONFLICT,
            hint="a technician checks the release (shoectl verify) or the shoe's firmware (shoectl verify --shoe), "
            "then acknowledges with clear-fault (docs/deploy.md, the inspector's procedure)",
        )

    def status(self) -> dict[str, Any]:
        """For ``/v1/status``: the last program check, the last firmware check, a verification alarm waiting."""
        alarm = self.supervisor.alarm
        waiting = None
        if alarm is not None and alarm.get("cause") in CAUSES:
            waiting = {"cause": alarm["cause"], "detail": alarm.get("detail")}
        return copy.deepcopy({"program": self.program, "firmware": self.firmware, "alarm": waiting})
