"""The software identity where the issue asks for it beyond the journal and /v1/status: shoectl doctor."""

from __future__ import annotations

from pathlib import Path

from shoe.cli.main import main
from shoe.doctor import Context, Status
from shoe.doctor.service_checks import installed_program
from shoe.release.signing import generate_key
from tests.release.conftest import SITE, make_release


def signed(tmp_path: Path) -> tuple[Path, Path]:
    root = make_release(tmp_path / "rel")
    generate_key(tmp_path / "k")
    out = str(root / "release-manifest.json")
    assert main(["release", "manifest", "--root", str(root), "--out", out, "--sign", str(tmp_path / "k")]) == 0
    return root, tmp_path / "k.pub"


def test_doctor_names_the_release_and_its_manifest_hash(tmp_path: Path) -> None:
    root, pub = signed(tmp_path)
    result = installed_program(Context(release_root=root, release_pubkey=pub))
    assert result.status is Status.OK and "release 0.1.0, manifest " in result.detail


def test_doctor_fails_a_tampered_install_naming_the_file(tmp_path: Path) -> None:
    root, pub = signed(tmp_path)
    (root / SITE / "libdep/__init__.py").write_text("VERSION = 'x'\n")
    result = installed_program(Context(release_root=root, release_pubkey=pub))
    assert result.status is Status.FAILED and f"changed {SITE}/libdep/__init__.py" in result.detail
    assert "shoectl verify" in result.fix


def test_doctor_skips_an_install_without_a_manifest(tmp_path: Path) -> None:
    root = make_release(tmp_path / "rel")
    result = installed_program(Context(release_root=root, release_pubkey=None))
    assert result.status is Status.SKIPPED and "no release manifest" in result.detail


def test_the_hil_report_carries_the_software_identity() -> None:
    from hil_tests.report import software_versions

    versions = software_versions()
    assert "release manifest" in versions and str(versions["program verified"]).split(":")[0] in (
        "ok", "mismatch", "bad-signature", "unverified"
    )  # fmt: skip
