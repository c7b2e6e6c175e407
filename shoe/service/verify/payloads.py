"""The journal payloads of program and firmware verification (pure).

- ``ProgramCheck``: the installed program against its signed manifest (``shoe.release``); in the start
  entry as ``program`` (the software identity: release, manifest hash) and, at every periodic check, as a
  ``service`` entry ``program-check``.
- ``FirmwareCheck``: the shoe's answer to FIRMWARE_DIGEST at a connect (SPEC §12) and the verdict, a
  ``link`` entry ``firmware``.

A mismatch is also an ``alarm`` (``fault`` kind: ``program-mismatch``, ``firmware-unapproved``) that refuses
new rounds until a technician acknowledges it (clear-fault). The tag strings are the journal's.
Each field declares who may see it, on itself (``Annotated[T, <rule>]``, :mod:`shoe.service.journal.show`):
identities, digests and file names show to every role; ``detail`` is free text, card codes scrubbed.
"""

from __future__ import annotations

from typing import Annotated, Literal

from shoe.service.journal.payload_base import Payload
from shoe.service.journal.show import ALWAYS, TEXT

__all__ = ["FirmwareCheck", "ProgramCheck", "ProgramCheckEntry", "ProgramResult"]

ProgramResult = Literal["ok", "mismatch", "bad-signature", "unverified"]
MAX_NAMED = 20
"""The differences an entry names (all are counted): a wholly replaced tree would otherwise fill the journal."""


class ProgramCheck(Payload):
    result: Annotated[ProgramResult, ALWAYS]
    release: Annotated[str | None, ALWAYS]  # the manifest's release; None without a manifest
    manifest_sha256: Annotated[str | None, ALWAYS]
    key_id: Annotated[str | None, ALWAYS]  # the key the signature holds for (None: not checked or bad)
    files: Annotated[int, ALWAYS]
    differences: Annotated[int, ALWAYS]
    # the first MAX_NAMED differences, each named ("changed PATH", "version NAME: ...")
    named: Annotated[list[str], ALWAYS]
    detail: Annotated[str, TEXT]  # why, in a sentence (no manifest, the signature's problem, the count)


class ProgramCheckEntry(ProgramCheck, tag_field="event", tag="program-check"):
    """A ``service`` entry: a periodic check after the one at start."""


class FirmwareCheck(Payload, tag_field="event", tag="firmware"):
    """A ``link`` entry: the shoe's firmware digest at a connect, and what the host made of it."""

    verdict: Annotated[Literal["approved", "unapproved", "unverified"], ALWAYS]
    cause: Annotated[str, ALWAYS]
    detail: Annotated[str, TEXT]
    seed: Annotated[str, ALWAYS]  # hex, fresh for every ask
    firmware: Annotated[str | None, ALWAYS]
    bootloader: Annotated[str | None, ALWAYS]
    image_size: Annotated[int | None, ALWAYS]
    hmac: Annotated[str | None, ALWAYS]
