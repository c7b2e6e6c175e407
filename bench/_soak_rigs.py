"""The two rigs ``bench/soak`` plays its rounds on: the table service in this process, or the real ``shoed``.

Both put the same emulated shoe on a pseudo-terminal (reached through pyserial, as a real serial shoe is),
corrupt ``corrupt_rate`` of its bytes both ways, and pull its cable at random. What differs:

- :class:`InprocRig`: ``TableService`` (the object ``shoed`` runs) and the shoe in this process; the dealer
  calls ``submit`` directly. A sniffer on the host's side of the link notes every CARD_READ that arrives
  intact. ``--link emu`` skips the pty.
- :class:`ShoedRig`: ``python -m shoe.shoed`` (``shoed``) in its own process with a TOML config, the
  shoe in another (``bench/_shoed.py emulate``), the dealer on the HTTP API (``/v1``) over one keep-alive
  connection. The shoe's process notes every CARD_READ frame it wrote intact; RSS is ``shoed``'s own.

Either way the dealer sees a :class:`Table`: ``submit`` raises ``ServiceError`` with the service's code.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from bench._probes import Http
from bench._proc import rss_kib, vm_kib
from bench._shoed import EmulatorProcess, ShoedProcess
from drivers.emu_transport import EmulatorTransport
from drivers.emulator import EmulatedShoe, EmulatorConfig, serve_pty
from drivers.emulator.control import ControlServer
from drivers.emulator.mitm import Injector, ManInTheMiddle, MitmState, _unsealed
from drivers.timeouts import LinkTimeouts
from drivers.transport import Transport, open_transport
from protocols import codec
from protocols import messages as m
from protocols.framing import Deframer, Frame
from shoe.api.errors import KIND_STATUS
from shoe.service import Role, ServiceConfig, ServiceError, TableService
from shoe.service.errors import ErrorKind

EVENT_RESEND_S = 0.05

STATUS_KINDS = {status: kind for kind, status in KIND_STATUS.items()}
"""An HTTP refusal back to the in-process error (the soak compares the two rigs' refusals)."""


class Table(Protocol):
    """What the soak's dealer plays on."""

    def submit(self, action: str, params: Mapping[str, Any]) -> dict[str, Any]: ...
    def round_view(self) -> dict[str, Any] | None: ...
    def deck_view(self) -> dict[str, Any]: ...  # GET /v1/deck; the dealer loads through submit("load-deck")
    def deck_order(self) -> list[str]:
        """The bench's truth (never the dealer's): the emulated shoe's cards now, for the community check."""


@dataclass
class Settings:
    seed: int
    corrupt_rate: float
    unplug_every_s: float
    replug_max_s: float
    timeouts: LinkTimeouts
    workdir: Path
    journal: Path
    first_deck: list[str]
    lie_every_s: float = 0.0


@dataclass
class Finish:
    """What a rig knows at the end, besides the journal."""

    cards_moved: int
    reads_sent_intact: set[tuple[int, int]]
    line: dict[str, int]
    unplugs: int
    counters: dict[str, float]
    rss_end_mb: float
    rss_peak_mb: float
    notes: dict[str, Any] = field(default_factory=dict)


class Unplugger(threading.Thread):
    """Pulls the cable at random (exponential intervals of mean ``every_s``); ``pull`` also puts it back."""

    def __init__(self, pull: Callable[[], None], every_s: float, rng: random.Random) -> None:
        super().__init__(name="soak-unplugger", daemon=True)
        self.pull, self.every_s, self.rng = pull, every_s, rng
        self.stopping = threading.Event()
        self.count = 0
        self.failure: str | None = None
        """Why the unplugger stopped before the soak did: a soak that quietly went on without unplugs is a failure."""

    def run(self) -> None:
        try:
            while not self.stopping.wait(self.rng.expovariate(1 / self.every_s)):
                self.pull()
                self.count += 1
        except Exception as exc:  # any failure ends the unplugs; the soak reports it and fails
            self.failure = f"{type(exc).__name__}: {exc}"

    def stop(self) -> None:
        self.stopping.set()
        if self.is_alive():
            self.join()


# -- in this process ------------------------------------------------------------------------------------


class Sniffer(Transport):
    """The host's side of the link, unchanged, noting every CARD_READ event that arrives intact."""

    def __init__(
        self, inner: Transport, seen: set[tuple[int, int]], truth: dict[tuple[int, int], str | None] | None = None
    ) -> None:
        self.inner = inner
        self.url = inner.url
        self.seen = seen
        self.truth = truth if truth is not None else {}
        self._deframer = Deframer()

    def write(self, data: bytes) -> None:
        self.inner.write(data)

    def read(self, timeout: float) -> bytes:
        data = self.inner.read(timeout)
        for item in self._deframer.feed(data) if data else ():
            if isinstance(item, Frame):
                try:
                    message = codec.decode(_unsealed(item))
                except codec.MessageError:
                    continue
                if isinstance(message, m.CardReadEvent):
                    self.seen.add((message.dispense_id, message.position))
                    self.truth[(message.dispense_id, message.position)] = message.read.card
        return data

    def close(self) -> None:
        self.inner.close()

    def reopen(self) -> Transport:
        return Sniffer(self.inner.reopen(), self.seen, self.truth)


class InprocRig:
    """``TableService`` and the emulated shoe in this process; ``link`` is ``pty`` or ``emu``.

    With ``settings.lie_every_s``, a man in the middle (``drivers.emulator.mitm``) sits between the sniffer
    (which sees what the shoe really sent) and the service, injecting a valid frame of a random shoe type
    every ``lie_every_s`` seconds on average.
    """

    def __init__(self, settings: Settings, link: str) -> None:
        self.settings = settings
        self.truth: dict[tuple[int, int], str | None] = {}
        self.mitm = MitmState()
        injector = Injector(random.Random(settings.seed + 2), settings.lie_every_s) if settings.lie_every_s else None
        config = EmulatorConfig(seed=settings.seed, deck=tuple(settings.first_deck),
                                corrupt_rate=settings.corrupt_rate, event_resend_s=EVENT_RESEND_S)  # fmt: skip
        self.shoe = EmulatedShoe(config)
        if settings.lie_every_s:
            self.shoe.dispensed = {}  # the truth: what the mechanism read, whatever reached the host
        self.seen: set[tuple[int, int]] = set()
        self.server = None
        if link == "pty":
            self.server = serve_pty(self.shoe, link=str(settings.workdir / "shoe0"))
            port = str(settings.workdir / "shoe0")
            opener: Callable[[], Transport] = lambda: open_transport(port)  # noqa: E731
        else:
            port = "emu://"
            opener = lambda: EmulatorTransport(self.shoe)  # noqa: E731

        def factory() -> Transport:
            sniffer = Sniffer(opener(), self.seen, self.truth)
            return sniffer if injector is None else ManInTheMiddle(sniffer, [], injector=injector, state=self.mitm)

        # load-deck reaches the shoe by its control socket (the sniffer hides the in-process emulator)
        self.control = ControlServer(self.shoe, settings.workdir / "control.sock")
        service_config = ServiceConfig(shoe_port=port, journal=settings.journal, timeouts=settings.timeouts,
                                       take_timeout=10.0, submit_timeout=60.0, table="soak",
                                       emulator_control=settings.workdir / "control.sock")  # fmt: skip
        self.service = TableService(service_config, transport_factory=factory)
        self.service.start()
        self.unplugger = Unplugger(self._pull, settings.unplug_every_s, random.Random(settings.seed + 1))

    def _pull(self) -> None:
        self.shoe.unplug()
        time.sleep(self.unplugger.rng.uniform(0.05, self.settings.replug_max_s))
        self.shoe.replug()

    def submit(self, action: str, params: Mapping[str, Any]) -> dict[str, Any]:
        return self.service.submit(action, params, Role.DEALER)

    def round_view(self) -> dict[str, Any] | None:
        return self.service.round_view(Role.DEALER)

    def deck_view(self) -> dict[str, Any]:
        return self.service.deck_view() or {"state": "unknown"}

    def deck_order(self) -> list[str]:
        with self.shoe._cond:  # the truth side of the bench (as EmulatedShoe.dispensed), never shown to a dealer
            return [card.code for card in self.shoe._mech.deck]

    def rss_mb(self) -> float:
        return rss_kib("self") / 1024

    def finish(self) -> Finish:
        """Stop the unplugs and the service (the journal is closed); the shoe stays open for its figures."""
        self.unplugger.stop()
        self.shoe.replug()
        rss_end = rss_kib("self") / 1024
        rss_peak = max(vm_kib("self", "VmHWM") / 1024, rss_end)
        counters = self.service.metrics_snapshot().get("counters", {})
        self.service.stop()
        self.control.close()
        if self.server is not None:
            self.server.close()
        stats = self.shoe.stats
        self.shoe.close()
        line = {"bytes_corrupted": stats.bytes_corrupted, "frames_in_bad": stats.frames_in_bad,
                "events_resent": stats.events_resent, "replays": stats.replays,
                "dispense_replays": stats.dispense_replays}  # fmt: skip
        notes: dict[str, Any] = {"dispenses_started": stats.dispenses_started,
                                 "rss_of": "this process (service, shoe, dealer)"}  # fmt: skip
        if self.settings.lie_every_s:
            notes["injected"] = dict(self.mitm.injected)
            notes["truth"] = dict(self.shoe.dispensed or {})
        return Finish(stats.cards_moved, set(self.seen), line, self.unplugger.count, dict(counters), rss_end, rss_peak,
                      notes)  # fmt: skip


# -- shoed in its own process ---------------------------------------------------------------------------

ROUTES = {
    "open-round": "/v1/rounds",
    "no-more-bets": "/v1/round/no-more-bets",
    "deal": "/v1/round/deal",
    "release-stub": "/v1/round/release-stub",
    "decide": "/v1/round/decisions",
    "reveal": "/v1/round/reveal",
    "settle": "/v1/round/settle",
    "void": "/v1/round/void",
    "load-deck": "/v1/deck/load",
    "check-deck": "/v1/deck/check",
}


def _toml_config(settings: Settings) -> str:
    lines = ["[shoe]", "take_timeout = 10.0", "", "[shoe.timeouts]"]
    lines += [f"{name} = {value!r}" for name, value in vars(settings.timeouts).items()]
    lines.insert(2, f'emulator_control = "{settings.workdir / "control.sock"}"')  # the dealer's load-deck
    lines.insert(3, f'key_file = "{settings.workdir / "shoe.key"}"')  # paired: an authenticated link
    lines += ["", "[service]", 'table = "soak"', "submit_timeout = 60.0", ""]
    return "\n".join(lines)


class ShoedRig:
    """The real ``shoed`` process on the pty of an emulated shoe in a third process, driven over HTTP."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        work = settings.workdir
        self.emulator = EmulatorProcess(
            work / "shoe0", work / "emulator.log", settings.seed,
            "--deck", ",".join(settings.first_deck), "--corrupt-rate", str(settings.corrupt_rate),
            "--event-resend-s", str(EVENT_RESEND_S), "--replug-max-s", str(settings.replug_max_s),
            "--control", str(work / "control.sock"), "--key-file", str(work / "shoe.key"),
        )  # fmt: skip
        config = work / "shoed.toml"
        config.write_text(_toml_config(settings), encoding="utf-8")
        try:
            self.shoed = ShoedProcess(str(work / "shoe0"), settings.journal, work / "shoed.log", config)
        except BaseException:
            self.emulator.close()
            raise
        self.http = Http(self.shoed.url)
        self.unplugger = Unplugger(self.emulator.unplug, settings.unplug_every_s, random.Random(settings.seed + 1))

    def submit(self, action: str, params: Mapping[str, Any]) -> dict[str, Any]:
        body = dict(params)
        status, data = self.http.request_json("POST", ROUTES[action], body)
        if status >= 300:
            error = data.get("error", {}) if isinstance(data, dict) else {}
            raise ServiceError(str(error.get("code", f"http-{status}")), str(error.get("message", data)),
                               kind=STATUS_KINDS.get(status, ErrorKind.INTERNAL), rule=error.get("rule"))  # fmt: skip
        return dict(data)

    def round_view(self) -> dict[str, Any] | None:
        view = self.http.get_json("/v1/round")["round"]
        return dict(view) if view is not None else None

    def deck_view(self) -> dict[str, Any]:
        return dict(self.http.get_json("/v1/deck"))

    def deck_order(self) -> list[str]:
        return self.emulator.command("deck").split(",")

    def rss_mb(self) -> float:
        return rss_kib(self.shoed.pid) / 1024

    def _counters(self) -> dict[str, float]:
        counters: dict[str, float] = {}
        for line in self.http.get("/metrics").decode().splitlines():
            name, _, value = line.partition(" ")
            short = name.removeprefix("shoe_")
            if short in ("rounds_total", "cards_total", "faults_total", "reconnects_total"):
                counters[short.removesuffix("_total")] = float(value)
        return counters

    def finish(self) -> Finish:
        """Stop the unplugs, read shoed's figures, stop it (SIGTERM: exit 0 expected), then the shoe."""
        self.unplugger.stop()
        time.sleep(self.settings.replug_max_s + 0.1)  # the last pull is plugged back in
        rss_end = self.rss_mb()
        rss_peak = vm_kib(self.shoed.pid, "VmHWM") / 1024
        counters = self._counters()
        self.http.close()
        exit_code = self.shoed.close()
        stats = self.emulator.stats()
        self.emulator.close()
        reads = {(int(d), int(p)) for d, p in stats.pop("reads_sent_intact")}
        line = {k: int(stats[k]) for k in ("bytes_corrupted", "frames_in_bad", "events_resent", "replays",
                                           "dispense_replays")}  # fmt: skip
        return Finish(int(stats["cards_moved"]), reads, line, self.unplugger.count, counters, rss_end,
                      max(rss_peak, rss_end), {"shoed_exit": exit_code, "rss_of": "the shoed process",
                                               "shoed_log": str(self.settings.workdir / "shoed.log")})  # fmt: skip


def lie_books(journal: Any, truth: Mapping[tuple[int, int], str | None]) -> dict[str, Any]:
    """The lying-shoe soak's balance (``--lie``): what the shoe really read (``truth``, seen on its side of the
    man in the middle) against the journal. Every card the shoe moved is journaled with its true identity, or
    belongs to a dispense an alarm names in a voided round (or outside any round); no completed round holds a
    card the shoe did not read there."""
    journaled: dict[tuple[int, int], tuple[str | None, str | None]] = {}  # (did, pos) -> (card, round)
    outcome: dict[str | None, str] = {}
    alarms: list[tuple[str | None, int | None, str]] = []
    for entry in journal.entries(kinds=("card", "fault", "round-closed")):
        data = entry.data
        if entry.kind == "card" and data.get("dispense_id") is not None:
            journaled[(data["dispense_id"], data["position"])] = (data.get("card"), entry.round_id)
        elif entry.kind == "round-closed":
            outcome[entry.round_id] = str(data.get("outcome"))
        elif data.get("event") == "alarm":
            alarms.append((entry.round_id, data.get("dispense_id"), str(data.get("cause"))))
    covered = {did for rid, did, _ in alarms if did is not None and (rid is None or outcome.get(rid) == "void")}
    unexplained = [key for key in truth if key not in journaled]
    complete = {key for key, (_, rid) in journaled.items() if outcome.get(rid) == "complete"}
    bad = [k for k in unexplained if k[0] not in covered] + [k for k in complete if k not in truth]
    return {
        "cards_read_by_the_shoe": len(truth),
        "cards_journaled": len(journaled),
        "unjournaled": len(unexplained),
        "unjournaled_not_in_a_voided_round_with_its_alarm": sum(1 for did, _ in unexplained if did not in covered),
        "wrong_cards_in_completed_rounds": sum(1 for k in complete if k in truth and truth[k] != journaled[k][0]),
        "phantom_cards_in_completed_rounds": sum(1 for k in complete if k not in truth),
        "alarms": len(alarms),
        "alarm_causes": dict(Counter(cause for _, _, cause in alarms)),
        "rounds_voided_with_an_alarm": len({rid for rid, _, _ in alarms if rid and outcome.get(rid) == "void"}),
        "offending": sorted(bad)[:20],
    }


@dataclass
class Ledger:
    """What the journal holds, gathered in one pass over it (a 10,000-round journal has ~400,000 entries)."""

    entries: int = 0
    journaled: set[tuple[int, int]] = field(default_factory=set)
    per_stack: Counter[int] = field(default_factory=Counter)
    sizes: dict[tuple[str | None, int], int] = field(default_factory=dict)
    recorded: list[tuple[str | None, int, int]] = field(default_factory=list)  # round, stack number, dispense id
    dealt_in_round: Counter[str | None] = field(default_factory=Counter)
    community: dict[str | None, list[str]] = field(default_factory=dict)

    def add(self, round_id: str | None, kind: str, data: Mapping[str, Any]) -> None:
        self.entries += 1
        if kind == "card" and data.get("dispense_id") is not None:
            self.journaled.add((data["dispense_id"], data["position"]))
            self.per_stack[data["dispense_id"]] += 1
            self.dealt_in_round[round_id] += 1
        elif kind == "card" and data.get("target") == "community" and data.get("source") == "shoe":
            self.community.setdefault(round_id, []).append(data["card"])
        elif kind == "decision" and data.get("action") == "stack-for-seat":
            self.sizes[(round_id, data["number"])] = data["size"]
        elif kind == "decision" and data.get("action") == "stack-dealt":
            self.recorded.append((round_id, data["number"], data["dispense_id"]))

    def stacks_short(self) -> int:
        return sum(max(0, self.sizes[(r, n)] - self.per_stack[i]) for r, n, i in self.recorded)

    def community_misread(self, decks: Mapping[str, list[str]]) -> dict[str, list[int]]:
        """Community cards that are not the stub's next cards in the deck the dealer loaded (a SCAN the shoe
        answered whose answer was lost, so that the next SCAN read the card after it): the round ids, each
        with the 1-based community positions that differ, so a misread can be traced in the journal."""
        wrong: dict[str, list[int]] = {}
        for round_id, cards in self.community.items():
            deck = decks.get(round_id or "", [])
            stub = deck[self.dealt_in_round[round_id] :]
            bad = [index + 1 for index, card in enumerate(cards) if index >= len(stub) or stub[index] != card]
            if bad:
                wrong[round_id or ""] = bad
        return wrong
