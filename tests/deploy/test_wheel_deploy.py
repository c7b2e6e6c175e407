"""From a wheel alone: build it, install it into a fresh virtual environment, and run docs/deploy.md's
Install block against a scratch root, as a new table PC would (no checkout on the path).

The block is read from the doc itself (the fenced block after the ``deploy-test: install`` marker), so the
doc cannot drift from what is tested. Each line is run by a small interpreter that knows every command the
block may use: file-system commands run with every absolute path moved under the scratch root, commands
that need a real system (users, udev, systemd's manager, an editor) are listed as skipped, and any other
command fails the test, so a new step in the doc must be taught here. To stay fast the wheel is built
without its dependencies, and the fresh environment reaches this environment's
dependencies through a ``.pth`` line (its own site-packages come first, and that line is not a site
directory, so the editable install of the checkout is not seen).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "deploy.md"
SKIPPED = {"apt-get", "useradd", "groupadd", "usermod", "udevadm", "systemctl", "editor"}
"""Commands that need the real system (package manager, accounts, udev, systemd's manager, a person)."""

pytestmark = pytest.mark.timeout(600)


def install_block() -> list[str]:
    text = DOC.read_text()
    marker = text.index("<!-- deploy-test: install")
    block = re.search(r"```sh\n(.*?)```", text[marker:], re.S)
    assert block is not None, "no ```sh block after the deploy-test marker"
    lines = [line.split(" #")[0].strip() for line in block.group(1).splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def version() -> str:
    import tomllib

    return str(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"])


def run(argv: list[str], exported: dict[str, str] | None = None, **kwargs: object) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")} | (exported or {})
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False, env=env, **kwargs)  # type: ignore[call-overload]
    assert done.returncode == 0, f"{argv} exited {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done  # type: ignore[no-any-return]


class Machine:
    """The scratch root and what the block did to it."""

    def __init__(self, root: Path, wheel: Path, work: Path) -> None:
        self.root, self.wheel, self.work = root, wheel, work
        self.skipped: list[str] = []
        self.outputs: dict[str, str] = {}
        self.exported: dict[str, str] = {}  # the block's `export NAME=VALUE` lines, in every later command

    def under(self, path: str) -> Path:
        assert path.startswith("/"), path
        return self.root / path.lstrip("/")

    def venv(self, target: str) -> None:
        path = self.under(target)
        run([sys.executable, "-m", "venv", "--without-pip", str(path)], cwd=self.work)
        site = path / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
        (site / "_deploy_test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    def pip_install(self, pip: str, args: list[str]) -> None:
        wheels = [a for a in args if a.endswith(".whl")]
        assert wheels == [f"shoe_controller-{version()}-py3-none-any.whl"], args
        python = self.under(pip).parent / "python"
        compile_flag = ["--no-compile"] if "--no-compile" in args else []
        run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
             "--no-cache-dir", "-q", *compile_flag, str(self.wheel)], self.exported, cwd=self.work)  # fmt: skip

    def ln(self, args: list[str]) -> None:
        flags, (target, link) = [a for a in args if a.startswith("-")], [a for a in args if not a.startswith("-")]
        assert set("".join(flags)) <= set("-sfn"), flags
        path = self.under(link)
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink():
            path.unlink()
        # Relative, so the link resolves both inside the root (a chroot, systemd-analyze --root) and from here.
        path.symlink_to(os.path.relpath(self.under(target), path.parent))

    def install(self, args: list[str]) -> None:
        mode, directory, rest = None, False, []
        items = iter(args)
        for arg in items:
            if arg == "-d":
                directory = True
            elif arg == "-m":
                mode = int(next(items), 8)
            elif arg in ("-o", "-g"):
                next(items)  # owners need root and the accounts step 1 makes
            else:
                rest.append(arg)
        assert mode is not None, args
        if directory:
            for target in rest:
                self.under(target).mkdir(parents=True, exist_ok=True)
                self.under(target).chmod(mode)
            return
        source, target = rest
        dest = self.under(target)
        if dest.is_dir():
            dest = dest / Path(source).name
        if source == "/dev/null":
            dest.write_bytes(b"")
        else:
            shutil.copyfile(self.under(source), dest)
        dest.chmod(mode)

    def execute(self, line: str) -> None:
        line = line.replace("VERSION", version())
        for part in (p.strip() for p in line.split("&&")):
            argv = shlex.split(part, comments=True)
            name = Path(argv[0]).name
            if name in SKIPPED:
                self.skipped.append(part)
            elif name == "export":
                key, _, value = argv[1].partition("=")
                self.exported[key] = value
            elif argv[:3] == ["python3", "-m", "venv"]:
                self.venv(argv[3])
            elif name == "pip" and argv[1] == "install":
                self.pip_install(argv[0], argv[2:])
            elif name == "find":  # inside the scratch root: only its paths, never the machine's
                assert argv[1].startswith("/opt/shoed/"), part
                run(["find", str(self.under(argv[1])), *argv[2:]], self.exported, cwd=self.work)
            elif name == "ln":
                self.ln(argv[1:])
            elif name == "install":
                self.install(argv[1:])
            elif name == "shoectl" and argv[1:3] == ["system", "install"]:
                command = [str(self.under(argv[0])), *argv[1:], "--root", str(self.root)]
                done = run(command, self.exported, cwd=self.work)
                self.outputs[part] = done.stdout
            elif name == "systemd-analyze" and argv[1] == "verify":
                self.analyze(argv[2])
            else:
                pytest.fail(f"docs/deploy.md's install block has a command this test does not know: {part!r}")

    def analyze(self, unit: str) -> None:
        analyze = shutil.which("systemd-analyze")
        if analyze is None or not Path("/usr/lib/systemd/system/sysinit.target").exists():
            self.skipped.append(f"systemd-analyze verify {unit} (no systemd here)")
            return
        # The root needs systemd's own units (sysinit.target and the rest) beside ours.
        units = self.root / "usr/lib/systemd"
        units.mkdir(parents=True, exist_ok=True)
        if not (units / "system").exists():
            (units / "system").symlink_to("/usr/lib/systemd/system")
        run([analyze, "verify", f"--root={self.root}", unit], cwd=self.work)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out, source = tmp_path_factory.mktemp("wheel"), tmp_path_factory.mktemp("source")
    # A copy of what the wheel is built from: pip builds in the source tree (build/, *.egg-info), which must
    # not be the checkout another run may be building at the same moment.
    for name in ("pyproject.toml", "README.md"):
        shutil.copyfile(ROOT / name, source / name)
    for package in ("protocols", "drivers", "shoe"):
        shutil.copytree(ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(source)])
    (built,) = out.glob("shoe_controller-*.whl")
    return built


@pytest.fixture(scope="module")
def machine(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Machine:
    root, work = tmp_path_factory.mktemp("root"), tmp_path_factory.mktemp("cwd")
    machine = Machine(root, wheel, work)
    for line in install_block():
        machine.execute(line)
    return machine


def test_the_wheel_carries_the_rules_and_the_unit(wheel: Path) -> None:
    import zipfile

    archive = zipfile.ZipFile(wheel)
    assert {"shoe/system/60-card-shoe.rules", "shoe/system/shoed.service"} <= set(archive.namelist())
    assert (ROOT / "udev/60-card-shoe.rules").read_bytes() == archive.read("shoe/system/60-card-shoe.rules")
    assert (ROOT / "deploy/shoed.service").read_bytes() == archive.read("shoe/system/shoed.service")


def test_the_release_runs_from_its_own_environment_not_the_checkout(machine: Machine) -> None:
    python = machine.root / f"opt/shoed/releases/{version()}/bin/python"
    where = run([str(python), "-c", "import shoe, drivers; print(shoe.__file__); print(drivers.__file__)"],
                cwd=machine.work).stdout.split()  # fmt: skip
    release = (machine.root / "opt/shoed/releases").resolve()
    assert all(Path(p).resolve().is_relative_to(release) for p in where), where
    assert (machine.root / "usr/local/bin/shoectl").resolve() == (
        machine.root / f"opt/shoed/releases/{version()}/bin/shoectl"
    ).resolve()


def test_system_install_put_the_shipped_files_in_place_and_said_so(machine: Machine) -> None:
    rules = machine.root / "etc/udev/rules.d/60-card-shoe.rules"
    unit = machine.root / "etc/systemd/system/shoed.service"
    assert rules.read_bytes() == (ROOT / "udev/60-card-shoe.rules").read_bytes()
    assert unit.read_bytes() == (ROOT / "deploy/shoed.service").read_bytes()
    assert rules.stat().st_mode & 0o777 == unit.stat().st_mode & 0o777 == 0o644
    (out,) = machine.outputs.values()
    assert f"created  {machine.root}/etc/udev/rules.d/60-card-shoe.rules" in out
    assert f"created  {machine.root}/etc/systemd/system/shoed.service" in out
    assert "note:" not in out  # the release the unit starts was linked in step 2


def test_the_block_ran_every_step_it_could_and_names_the_rest(machine: Machine) -> None:
    assert (machine.root / "etc/shoed/shoed.toml").stat().st_mode & 0o777 == 0o640
    assert (machine.root / "var/lib/shoed").stat().st_mode & 0o777 == 0o700
    assert {s.split()[0] for s in machine.skipped} <= SKIPPED | {"systemd-analyze"}
    assert any(s.startswith("systemctl enable") for s in machine.skipped)


def test_a_second_install_changes_nothing_and_doctor_finds_the_rules(machine: Machine) -> None:
    shoectl = str(machine.root / "opt/shoed/current/bin/shoectl")
    again = run([shoectl, "system", "install", "--root", str(machine.root), "--json"], cwd=machine.work)
    import json

    assert [c["action"] for c in json.loads(again.stdout)["changes"]] == ["unchanged", "unchanged"]
    done = subprocess.run(
        [shoectl, "doctor", "--json", "--rules-dir", str(machine.root / "etc/udev/rules.d"),
         "--journal", str(machine.root / "var/lib/shoed/journal.sqlite"), "--service", "http://127.0.0.1:9"],
        capture_output=True, text=True, timeout=120, check=False, cwd=machine.work,
    )  # fmt: skip
    (rules,) = [c for c in json.loads(done.stdout)["checks"] if c["name"] == "udev rules"]
    assert rules["status"] == "ok" and "identical" in rules["detail"], rules
