"""A disk cache for ``shoectl math``: the PAR sheet of a paytable, keyed by what decides it.

The key hashes the table's lines and odds (:func:`shoe.math.paytable_key`), the tie rule, the
jurisdiction's citations, and the source of the code that computes the sheet (``shoe/math``, the hand
tables, the paytable classes), so a changed program never reads an old answer.  Files live in
``$XDG_CACHE_HOME/shoectl/math`` (``~/.cache`` by default); an unreadable or damaged entry is ignored
and computed again.  Only the sheet itself is cached; ``--strategy``, ``--side`` and ``--leaks`` compute.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import shoe.hands.tables
import shoe.math
import shoe.rules.paytables

__all__ = ["cache_dir", "cached"]


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "shoectl" / "math"


@lru_cache(maxsize=1)
def _code_fingerprint() -> str:
    digest = hashlib.sha256()
    files = sorted(Path(shoe.math.__file__).parent.glob("*.py"))
    files += [Path(shoe.hands.tables.__file__), Path(shoe.rules.paytables.__file__)]
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def cached(parts: dict[str, str], compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """The sheet for ``parts`` from the cache, or computed by ``compute`` and stored (best effort)."""
    key = hashlib.sha256(json.dumps({**parts, "code": _code_fingerprint()}, sort_keys=True).encode()).hexdigest()
    path = cache_dir() / f"{key[:32]}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and data.get("cache_key") == key:
            return data
    except (OSError, ValueError):
        pass
    data = compute()
    data["cache_key"] = key
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        tmp.replace(path)
    except OSError:
        pass  # a read-only home still gets its answer, only not cached
    return data
