"""``shoectl verify``: the installed program against its signed manifest, the seeded digest, the shoe's firmware.

Without ``--shoe``: checks the manifest's signature with the trusted public key, recomputes every covered
file's SHA-256 under the release root (the project and every dependency in its virtual environment),
names every file added, removed or changed and every distribution whose version differs, and with
``--seed HEX`` prints the seeded HMAC-SHA256 the inspector compares with the laboratory's value
(``shoe.release.digest``). The laboratory runs the same command on its copy of the certified release with
``--root DIR``. With ``--shoe``: asks the shoe at ``--port`` for its firmware digest over a seed (given, or
fresh and random) and, with ``--approved-image FIRMWARE=FILE``, judges it (``shoe.release.firmware``).
"""

from __future__ import annotations

import argparse
import secrets
import sys
from pathlib import Path
from typing import Any

from shoe.cli.exit_codes import Exit
from shoe.cli.output import Refused, emit, key_values
from shoe.release import MANIFEST_NAME, ManifestError, ReleaseTreeError, parse_seed, read_manifest_file, verify_tree
from shoe.release.firmware import FirmwareAnswer, judge
from shoe.release.signing import DEFAULT_PUBKEY

EPILOG = f"""\
exit codes:
   0 ok: the signature holds for the trusted key and every file matches (--shoe: firmware approved)
  {int(Exit.PROGRAM_MISMATCH)} a file added, removed or changed, or a version differs (each named); --shoe: unapproved
  {int(Exit.SIGNATURE_BAD)} the manifest's signature does not hold: unsigned, another key, or changed after signing
  {int(Exit.UNVERIFIED)} unverified: no trusted public key to check the signature with (files compared), or
     --shoe: the shoe lacks FIRMWARE_DIGEST or no approved image was given
   2 usage (a bad seed, no manifest)   3-8 --shoe: the shoe's own errors   1 a bug (traceback printed)
the manifest's default place: ROOT/{MANIFEST_NAME}; ROOT defaults to this shoectl's environment ({sys.prefix})
"""


def _seed(args: argparse.Namespace) -> bytes | None:
    if args.seed is None:
        return None
    try:
        return parse_seed(args.seed)
    except ValueError as exc:
        raise Refused(str(exc), "e.g. --seed 8f3a0c21", Exit.USAGE) from None


def cmd_verify(args: argparse.Namespace) -> int:
    if args.shoe:
        return _verify_shoe(args)
    root = Path(args.root or sys.prefix).expanduser()
    path = Path(args.manifest).expanduser() if args.manifest else root / MANIFEST_NAME
    seed = _seed(args)
    try:
        manifest, signature = read_manifest_file(path)
    except ManifestError as exc:
        raise Refused(str(exc), "shoectl release manifest writes one; docs/deploy.md says where", Exit.USAGE) from None
    pubkey = Path(args.pubkey).expanduser() if args.pubkey else (DEFAULT_PUBKEY if DEFAULT_PUBKEY.exists() else None)
    sig: dict[str, Any] = {"checked": False, "key_id": None, "problem": "no trusted public key (--pubkey)"}
    if pubkey is not None:
        from shoe.release.signing import SignatureError, verify_signature

        try:
            sig = {"checked": True, "key_id": verify_signature(manifest, signature, pubkey), "problem": None}
        except SignatureError as exc:
            sig = {"checked": True, "key_id": None, "problem": str(exc)}
    try:
        check = verify_tree(root, manifest, seed)
    except ReleaseTreeError as exc:
        raise Refused(str(exc), "give the release's folder with --root", Exit.USAGE) from None
    if sig["checked"] and sig["problem"]:
        result, code = "bad-signature", Exit.SIGNATURE_BAD
    elif not check.ok:
        result, code = "mismatch", Exit.PROGRAM_MISMATCH
    elif not sig["checked"]:
        result, code = "unverified", Exit.UNVERIFIED
    else:
        result, code = "ok", Exit.OK
    data = {"result": result, "manifest": str(path), **manifest.identity(), "signature": sig, **check.as_dict()}
    emit(data, as_json=args.json, human=_human)
    return int(code)


def _human(d: dict[str, Any]) -> str:
    sig = d["signature"]
    shown = f"ok, key {sig['key_id']}" if sig["checked"] and not sig["problem"] else sig["problem"]
    pairs = {
        "result": d["result"].upper(),
        "release": d["release"],
        "manifest sha256": d["manifest_sha256"],
        "signature": shown,
        "root": d["root"],
        "files checked": f"{d['files_checked']} ({d['bytes_read'] / 1e6:.1f} MB in {d['seconds']:.2f} s)",
    }
    if d["seeded_hmac"]:
        pairs["seeded hmac"] = d["seeded_hmac"]
    lines = [key_values(pairs)]
    lines += [f"  {diff['text']}" for diff in d["differences"]]
    if d["differences"]:
        lines.append(f"{len(d['differences'])} differences")
    return "\n".join(lines)


def _approved(items: list[str] | None) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for item in items or ():
        name, sep, file = item.partition("=")
        if not sep or not name or not file:
            raise Refused(
                f"--approved-image {item!r} is not FIRMWARE=FILE",
                "e.g. --approved-image 1.4.2=fw-1.4.2.bin",
                Exit.USAGE,
            )
        out[name] = Path(file).expanduser()
    return out


def _verify_shoe(args: argparse.Namespace) -> int:
    from drivers.client import ShoeClient
    from drivers.keyfile import key_from_env

    seed = _seed(args) or secrets.token_bytes(16)
    approved = _approved(args.approved_image)
    with ShoeClient.open(args.port, key=key_from_env()) as client:
        report = client.firmware_digest(seed)
    answer = (
        None
        if report is None
        else FirmwareAnswer(report.seed, report.hmac, report.firmware, report.bootloader, report.image_size)
    )
    verdict = judge(seed, answer, approved)
    data = verdict.as_dict()
    emit(data, as_json=args.json, human=lambda d: key_values({k: v for k, v in d.items() if v is not None}))
    codes = {"approved": Exit.OK, "unapproved": Exit.PROGRAM_MISMATCH, "unverified": Exit.UNVERIFIED}
    return int(codes[verdict.verdict])


def add_parsers(sub: Any) -> None:
    p = sub.add_parser(
        "verify",
        help="the installed program against its signed manifest; the seeded digest; --shoe",
        description=__doc__,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--seed", metavar="HEX", help="the inspector's seed (4-64 bytes in hex): print the seeded HMAC")
    p.add_argument("--manifest", metavar="FILE", help=f"the signed manifest (default ROOT/{MANIFEST_NAME})")
    p.add_argument("--pubkey", metavar="FILE", help=f"the trusted release public key (default {DEFAULT_PUBKEY})")
    p.add_argument("--root", metavar="DIR", help="the release's virtual environment, or the laboratory's copy of it")
    p.add_argument("--shoe", action="store_true", help="verify the shoe's firmware at --port instead")
    p.add_argument(
        "--approved-image",
        action="append",
        metavar="FIRMWARE=FILE",
        help="--shoe: the approved image of a firmware identity; repeatable",
    )
    p.add_argument("--port", default=argparse.SUPPRESS, help="--shoe: the shoe's port URL (default: shoectl's --port)")
    p.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="machine-readable output")
    p.set_defaults(func=cmd_verify, needs_port=False)
