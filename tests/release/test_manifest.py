"""The manifest and the tree check: each change to an installed tree detected and named."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from shoe.release import build_manifest, canonical, parse_seed, read_manifest_file, verify_tree
from shoe.release.manifest import Manifest, ManifestError
from shoe.release.tree import ReleaseTreeError
from tests.release.conftest import SITE, install, uninstall

SEED = parse_seed("8f3a0c21d4e5f607")


def texts(root: Path, manifest: Manifest) -> list[str]:
    return [str(d) for d in verify_tree(root, manifest).differences]


def test_the_manifest_lists_every_file_of_the_project_and_its_dependencies(release: Path) -> None:
    manifest = build_manifest(release)
    paths = [p for p, _, _ in manifest.files]
    assert f"{SITE}/shoe/service/core.py" in paths and f"{SITE}/libdep/_speed.so" in paths
    assert f"{SITE}/libdep-1.0.dist-info/METADATA" in paths
    assert paths == sorted(paths)
    assert manifest.versions == {"libdep": "1.0", "shoe-controller": "0.1.0"}
    assert manifest.release == "0.1.0"
    assert "bin/shoe-controller" in paths and "bin/libdep" in paths  # the console-script wrappers
    # written by the installer about this one install: never covered
    assert not [p for p in paths if p.endswith((".pyc", "/RECORD", "/INSTALLER"))]


def test_a_clean_install_verifies_and_the_laboratory_copy_prints_the_same_value(release: Path, tmp_path: Path) -> None:
    manifest = build_manifest(release)
    here = verify_tree(release, manifest, SEED)
    assert here.ok, here.differences
    lab = tmp_path / "laboratory" / "certified-0.1.0"
    shutil.copytree(release, lab, symlinks=True)
    wrapper = lab / "bin" / "shoe-controller"
    wrapper.write_text("#!/elsewhere/bin/python\n" + wrapper.read_text().partition("\n")[2])  # another path
    there = verify_tree(lab, manifest, SEED)
    assert there.ok and there.seeded_hmac == here.seeded_hmac
    assert verify_tree(lab, manifest, parse_seed("00000001")).seeded_hmac != here.seeded_hmac


def test_a_byte_changed_in_an_installed_module_is_named_and_changes_the_value(release: Path) -> None:
    manifest = build_manifest(release)
    before = verify_tree(release, manifest, SEED).seeded_hmac
    module = release / SITE / "shoe/service/core.py"
    data = bytearray(module.read_bytes())
    data[100] ^= 0x01
    module.write_bytes(bytes(data))
    check = verify_tree(release, manifest, SEED)
    assert [(d.kind, d.what) for d in check.differences] == [("changed", f"{SITE}/shoe/service/core.py")]
    assert check.seeded_hmac != before


def test_a_file_dropped_into_a_package_and_a_stray_pth_are_named(release: Path) -> None:
    manifest = build_manifest(release)
    before = verify_tree(release, manifest, SEED).seeded_hmac
    (release / SITE / "shoe/service/backdoor.py").write_text("import os\n")
    (release / SITE / "zz-evil.pth").write_text("import backdoor\n")
    (release / SITE / "libdep/__pycache__").mkdir()
    (release / SITE / "libdep/__pycache__/x.pyc").write_bytes(b"bytecode is never ignored")
    check = verify_tree(release, manifest, SEED)
    assert [str(d) for d in check.differences] == [
        f"bytecode {SITE}/libdep/__pycache__/x.pyc",
        f"added {SITE}/shoe/service/backdoor.py",
        f"added {SITE}/zz-evil.pth",
    ]
    assert check.seeded_hmac != before


def test_a_console_script_wrapper_changed_below_its_first_line_is_named(release: Path) -> None:
    manifest = build_manifest(release)
    wrapper = release / "bin" / "shoe-controller"
    wrapper.write_text(wrapper.read_text() + "import backdoor\n")
    assert [t.split(" (")[0] for t in texts(release, manifest)] == ["changed bin/shoe-controller"]


def test_a_removed_file_is_named(release: Path) -> None:
    manifest = build_manifest(release)
    (release / SITE / "shoe/ui/static/app.css").unlink()
    assert texts(release, manifest) == [f"removed {SITE}/shoe/ui/static/app.css"]


def test_a_dependency_upgraded_names_the_version_and_its_files(release: Path) -> None:
    manifest = build_manifest(release)
    uninstall(release, "libdep", "1.0")
    install(
        release,
        "libdep",
        "1.1",
        {"libdep/__init__.py": b"VERSION = '1.1'\n", "libdep/_speed.so": bytes(range(256)) * 8},
    )
    found = texts(release, manifest)
    assert "version libdep: manifest 1.0, installed 1.1" in found
    assert f"changed {SITE}/libdep/__init__.py (sha256" in " ".join(found)
    assert f"removed {SITE}/libdep-1.0.dist-info/METADATA" in found
    assert f"added {SITE}/libdep-1.1.dist-info/METADATA" in found


def test_a_dependency_added_or_removed_is_named(release: Path) -> None:
    manifest = build_manifest(release)
    install(release, "extra-dep", "2.0", {"extra_dep.py": b"x = 1\n"})
    uninstall(release, "libdep", "1.0")
    found = texts(release, manifest)
    assert "distribution libdep removed" in found and "distribution extra-dep added" in found


def test_the_manifest_is_canonical_json_and_round_trips(release: Path, tmp_path: Path) -> None:
    manifest = build_manifest(release, build={"commit": "3f2a9c1"})
    out = tmp_path / "m.json"
    out.write_bytes(canonical(dict(manifest.body)))
    again, signature = read_manifest_file(out)
    assert signature is None and again.sha256 == manifest.sha256 and again.body["build"]["commit"] == "3f2a9c1"
    assert canonical({"b": 1, "a": [1, "é"]}) == '{"a":[1,"é"],"b":1}'.encode()


@pytest.mark.parametrize(
    "doc",
    [
        [],
        {"format": 2},
        {"format": 1, "files": [{"path": "a"}], "distributions": [], "build": {}},
        {"format": 1, "files": [{"path": "../etc/passwd", "sha256": "0", "size": 1}], "distributions": [], "build": {}},
    ],
)
def test_a_malformed_manifest_is_refused_by_name(tmp_path: Path, doc: object) -> None:
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ManifestError, match=r"m\.json"):
        read_manifest_file(path)


def test_a_root_that_is_not_a_virtual_environment_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ReleaseTreeError, match="not a virtual environment"):
        build_manifest(tmp_path)


@pytest.mark.parametrize("text", ["xyz", "abc", "00", "00" * 65])
def test_a_bad_seed_says_what_is_wrong(text: str) -> None:
    with pytest.raises(ValueError, match="seed"):
        parse_seed(text)
