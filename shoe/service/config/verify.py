"""``[verify]``: how ``shoed`` verifies the installed program and the shoe's firmware.

Keys (every one optional; docs/service.md and docs/deploy.md):

- ``manifest``: the release's signed manifest (default ``ROOT/release-manifest.json``: beside the release);
- ``pubkey``: the trusted release key's public half (default ``/etc/shoed/release-key.pub`` if it exists);
- ``root``: the release's virtual environment (default: the one this ``shoed`` runs from);
- ``interval_s``: seconds between checks after the one at start (default 3600; 0: at start only);
- ``on_mismatch``: ``"refuse-rounds"`` (default: an alarm that refuses new rounds until a technician
  acknowledges it with clear-fault) or ``"refuse-start"`` (``shoed`` exits 1 without serving);
- ``firmware``: the approved firmware, a table of firmware identity to the certified image's file
  (``[verify.firmware]`` ``"1.4.2" = "/etc/shoed/firmware/cs200-1.4.2.bin"``): the host computes the
  expected seeded digest from the image itself (shoe.release.firmware says why a list of digests cannot do).

Without a manifest at its place the program is *unverified* (no alarm: the embedded default deals), and
without ``firmware`` the shoe's firmware is *unverified* too. Relative paths are the configuration file's.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

__all__ = ["KEYS", "ON_MISMATCH", "VerifyConfig", "parse_verify"]

KEYS = ("manifest", "pubkey", "root", "interval_s", "on_mismatch", "firmware")
ON_MISMATCH = ("refuse-rounds", "refuse-start")
MAX_INTERVAL_S = 7 * 86400.0


@dataclass(frozen=True)
class VerifyConfig:
    manifest: Path | None = None
    pubkey: Path | None = None
    root: Path = field(default_factory=lambda: Path(sys.prefix))
    interval_s: float = 3600.0
    on_mismatch: str = "refuse-rounds"
    firmware: Mapping[str, Path] = field(default_factory=lambda: MappingProxyType({}))

    def manifest_path(self) -> Path:
        from shoe.release import MANIFEST_NAME

        return self.manifest if self.manifest is not None else self.root / MANIFEST_NAME

    def pubkey_path(self) -> Path | None:
        if self.pubkey is not None:
            return self.pubkey
        # here, not at the top: shoe.release's package is ~20 ms of every start, before the first status
        from shoe.release.signing import DEFAULT_PUBKEY

        return DEFAULT_PUBKEY if DEFAULT_PUBKEY.exists() else None


def _path(key: str, raw: object, base: Path | None) -> Path:
    from shoe.service.config.settings import ConfigError

    if not isinstance(raw, str) or not raw or len(raw) > 4096 or not raw.isprintable():
        raise ConfigError(key, f"{raw!r} is not a file path", "use an absolute path, e.g. /etc/shoed/release-key.pub")
    path = Path(raw).expanduser()
    return path if path.is_absolute() or base is None else base / path


def parse_verify(raw: Mapping[str, Any], config_path: Path | None) -> VerifyConfig:
    """The ``[verify]`` table (its keys already checked against :data:`KEYS`); ConfigError naming the key."""
    from shoe.service.config.settings import ConfigError

    base = config_path.parent if config_path is not None else None
    out: dict[str, Any] = {}
    for key in ("manifest", "pubkey", "root"):
        if key in raw:
            out[key] = _path(f"verify.{key}", raw[key], base)
    if "interval_s" in raw:
        value = raw["interval_s"]
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= MAX_INTERVAL_S:
            raise ConfigError(
                "verify.interval_s",
                f"{value!r} is not a number of seconds",
                f"use 0 (at start only) to {MAX_INTERVAL_S:.0f}, e.g. 3600",
            )
        out["interval_s"] = float(value)
    if "on_mismatch" in raw:
        if raw["on_mismatch"] not in ON_MISMATCH:
            raise ConfigError(
                "verify.on_mismatch", f"{raw['on_mismatch']!r} is not a choice", f"use one of {', '.join(ON_MISMATCH)}"
            )
        out["on_mismatch"] = raw["on_mismatch"]
    if "firmware" in raw:
        table = raw["firmware"]
        if not isinstance(table, dict):
            raise ConfigError(
                "verify.firmware",
                "is not a table",
                'write [verify.firmware] with "FIRMWARE" = "/path/to/image.bin" lines',
            )
        images = {}
        for name, value in table.items():
            if not name or len(name.encode()) > 255:
                raise ConfigError(
                    "verify.firmware", f"{name!r} is not a firmware identity", "use the shoe's firmware name"
                )
            images[name] = _path(f"verify.firmware.{name}", value, base)
        out["firmware"] = MappingProxyType(images)
    return VerifyConfig(**out)
