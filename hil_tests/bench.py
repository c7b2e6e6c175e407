"""The bench a HIL session runs on: a TOML description, the feature and timing registries, and ``Target``.

A bench file says what the shoe under test can do and how fast it is; tests ask for a feature with
``@pytest.mark.needs("scan")`` and are skipped, with the reason, on a bench without it. ``Target`` is
what every test gets: the port, a connected ``ShoeClient`` and the physical actions (pull the cable,
open the door, load a deck, put a jam card in the deck). The emulator target does them itself
(``emulator_target.py``); the hardware target asks the operator (``conftest.py``).

```toml
[bench]
name = "emulator"
kind = "emulator"          # emulator: the suite starts `shoectl emulate --pty`; hardware: a shoe at a port
port = "/dev/cardshoe"     # hardware only: the default for --shoe
timing = "instant"         # a timing class: instant, realistic, hardware
rounds = 20                # rounds test_rounds deals
destructive = true         # tests that jam, fault or unplug the shoe may run
[features]
scan = true                # every key of FEATURES, true or false (absent: false)
[emulator]
seed = 7                   # emulator options (`shoectl emulate --set KEY=VALUE`), emulator benches only
```

Every error names the key and the fix, e.g. ``[features] scanner: not a feature: use one of ...``.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
import tomllib
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any
from urllib.parse import urlencode

from drivers.client import ShoeClient
from drivers.emulator import EmulatorConfig
from drivers.keyfile import KEY_ENV, key_from_env
from drivers.notices import Notice
from drivers.timeouts import LinkTimeouts
from drivers.transport import open_transport
from protocols import messages as m
from protocols.codes import Capability

__all__ = [
    "FEATURES",
    "KINDS",
    "TIMINGS",
    "Bench",
    "BenchError",
    "Connection",
    "Feature",
    "Target",
    "TargetUnreachable",
    "TimingClass",
    "load_bench",
    "port_bench",
]


@dataclass(frozen=True)
class Feature:
    name: str
    meaning: str
    capability: Capability | None = None
    """When set, the shoe must also report it in IDENTIFY (checked by test_contract)."""
    kinds: tuple[str, ...] = ("emulator", "hardware")
    """Bench kinds that can have it at all."""


FEATURES: Mapping[str, Feature] = MappingProxyType(
    {
        f.name: f
        for f in (
            Feature("fault_injection", "jams and unreadable cards at a chosen card: emulator options, or the "
                    "operator with the lab's test cards"),
            Feature("line_impairment", "corrupted, dropped or delayed bytes on the line", kinds=("emulator",)),
            Feature("unplug", "the link pulled and restored: SIGUSR1 to the emulator, or the operator pulls the cable"),
            Feature("tray_sensor", "STACK_TAKEN when the dealer takes a stack from the tray", Capability.TRAY_SENSOR),
            Feature("scan", "the reader identifies a card the dealer passes across it (SCAN)", Capability.SCAN),
            Feature("deck_check", "the shoe counts and identifies its cards (DECK_CHECK)", Capability.DECK_CHECK),
            Feature("self_test", "the shoe tests its own components (SELF_TEST)", Capability.SELF_TEST),
            Feature("event_log", "the shoe's event log can be read back (READ_EVENT_LOG)", Capability.EVENT_LOG),
        )
    }
)  # fmt: skip


@dataclass(frozen=True)
class TimingClass:
    name: str
    meaning: str
    timeouts: LinkTimeouts
    take_s: float
    """How long a test waits for a dealt stack to leave the tray."""
    emulator_timing: str | None
    """The emulator's ``timing`` option for this class; None: hardware only."""


_QUICK = LinkTimeouts(reply=0.3, retries=3, dispense_base=1.0, dispense_per_card=1.0, scan=5.0,
                      reconnect_initial=0.02, reconnect_max=0.2, reconnect_give_up=15.0, read_poll=0.05)  # fmt: skip
TIMINGS: Mapping[str, TimingClass] = MappingProxyType(
    {
        t.name: t
        for t in (
            TimingClass("instant", "the emulator with no mechanical time", _QUICK, 5.0, "instant"),
            TimingClass("realistic", "the emulator at a real shoe's pace (0.25 s a card)", _QUICK, 10.0, "realistic"),
            TimingClass("hardware", "a real shoe: the drivers' default timeouts", LinkTimeouts(), 60.0, None),
        )
    }
)
KINDS = ("emulator", "hardware")
_KEYS: Mapping[str, tuple[str, ...]] = {
    "bench": ("name", "kind", "description", "port", "timing", "rounds", "destructive"),
    "features": tuple(FEATURES),
    "emulator": (),  # checked by EmulatorConfig
}


class BenchError(ValueError):
    """A bench file that cannot be used: the message names the key and the fix."""

    def __init__(self, key: str, problem: str, fix: str) -> None:
        section, _, name = key.partition(".")
        super().__init__(f"[{section}] {name}: {problem}: {fix}" if name else f"[{section}]: {problem}: {fix}")
        self.key = key


class TargetUnreachable(RuntimeError):
    """The shoe under test is absent or does not answer: the run fails (it is never a skip)."""

    def __init__(self, problem: str, hint: str) -> None:
        super().__init__(problem)
        self.hint = hint


@dataclass(frozen=True)
class Bench:
    name: str
    kind: str
    timing: TimingClass
    features: frozenset[str] = frozenset()
    description: str = ""
    port: str | None = None
    rounds: int = 20
    destructive: bool = False
    emulator: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    source: Path | None = None

    def has(self, feature: str) -> bool:
        if feature not in FEATURES:
            raise KeyError(f"{feature!r} is not a feature; known: {', '.join(FEATURES)}")
        return feature in self.features

    def missing(self, features: tuple[str, ...]) -> list[str]:
        return [f for f in features if not self.has(f)]


def _text(key: str, value: object, fix: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise BenchError(key, f"{value!r} is not a non-empty string", fix)
    return value


def _choice(key: str, value: object, choices: Mapping[str, object] | tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise BenchError(key, f"{value!r} is not known", f"use one of {', '.join(choices)}")
    return value


def _emulator_options(raw: object, timing: TimingClass) -> dict[str, str]:
    if not isinstance(raw, dict):
        raise BenchError("emulator", f"{raw!r} is not a table", "write [emulator] with seed = 7 lines")
    options: dict[str, str] = {}
    for key, value in raw.items():
        if key == "timing":
            raise BenchError("emulator.timing", "is set by the bench's timing class", "set [bench] timing instead")
        if isinstance(value, bool):
            options[key] = "1" if value else "0"
        elif isinstance(value, int | float | str):
            options[key] = str(value)
        else:
            raise BenchError(f"emulator.{key}", f"{value!r} is not a string, number or boolean", "see shoectl emulate")
    if timing.emulator_timing is None:
        raise BenchError("bench.timing", f"{timing.name!r} is for hardware", "use instant or realistic")
    options["timing"] = timing.emulator_timing
    try:
        EmulatorConfig.from_query(urlencode(options))
    except ValueError as exc:
        raise BenchError("emulator", str(exc), "see docs/shoectl.md, The emulator") from None
    return options


def parse_bench(doc: Mapping[str, Any], source: Path | None = None) -> Bench:
    for section, value in doc.items():
        if section not in _KEYS:
            raise BenchError(section, "is not a section", f"use one of {', '.join(_KEYS)}")
        if not isinstance(value, dict):
            raise BenchError(section, f"{value!r} is not a table", f"write it as [{section}]")
        for key in value if _KEYS[section] else ():
            if key not in _KEYS[section]:
                raise BenchError(f"{section}.{key}", "is not a key", f"use one of {', '.join(_KEYS[section])}")
    head: dict[str, Any] = doc.get("bench", {})
    kind = _choice("bench.kind", head.get("kind", "emulator"), KINDS)
    timing = TIMINGS[_choice("bench.timing", head.get("timing", "instant" if kind == "emulator" else "hardware"),
                             TIMINGS)]  # fmt: skip
    features: set[str] = set()
    for name, on in doc.get("features", {}).items():
        if not isinstance(on, bool):
            raise BenchError(f"features.{name}", f"{on!r} is not true or false", "write true or false")
        if on and kind not in FEATURES[name].kinds:
            raise BenchError(f"features.{name}", f"a {kind} bench cannot have it", "set it to false")
        if on:
            features.add(name)
    rounds = head.get("rounds", 20)
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise BenchError("bench.rounds", f"{rounds!r} is not a number of rounds", "use a whole number, 1 or more")
    destructive = head.get("destructive", kind == "emulator")
    if not isinstance(destructive, bool):
        raise BenchError("bench.destructive", f"{destructive!r} is not true or false", "write true or false")
    port = head.get("port")
    if port is not None:
        port = _text("bench.port", port, 'use e.g. "/dev/cardshoe"')
        if kind == "emulator":
            raise BenchError("bench.port", "an emulator bench starts its own shoe", "remove it, or use kind = hardware")
    if kind == "hardware" and "emulator" in doc:
        raise BenchError("emulator", "a hardware bench has no emulator options", "remove the [emulator] section")
    emulator = _emulator_options(doc.get("emulator", {}), timing) if kind == "emulator" else {}
    return Bench(
        name=_text("bench.name", head.get("name", source.stem if source else "bench"), 'use e.g. "lab-shoe-3"'),
        kind=kind,
        timing=timing,
        features=frozenset(features),
        description=str(head.get("description", "")),
        port=port,
        rounds=rounds,
        destructive=destructive,
        emulator=MappingProxyType(emulator),
        source=source,
    )


def load_bench(path: Path) -> Bench:
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BenchError("bench", f"{str(path)!r} does not exist", "pass an existing file to --bench") from None
    except OSError as exc:
        raise BenchError("bench", f"{str(path)!r} cannot be read ({exc.strerror})", "check its permissions") from None
    except tomllib.TOMLDecodeError as exc:
        raise BenchError("bench", f"{str(path)!r} is not valid TOML ({exc})", "fix the syntax") from None
    return parse_bench(doc, path)


def port_bench(port: str) -> Bench:
    """A shoe named by ``--shoe`` without a bench file: nothing is assumed, so feature tests skip."""
    return Bench(name="unknown shoe", kind="hardware", timing=TIMINGS["hardware"], port=port,
                 description="--shoe without --bench: pass --bench to say what this shoe can do", rounds=1)  # fmt: skip


@dataclass
class Connection:
    """A client connected to the target, and everything it delivered (events in order, link notices)."""

    client: ShoeClient
    received: list[m.Event | Notice] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _append(self, item: m.Event | Notice) -> None:
        with self._lock:
            self.received.append(item)

    def events(self, kind: type[Any]) -> list[Any]:
        with self._lock:
            return [e for e in self.received if isinstance(e, kind)]

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return True
            time.sleep(0.01)
        return predicate()


class Target(ABC):
    """The shoe under test, as the tests see it. One per session; ``fresh()`` before every test."""

    def __init__(self, bench: Bench, port: str) -> None:
        self.bench = bench
        self.port = port
        self.identity: m.Identity | None = None
        self.key: bytes | None = key_from_env()
        self.key_file: Path | None = Path(os.environ[KEY_ENV]) if os.environ.get(KEY_ENV) else None
        """The pairing key every connection authenticates with (SPEC §13): the emulator bench pairs its shoe
        with a key of its own; a hardware bench takes the table's from ``$SHOE_KEY_FILE`` (none: plain)."""

    @property
    def timeouts(self) -> LinkTimeouts:
        return self.bench.timing.timeouts

    @contextlib.contextmanager
    def connect(self, timeouts: LinkTimeouts | None = None) -> Iterator[Connection]:
        """A ``ShoeClient`` on the target's port, subscribed before it connects; closed on exit."""
        client = ShoeClient(open_transport(self.port), timeouts=timeouts or self.timeouts, key=self.key)
        conn = Connection(client)
        client.subscribe(conn._append)
        try:
            client.connect()
            yield conn
        finally:
            client.close()

    @abstractmethod
    def start(self) -> None:
        """Bring the target up for the session (the emulator starts; hardware is checked)."""

    @abstractmethod
    def close(self) -> None:
        """End of the session."""

    @abstractmethod
    def fresh(self) -> None:
        """Before each test: a full deck, no fault, nothing in the tray, the bench's own options."""

    @abstractmethod
    def arrange(self, options: Mapping[str, str], instructions: str) -> str:
        """Put the shoe into a state for one test: the emulator restarts with ``options`` (emulator options),
        a person follows ``instructions`` (no instructions: nothing to do on hardware). Returns who did it."""

    @abstractmethod
    def attend(self, instructions: str) -> str:
        """Something only hands do on a real shoe (take a jammed card out); the emulator needs nothing."""

    @abstractmethod
    def unplug_replug(self) -> str:
        """Pull the shoe's cable and put it back; returns once it is back in (who did it)."""

    @abstractmethod
    def set_door(self, is_open: bool) -> str:
        """Open or close the shoe's door (who did it)."""

    @abstractmethod
    def load_deck(self) -> str:
        """With the stub released (or the shoe empty): load a fresh shuffled 52-card deck (who did it)."""

    @abstractmethod
    def await_taken(self, conn: Connection, dispense_id: int) -> None:
        """Return once the stack of ``dispense_id`` has left the tray (the dealer takes it)."""
