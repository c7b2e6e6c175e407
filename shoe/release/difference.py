"""One difference between the installed program and its manifest, as verification names it."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Difference"]


@dataclass(frozen=True)
class Difference:
    kind: str  # changed, removed, added, version, distribution-added, distribution-removed
    what: str
    detail: str = ""

    def __str__(self) -> str:
        if self.kind == "version":
            return f"version {self.what}: {self.detail}"
        if self.kind.startswith("distribution-"):
            return f"distribution {self.what} {self.kind.removeprefix('distribution-')}"
        return f"{self.kind} {self.what}" + (f" ({self.detail})" if self.detail else "")

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "what": self.what, "detail": self.detail, "text": str(self)}
