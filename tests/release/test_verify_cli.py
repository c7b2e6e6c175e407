"""``shoectl release`` and ``shoectl verify``: signatures, exit codes, every difference named."""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from shoe.cli.exit_codes import Exit
from shoe.cli.main import main
from shoe.release import build_manifest, read_manifest_file
from shoe.release.signing import SignatureError, generate_key, sign, verify_signature
from tests.release.conftest import SITE

SEED = "8f3a0c21d4e5f607"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object], str]:
    code = main(["--json", *argv])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


@pytest.fixture
def keys(tmp_path: Path) -> tuple[Path, Path]:
    key = tmp_path / "keys" / "release.key"
    key.parent.mkdir()
    generate_key(key)
    return key, key.with_name("release.key.pub")


@pytest.fixture
def signed(release: Path, keys: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> Path:
    code, data, _ = run(
        capsys,
        "release",
        "manifest",
        "--root",
        str(release),
        "--out",
        str(release / "release-manifest.json"),
        "--sign",
        str(keys[0]),
    )
    assert code == 0 and data["signed_by"]
    return release


def test_keygen_writes_a_private_key_only_its_owner_reads_and_never_overwrites(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = tmp_path / "k"
    code, data, _ = run(capsys, "release", "keygen", "--out", str(key))
    assert code == 0 and len(str(data["key_id"])) == 16
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and key.with_name("k.pub").exists()
    code, data, _ = run(capsys, "release", "keygen", "--out", str(key))
    assert code == Exit.USAGE and "exists" in str(data["error"])


def test_a_clean_install_verifies_with_its_default_manifest_and_the_lab_gets_the_same_value(
    signed: Path, keys: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, here, _ = run(capsys, "verify", "--root", str(signed), "--pubkey", str(keys[1]), "--seed", SEED)
    assert code == 0 and here["result"] == "ok" and here["differences"] == []
    lab = tmp_path / "lab"
    shutil.copytree(signed, lab / "artefacts")
    code, there, _ = run(capsys, "verify", "--root", str(lab / "artefacts"), "--pubkey", str(keys[1]), "--seed", SEED)
    assert code == 0 and there["seeded_hmac"] == here["seeded_hmac"]
    assert there["manifest_sha256"] == here["manifest_sha256"]


def test_a_changed_byte_exits_12_and_names_the_file(
    signed: Path, keys: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    module = signed / SITE / "shoe/__init__.py"
    module.write_bytes(module.read_bytes().replace(b"shoe", b"shoo"))
    code, data, _ = run(capsys, "verify", "--root", str(signed), "--pubkey", str(keys[1]))
    assert code == Exit.PROGRAM_MISMATCH and data["result"] == "mismatch"
    assert data["differences"][0]["text"].startswith(f"changed {SITE}/shoe/__init__.py")  # type: ignore[index]


def test_human_output_names_each_difference(
    signed: Path, keys: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    (signed / SITE / "shoe/extra.py").write_text("x = 1\n")
    code = main(["verify", "--root", str(signed), "--pubkey", str(keys[1]), "--seed", SEED])
    out = capsys.readouterr().out
    assert code == Exit.PROGRAM_MISMATCH
    assert f"  added {SITE}/shoe/extra.py" in out and "MISMATCH" in out and "seeded hmac" in out


def test_a_manifest_changed_after_signing_is_a_bad_signature(
    signed: Path, keys: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path = signed / "release-manifest.json"
    doc = json.loads(path.read_text())
    doc["manifest"]["distributions"][0]["version"] = "9.9"  # hide an upgrade
    path.write_text(json.dumps(doc))
    code, data, _ = run(capsys, "verify", "--root", str(signed), "--pubkey", str(keys[1]))
    assert code == Exit.SIGNATURE_BAD
    assert "bad signature: the manifest was changed after key" in data["signature"]["problem"]  # type: ignore[index]


def test_a_manifest_signed_by_another_key_is_refused_naming_both_keys(
    signed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other.key"
    _, other_id = generate_key(other)
    manifest, _ = read_manifest_file(signed / "release-manifest.json")
    (signed / "release-manifest.json").write_text(json.dumps(sign(manifest, other)))
    trusted = tmp_path / "keys" / "release.key.pub"
    code, data, _ = run(capsys, "verify", "--root", str(signed), "--pubkey", str(trusted))
    problem = data["signature"]["problem"]  # type: ignore[index]
    assert code == Exit.SIGNATURE_BAD and f"signed by key {other_id}, not by the trusted key" in problem


def test_an_unsigned_manifest_with_a_trusted_key_and_no_key_at_all(
    release: Path, keys: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "release", "manifest", "--root", str(release), "--out", str(release / "release-manifest.json"))
    code, data, _ = run(capsys, "verify", "--root", str(release), "--pubkey", str(keys[1]))
    assert code == Exit.SIGNATURE_BAD and "not signed" in data["signature"]["problem"]  # type: ignore[index]
    code, data, _ = run(capsys, "verify", "--root", str(release), "--pubkey", str(release / "missing.pub"))
    assert code == Exit.SIGNATURE_BAD and "cannot be read" in data["signature"]["problem"]  # type: ignore[index]


def test_signature_checks_directly(release: Path, keys: tuple[Path, Path]) -> None:
    manifest = build_manifest(release)
    doc = sign(manifest, keys[0])
    assert verify_signature(manifest, doc["signature"], keys[1]) == doc["signature"]["key_id"]
    with pytest.raises(SignatureError, match="not hexadecimal"):
        verify_signature(manifest, {**doc["signature"], "value": "zz"}, keys[1])
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

    pem = X25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    (release / "x25519.pem").write_bytes(pem)
    with pytest.raises(SignatureError, match="not an Ed25519 key"):
        sign(manifest, release / "x25519.pem")


def test_no_manifest_and_a_bad_seed_are_usage_errors(release: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, data, _ = run(capsys, "verify", "--root", str(release))
    assert code == Exit.USAGE and "no manifest at" in str(data["error"])
    code, data, _ = run(capsys, "verify", "--root", str(release), "--seed", "xyz")
    assert code == Exit.USAGE and "not hexadecimal" in str(data["error"])


def test_shoectl_imports_cryptography_only_when_a_command_needs_it() -> None:
    code = "import sys, shoe.cli.main, shoe.shoed; print('cryptography' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "False"
