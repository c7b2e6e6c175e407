"""A fake installed release in tmp_path: a virtual environment's layout with two distributions and their RECORDs.

Never the real venv: tests change bytes, drop files and upgrade a dependency in this copy.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import pytest

SITE = "lib/python3.11/site-packages"


def _record_line(site: Path, rel: str) -> str:
    path = site / rel
    if not path.exists() or rel.endswith("RECORD"):
        return f"{rel},,"
    data = path.read_bytes()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{rel},sha256={digest},{len(data)}"


def install(root: Path, name: str, version: str, files: dict[str, bytes]) -> None:
    """Install a distribution the way pip leaves it: its files, METADATA, INSTALLER, RECORD (and a bin wrapper)."""
    site = root / SITE
    dist_info = f"{name.replace('-', '_')}-{version}.dist-info"
    written = []
    for rel, data in files.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_bytes(data)
        written.append(rel)
    (site / dist_info).mkdir(parents=True, exist_ok=True)
    (site / dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (site / dist_info / "INSTALLER").write_text("pip\n")
    (root / "bin").mkdir(exist_ok=True)
    (root / "bin" / name).write_text(f"#!{root}/bin/python\nimport sys\n")  # the absolute path differs per install
    written += [f"{dist_info}/METADATA", f"{dist_info}/INSTALLER", f"../../../bin/{name}", f"{dist_info}/RECORD"]
    (site / dist_info / "RECORD").write_text("\n".join(_record_line(site, rel) for rel in written) + "\n")


def uninstall(root: Path, name: str, version: str) -> None:
    site = root / SITE
    dist_info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    for line in (dist_info / "RECORD").read_text().splitlines():
        rel = line.split(",")[0]
        target = site / rel
        if target.is_file():
            target.unlink()
    dist_info.rmdir()


def make_release(root: Path) -> Path:
    install(
        root,
        "shoe-controller",
        "0.1.0",
        {
            "shoe/__init__.py": b'"""The shoe."""\n',
            "shoe/service/core.py": b"def serve() -> None:\n    pass\n" * 50,
            "shoe/ui/static/app.css": b"body { color: black; }\n",
        },
    )
    install(
        root, "libdep", "1.0", {"libdep/__init__.py": b"VERSION = '1.0'\n", "libdep/_speed.so": bytes(range(256)) * 8}
    )
    # a release holds no bytecode (pip install --no-compile): the tests that need one add it
    (root / "pyvenv.cfg").write_text("home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n")
    return root


@pytest.fixture
def release(tmp_path: Path) -> Path:
    return make_release(tmp_path / "releases" / "0.1.0")
