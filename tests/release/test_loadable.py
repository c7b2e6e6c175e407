"""Everything the interpreter can load is verified: bytecode, ``pyvenv.cfg``, ``.pth`` folders, ``bin/``, ``sys.path``.

Each attack is shown to be real first (the interpreter, run on the release's site-packages, executes the
attacker's code), then ``shoectl verify`` must refuse it. Seen failing before the fix: the replaced
``.pyc``, the sourceless package and ``include-system-site-packages = true`` each verified ``ok`` (exit 0).
"""

from __future__ import annotations

import importlib.util
import json
import marshal
import subprocess
import sys
from pathlib import Path

import pytest

from shoe.cli.exit_codes import Exit
from shoe.cli.main import main
from shoe.release import build_manifest, verify_tree
from shoe.release.signing import generate_key
from tests.release.conftest import SITE

EVIL = "import sys; sys.stdout.write('PWNED'); sys.stdout.flush()\n"


@pytest.fixture
def signed(release: Path, tmp_path: Path) -> tuple[Path, Path]:
    key = tmp_path / "keys" / "release.key"
    key.parent.mkdir()
    generate_key(key)
    out = str(release / "release-manifest.json")
    assert main(["release", "manifest", "--root", str(release), "--out", out, "--sign", str(key)]) == 0
    return release, key.with_name("release.key.pub")


def verify(capsys: pytest.CaptureFixture[str], root: Path, pub: Path) -> tuple[int, list[str]]:
    code = main(["--json", "verify", "--root", str(root), "--pubkey", str(pub)])
    data = json.loads(capsys.readouterr().out)
    return code, [d["text"] for d in data["differences"]]


def runs(root: Path, module: str) -> str:
    """What importing ``module`` from the release's site-packages prints (the attack is real)."""
    code = f"import sys; sys.path.insert(0, {str(root / SITE)!r}); import {module}"
    done = subprocess.run(
        [sys.executable, "-I", "-B", "-c", code], capture_output=True, text=True, check=False, timeout=60
    )
    return done.stdout


def bytecode_of(source: str, header_from: bytes) -> bytes:
    """A .pyc with ``header_from``'s 16-byte header (magic, flags, mtime, size) and ``source`` compiled."""
    return header_from[:16] + marshal.dumps(compile(source, "x.py", "exec"))


def genuine_pyc(source_file: Path) -> bytes:
    import py_compile

    out = Path(importlib.util.cache_from_source(str(source_file)))
    py_compile.compile(str(source_file), cfile=str(out), doraise=True)
    return out.read_bytes()


def test_a_replaced_pyc_with_its_header_kept_is_refused(
    signed: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    root, pub = signed
    source = root / SITE / "libdep/__init__.py"
    header = genuine_pyc(source)  # as pip's compile step would have left it
    pyc = Path(importlib.util.cache_from_source(str(source)))
    pyc.write_bytes(bytecode_of(EVIL, header))
    assert runs(root, "libdep") == "PWNED"  # the interpreter trusts the header: the attack is real
    code, named = verify(capsys, root, pub)
    assert code == Exit.PROGRAM_MISMATCH
    assert named == [f"bytecode {SITE}/libdep/__pycache__/{pyc.name}"]


def test_a_sourceless_package_shadowing_a_module_is_refused(
    signed: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    root, pub = signed
    shadow = root / SITE / "shoe/service/core"
    shadow.mkdir()
    (shadow / "__init__.pyc").write_bytes(bytecode_of(EVIL, genuine_pyc(root / SITE / "shoe/service/core.py")))
    assert runs(root, "shoe.service.core") == "PWNED"  # core/__init__.pyc wins over core.py
    code, named = verify(capsys, root, pub)
    assert code == Exit.PROGRAM_MISMATCH
    assert f"bytecode {SITE}/shoe/service/core/__init__.pyc" in named


def test_system_site_packages_switched_on_is_refused(
    signed: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    root, pub = signed
    cfg = root / "pyvenv.cfg"
    cfg.write_text(
        cfg.read_text().replace("include-system-site-packages = false", "include-system-site-packages = true")
    )
    code, named = verify(capsys, root, pub)
    assert code == Exit.PROGRAM_MISMATCH
    assert [n.split(" (")[0] for n in named] == ["loadable pyvenv.cfg"]
    cfg.unlink()
    assert verify(capsys, root, pub)[0] == Exit.PROGRAM_MISMATCH  # no pyvenv.cfg: not an environment of its own


@pytest.mark.parametrize(
    ("where", "data", "expected"),
    [
        ("libdep/evil.pyc", None, "bytecode {SITE}/libdep/evil.pyc"),  # a sourceless module in another package
        ("shoe/__pycache__/__init__.cpython-311.opt-1.pyc", None, "bytecode {SITE}/shoe/__pycache__/"),
        ("libdep/_evil.cpython-311-x86_64-linux-gnu.so", b"\x7fELF", "added {SITE}/libdep/_evil.cpython-311"),
        ("evil.cpython-311-x86_64-linux-gnu.so", b"\x7fELF", "added {SITE}/evil.cpython-311"),  # top level
        ("zz.pth", b"import os\n", "added {SITE}/zz.pth"),
    ],
)
def test_every_other_loadable_file_is_named(
    signed: tuple[Path, Path], capsys: pytest.CaptureFixture[str], where: str, data: bytes | None, expected: str
) -> None:
    root, pub = signed
    target = root / SITE / where
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data if data is not None else bytecode_of(EVIL, b"\0" * 16))
    code, named = verify(capsys, root, pub)
    assert code == Exit.PROGRAM_MISMATCH
    assert any(n.startswith(expected.format(SITE=SITE)) for n in named), named


def test_a_pth_folder_outside_the_release_and_a_module_in_bin_are_named(release: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "libdep.py").write_text(EVIL)
    (release / SITE / "a-path.pth").write_text(f"{outside}\n")
    manifest = build_manifest(release)  # even a .pth the release was built with
    (release / "bin" / "json.py").write_text(EVIL)
    named = [str(d) for d in verify_tree(release, manifest).differences]
    assert (
        f"loadable {SITE}/a-path.pth (adds {outside} to sys.path: code outside the release loads unverified)" in named
    )
    assert any(n.startswith("loadable bin/json.py") for n in named), named


def test_a_sys_path_entry_outside_the_release_and_bytecode_writing_are_named(release: Path, tmp_path: Path) -> None:
    from shoe.release.loadable import path_differences

    site = str(release / SITE)
    assert path_differences(release, [site, str(release / "bin")], writes_bytecode=False) == []
    extra = tmp_path / "extra"
    extra.mkdir()
    named = [str(d) for d in path_differences(release, [str(extra), site], writes_bytecode=True)]
    assert named[0].startswith(f"loadable sys.path ({extra} is not the release's")
    assert named[1].startswith("loadable bytecode-writing")


def test_building_a_manifest_of_a_tree_with_bytecode_is_refused(release: Path) -> None:
    genuine_pyc(release / SITE / "libdep/__init__.py")
    from shoe.release import ReleaseTreeError

    with pytest.raises(ReleaseTreeError, match=r"holds bytecode.*--no-compile"):
        build_manifest(release)


def test_the_running_environment_is_judged_by_its_sys_path() -> None:
    """The development environment's own sys.path holds nothing but its site-packages, bin/ and the stdlib
    (an editable install's checkout is the only extra entry it may name)."""
    from shoe.release.loadable import path_differences

    named = [str(d) for d in path_differences(Path(sys.prefix), sys.path, writes_bytecode=False)]
    assert all(n.startswith("loadable sys.path") for n in named)


def test_the_systemd_unit_runs_shoed_without_writing_bytecode() -> None:
    import configparser

    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.read(Path(__file__).resolve().parents[2] / "deploy" / "shoed.service")
    assert "PYTHONDONTWRITEBYTECODE=1" in unit["Service"]["Environment"].split()
