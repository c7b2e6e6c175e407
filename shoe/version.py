"""The installed version of the shoe controller, read once; light enough to import before anything else."""

from __future__ import annotations

import functools
from importlib import metadata

__all__ = ["version"]


@functools.cache
def version() -> str:
    """The installed version, read once (each ``/v1/status`` asked importlib.metadata, which reads the files)."""
    try:
        return metadata.version("shoe-controller")
    except metadata.PackageNotFoundError:
        return "unknown"
