"""``shoectl release keygen|manifest``: the release side of program verification (docs/deploy.md).

``keygen --out KEYFILE`` writes a new Ed25519 key pair (KEYFILE, mode 0600, and KEYFILE.pub); the real
release key is made and kept offline, never in the repository. ``manifest --out FILE [--sign KEYFILE]
[--root DIR]`` writes the manifest of what is installed under the release root (default: this
``shoectl``'s own virtual environment): every covered file's path and SHA-256, every distribution's
version, the build's identity (``shoe.release``), signed when a key is given.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from shoe.cli.exit_codes import Exit
from shoe.cli.output import Refused, emit, key_values
from shoe.release import ManifestError, ReleaseTreeError, build_manifest, canonical

EPILOG = """\
exit codes: 0 written   2 usage (a key file that exists, an unreadable key, a root that is not a
  virtual environment)   1 a bug (traceback printed)
"""


def cmd_keygen(args: argparse.Namespace) -> int:
    from shoe.release.signing import generate_key

    out = Path(args.out).expanduser()
    if not out.parent.is_dir():
        raise Refused(
            f"{out.parent} does not exist (or is not a folder)",
            f"create it first (mkdir -p -m 0700 {out.parent}), or choose --out in an existing folder",
            Exit.USAGE,
        )
    try:
        public, kid = generate_key(out)
    except FileExistsError as exc:
        raise Refused(str(exc), "choose a new path; a key is never overwritten", Exit.USAGE) from None
    except OSError as exc:
        hint = "choose a folder you may write"
        raise Refused(f"cannot write {out}: {exc.strerror or exc}", hint, Exit.USAGE) from None
    data = {"private_key": str(out), "public_key": str(public), "key_id": kid}
    emit(data, as_json=args.json, human=lambda d: key_values(d) + "\nkeep the private key offline (docs/deploy.md)")
    return int(Exit.OK)


def cmd_manifest(args: argparse.Namespace) -> int:
    root = Path(args.root or sys.prefix).expanduser()
    build: dict[str, Any] = {}
    for item in args.build or ():
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise Refused(f"--build {item!r} is not KEY=VALUE", "e.g. --build commit=3f2a9c1", Exit.USAGE)
        build[key] = value
    started = time.perf_counter()
    try:
        manifest = build_manifest(root, build=build)
    except (ReleaseTreeError, ManifestError) as exc:
        raise Refused(str(exc), "give the release's virtual environment with --root", Exit.USAGE) from None
    editable = [d["name"] for d in manifest.body["distributions"] if d["editable"]]
    doc: dict[str, Any] = dict(manifest.body)
    if args.sign:
        from shoe.release.signing import SignatureError, sign

        try:
            doc = sign(manifest, Path(args.sign).expanduser())
        except SignatureError as exc:
            raise Refused(str(exc), "shoectl release keygen --out KEYFILE makes a key pair", Exit.USAGE) from None
    out = Path(args.out).expanduser()
    out.write_bytes(canonical(doc) + b"\n")
    data = {
        "manifest": str(out),
        "release": manifest.release,
        "manifest_sha256": manifest.sha256,
        "files": len(manifest.files),
        "bytes": sum(size for _, _, size in manifest.files),
        "seconds": round(time.perf_counter() - started, 3),
        "distributions": len(manifest.versions),
        "signed_by": doc["signature"]["key_id"] if "signature" in doc else None,
        "editable": editable,
    }
    emit(data, as_json=args.json, human=_human)
    return int(Exit.OK)


def _human(d: dict[str, Any]) -> str:
    text = key_values({k: v for k, v in d.items() if k != "editable"})
    if d["editable"]:
        text += (
            f"\nwarning: {', '.join(d['editable'])} installed editable (pip install -e): its source files are "
            "not covered; a release is installed from a wheel"
        )
    return text


def add_parsers(sub: Any) -> None:
    p = sub.add_parser(
        "release",
        help="make a release key pair, write (and sign) a release manifest",
        description=__doc__,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rsub = p.add_subparsers(dest="release_command", metavar="SUBCOMMAND", required=True)
    k = rsub.add_parser(
        "keygen",
        help="a new Ed25519 key pair: KEYFILE (0600) and KEYFILE.pub",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    k.add_argument("--out", required=True, metavar="KEYFILE", help="the private key's path (refused if it exists)")
    k.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="machine-readable output")
    k.set_defaults(func=cmd_keygen, needs_port=False)
    mp = rsub.add_parser(
        "manifest",
        help="the manifest of what is installed under the release root",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    mp.add_argument("--out", required=True, metavar="FILE", help="where to write it (release-manifest.json)")
    mp.add_argument("--sign", metavar="KEYFILE", help="sign it with this Ed25519 private key")
    mp.add_argument("--root", metavar="DIR", help=f"the release's virtual environment (default {sys.prefix})")
    mp.add_argument(
        "--build",
        action="append",
        metavar="KEY=VALUE",
        help="add to the build's identity (commit=..., builder=...); repeatable",
    )
    mp.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="machine-readable output")
    mp.set_defaults(func=cmd_manifest, needs_port=False)


__all__ = ["add_parsers"]
