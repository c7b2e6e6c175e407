"""The HIL plugin: which shoe, which bench, markers that skip what the bench cannot do, the bench report.

Options (``pytest hil_tests --help``, group "hardware-in-the-loop bench"):

- ``--shoe URL``: the shoe under test. Default: start ``shoectl emulate --pty`` in a separate process
  and test it through its pseudo-terminal, so the real serial path is exercised. A port URL
  (``/dev/cardshoe``, ``socket://...``, ``usb://...``) tests that shoe instead.
- ``--bench FILE``: what the target can do (``hil_tests/benches/*.toml``; see ``bench.py``).
- ``--operator``: a person is at the shoe; tests that need hands (pull the cable, load a deck, put a jam
  card in) ask for them. Without it those tests are skipped on hardware, with the reason.
- ``--report DIR``: where ``report.json`` and ``report.md`` go (default ``hil_tests/out/``).
- ``--operator-name NAME``, ``--witness NAME``, ``--bench-id ID``: the lab's sign-off fields of the report
  (with the shoe's serial from IDENTIFY); a missing one leaves the report "unsigned".

A target that is absent or does not answer fails the run: every test that needs it errors with the
reason, the report's verdict says the target was not reached, and the exit status is non-zero. Only what
the bench file rules out is skipped (a feature it says the shoe lacks, a destructive test it does not
allow), and, on hardware without ``--operator``, a test that needs hands.

Markers: ``needs(feature, ...)`` skips a test on a bench without every feature named (a registry,
``bench.FEATURES``; an unknown name is a usage error); ``destructive`` skips it unless the bench
allows tests that jam, fault or unplug the shoe. Tests ask for ``target`` (a ``bench.Target``); which
class serves a bench kind is the ``TARGETS`` registry below.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from drivers.errors import ShoeError
from hil_tests.bench import FEATURES, Bench, BenchError, Connection, Target, TargetUnreachable, load_bench, port_bench
from hil_tests.emulator_target import EmulatorError, EmulatorTarget
from hil_tests.report import Report, SignOff
from protocols import messages as m
from protocols.codes import ShoeState

HERE = Path(__file__).resolve().parent
DEFAULT_BENCH = HERE / "benches" / "emulator.toml"
DEFAULT_REPORT = HERE / "out"
BENCH = pytest.StashKey[Bench]()
PORT = pytest.StashKey[str]()
REPORT = pytest.StashKey[Report]()


# -- options, markers, bench ---------------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("hil", "hardware-in-the-loop bench (hil_tests/README.md)")
    group.addoption("--shoe", metavar="URL", default=None,
                    help="the shoe under test: a port URL (/dev/cardshoe, socket://HOST:PORT, usb://VID:PID), or "
                         "'emulator' (default): start `shoectl emulate --pty` in a separate process")  # fmt: skip
    group.addoption("--bench", metavar="FILE", default=None,
                    help="bench description: what the target can do (default hil_tests/benches/emulator.toml; "
                         "with --shoe URL and no --bench nothing is assumed)")  # fmt: skip
    group.addoption("--operator", action="store_true", default=False,
                    help="a person is at the shoe: tests that need hands ask for them instead of skipping")  # fmt: skip
    group.addoption("--report", metavar="DIR", default=None,
                    help="write report.json and report.md here (default hil_tests/out/)")  # fmt: skip
    sign = parser.getgroup("hil-sign-off", "bench report sign-off (a missing field leaves the report unsigned)")
    sign.addoption("--operator-name", metavar="NAME", default=None, help="who ran the session, for the report")
    sign.addoption("--witness", metavar="NAME", default=None, help="who witnessed the session, for the report")
    sign.addoption("--bench-id", metavar="ID", default=None, help="the lab's identifier of the bench (rig)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "destructive: jams, faults or unplugs the shoe; runs only where the bench "
                                       "allows it ([bench] destructive = true)")  # fmt: skip
    config.addinivalue_line("markers", "needs(feature, ...): skipped on a bench without every feature named "
                                       f"({', '.join(FEATURES)})")  # fmt: skip
    try:
        bench, port = resolve(config.getoption("--shoe"), config.getoption("--bench"))
    except BenchError as exc:
        raise pytest.UsageError(f"--bench: {exc}") from None
    config.stash[BENCH] = bench
    config.stash[PORT] = port
    config.stash[REPORT] = Report(bench, port, sign_off=sign_off(config))
    option = config.getoption("--report")
    config.pluginmanager.register(ReportPlugin(config.stash[REPORT], Path(option) if option else DEFAULT_REPORT))


def sign_off(config: pytest.Config) -> SignOff:
    """The sign-off options: printable text of at most 100 characters, or absent."""
    values: dict[str, str | None] = {}
    for field, option in (("operator", "--operator-name"), ("witness", "--witness"), ("bench_id", "--bench-id")):
        value = config.getoption(option)
        if value is not None:
            value = value.strip()
            if not value or len(value) > 100 or not value.isprintable():
                raise pytest.UsageError(f"{option} {value!r}: give a name or id of 1 to 100 printable characters")
        values[field] = value
    return SignOff(**values)


def resolve(shoe: str | None, bench_file: str | None) -> tuple[Bench, str]:
    """The bench and the target: ``"emulator"`` or the port of a real shoe."""
    if bench_file is not None:
        bench = load_bench(Path(bench_file))
    elif shoe in (None, "emulator"):
        bench = load_bench(DEFAULT_BENCH)
    else:
        bench = port_bench(shoe)
    if bench.kind == "emulator":
        if shoe not in (None, "emulator"):
            raise pytest.UsageError(f"--shoe {shoe}: bench {bench.name!r} is an emulator bench, which starts its own "
                                    "shoe; pass a hardware bench (--bench hil_tests/benches/example-hardware.toml) "
                                    "or drop --shoe")  # fmt: skip
        return bench, "emulator"
    if shoe == "emulator":
        raise pytest.UsageError(f"--shoe emulator: bench {bench.name!r} describes hardware; drop --bench")
    port = shoe or bench.port
    if port is None:
        raise pytest.UsageError(f"bench {bench.name!r} names no shoe: pass --shoe URL or set [bench] port")
    return bench, port


def pytest_report_header(config: pytest.Config) -> str:
    bench = config.stash[BENCH]
    features = ", ".join(sorted(bench.features)) or "none"
    return (f"hil bench: {bench.name} ({bench.kind}, timing {bench.timing.name}), target {config.stash[PORT]}, "
            f"features: {features}, operator: {'yes' if config.getoption('--operator') else 'no'}")  # fmt: skip


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    bench = config.stash[BENCH]
    for item in items:
        for mark in item.iter_markers("needs"):
            unknown = [name for name in mark.args if name not in FEATURES]
            if unknown or not mark.args:
                raise pytest.UsageError(f"{item.nodeid}: needs({', '.join(map(repr, mark.args))}): "
                                        f"name features from {', '.join(FEATURES)}")  # fmt: skip
            for name in bench.missing(mark.args):
                reason = f"needs {name} ({FEATURES[name].meaning}); bench {bench.name!r} does not have it"
                item.add_marker(pytest.mark.skip(reason=reason))
        if item.get_closest_marker("destructive") and not bench.destructive:
            reason = f"destructive (jams, faults or unplugs the shoe); bench {bench.name!r} does not allow it"
            item.add_marker(pytest.mark.skip(reason=reason))


# -- the report ------------------------------------------------------------------------------------


class ReportPlugin:
    """Feeds each test's outcome to the session's ``Report`` and writes it when the session ends."""

    def __init__(self, report: Report, directory: Path) -> None:
        self.report = report
        self.directory = directory
        self.written: tuple[Path, Path] | None = None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call" and report.passed:
            return
        reason = ""
        if report.skipped and isinstance(report.longrepr, tuple):
            reason = str(report.longrepr[2]).removeprefix("Skipped: ")
        elif report.failed:
            reason = (report.longreprtext.strip().splitlines() or [""])[-1][:300]
        outcome = report.outcome if not report.failed else ("failed" if report.when == "call" else "error")
        if self.report.outcomes.get(report.nodeid, {}).get("outcome") not in ("failed", "error"):
            self.report.outcome(report.nodeid, outcome, reason)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.report.target_problem is not None and exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED  # a shoe that never answered is no pass
        if self.report.outcomes:
            self.written = self.report.write(self.directory)

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
        if self.report.target_problem is not None:
            terminalreporter.write_line(f"FAILED: the target {self.report.target} was not reached: "
                                        f"{self.report.target_problem}", red=True, bold=True)  # fmt: skip
        if self.written is not None:
            terminalreporter.write_line(f"bench report: {self.written[1]} and {self.written[0].name}")


# -- the operator and the hardware target -----------------------------------------------------------


class Operator:
    """A person at the shoe (``--operator``); without one, a test that needs hands is skipped."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.present = bool(config.getoption("--operator"))

    def ask(self, instruction: str) -> None:
        if not self.present:
            pytest.skip(f"needs a person at the shoe to: {instruction} (rerun with --operator)")
        answer = self._prompt(f"\n[operator] {instruction}\n[operator] Enter when done, or s + Enter to skip: ")
        if answer.strip().lower().startswith("s"):
            pytest.skip(f"the operator skipped: {instruction}")

    def _prompt(self, text: str) -> str:
        capture = self.config.pluginmanager.getplugin("capturemanager")
        if capture is None:  # -p no:capture
            return input(text)
        capture.suspend_global_capture(in_=True)  # the terminal, stdin included, back for the prompt
        try:
            return input(text)
        finally:
            capture.resume_global_capture()


class HardwareTarget(Target):
    """A real shoe at a port: the software does what it can; the operator does what needs hands."""

    def __init__(self, bench: Bench, port: str, operator: Operator) -> None:
        super().__init__(bench, port)
        self.operator = operator

    def close(self) -> None:
        """Nothing is held between tests: each test opens and closes its own connection."""

    def start(self) -> None:
        if "://" not in self.port and not os.path.exists(self.port):
            raise TargetUnreachable(f"no shoe at {self.port}", "plug it in, check the udev rule (shoectl doctor) or "
                                    "pass --shoe URL")  # fmt: skip

    def fresh(self) -> None:
        """Ask for a full deck and a clear shoe when the last test left it otherwise."""
        with self.connect() as conn:
            status = conn.client.status()
        full = status.cards_remaining in (52, m.Status.UNKNOWN_REMAINING)
        if status.state is not ShoeState.IDLE or status.faults or not full:
            self.operator.ask(f"the shoe is {status.state.name} with {status.cards_remaining} cards and fault flags "
                              f"{status.faults:#x}: clear it (take the stack or stub out, fix the fault, "
                              "shoectl clear-fault) and load a fresh shuffled deck of 52")  # fmt: skip

    def arrange(self, options: Mapping[str, str], instructions: str) -> str:
        if not instructions:
            return "nobody"
        self.operator.ask(instructions)
        return "operator"

    def attend(self, instructions: str) -> str:
        self.operator.ask(instructions)
        return "operator"

    def unplug_replug(self) -> str:
        self.operator.ask("pull the shoe's USB cable, count to two, plug it back in")
        return "operator"

    def set_door(self, is_open: bool) -> str:
        self.operator.ask("open the shoe's door and leave it open" if is_open else "close the shoe's door")
        return "operator"

    def load_deck(self) -> str:
        self.operator.ask("take the released stub out, load a fresh shuffled deck of 52 cards, close the door")
        return "operator"

    def await_taken(self, conn: Connection, dispense_id: int) -> None:
        def taken() -> bool:
            return any(e.dispense_id == dispense_id for e in conn.events(m.StackTaken))

        if conn.wait_for(taken, 1.0):
            return
        if not self.bench.has("tray_sensor"):
            self.operator.ask(f"take stack {dispense_id} from the tray")
            return
        if not self.operator.present:
            pytest.skip(f"stack {dispense_id} waits in the tray and nobody is there to take it (rerun with --operator)")
        if not conn.wait_for(taken, self.bench.timing.take_s):
            raise AssertionError(f"no STACK_TAKEN for dispense {dispense_id} within {self.bench.timing.take_s:g} s")


TargetFactory = Callable[[Bench, str, pytest.Config, Path], Target]
TARGETS: dict[str, TargetFactory] = {
    "emulator": lambda bench, port, config, workdir: EmulatorTarget(bench, workdir),
    "hardware": lambda bench, port, config, workdir: HardwareTarget(bench, port, Operator(config)),
}


# -- fixtures --------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def bench(pytestconfig: pytest.Config) -> Bench:
    return pytestconfig.stash[BENCH]


@pytest.fixture(scope="session")
def hil_report(pytestconfig: pytest.Config) -> Report:
    return pytestconfig.stash[REPORT]


@pytest.fixture(scope="session")
def hil_target(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    """The session's target, started once. A shoe that is absent or does not answer fails every test that needs
    it (pytest keeps the failure for the session: the shoe is tried once) and the report says why."""
    bench, port = pytestconfig.stash[BENCH], pytestconfig.stash[PORT]
    report = pytestconfig.stash[REPORT]
    target = TARGETS[bench.kind](bench, port, pytestconfig, tmp_path_factory.mktemp("hil"))
    try:
        target.start()
        with target.connect() as conn:
            target.identity = conn.client.identify()
    except (ShoeError, TargetUnreachable, EmulatorError) as exc:
        target.close()
        hint = getattr(exc, "hint", "")
        report.unreachable(f"{exc}: {hint}" if hint else str(exc))
        pytest.fail(f"the target {port} was not reached: {report.target_problem}", pytrace=False)
    except Exception as exc:  # a bug or a bad port URL: the traceback shows it, the report says the run failed
        target.close()
        report.unreachable(f"{type(exc).__name__}: {exc}")
        raise
    except BaseException:
        target.close()
        raise
    report.identify(target.identity)
    yield target
    target.close()


@pytest.fixture
def target(hil_target: Target, hil_report: Report, request: pytest.FixtureRequest) -> Target:
    """The shoe under test, fresh for this test: a full deck, no fault, the bench's own options."""
    hil_report.current_test = request.node.nodeid
    hil_target.fresh()
    return hil_target
