"""SPEC.md must match the code: example frames, message table, numbers."""

from __future__ import annotations

import re
from pathlib import Path

from protocols.codes import FaultCode, MsgType, NakCode, ShoeState
from protocols.examples import table

SPEC = (Path(__file__).resolve().parents[2] / "protocols" / "SPEC.md").read_text()


def test_example_frames_in_spec_match_the_code() -> None:
    assert table() in SPEC, "regenerate SPEC.md §10 with: python -m protocols.examples"


def test_every_message_type_documented_with_its_number() -> None:
    for t in MsgType:
        assert re.search(rf"\| 0x{t.value:02X} \| {t.name} \|", SPEC), t.name


def test_fault_nak_and_state_numbers_documented() -> None:
    for f in FaultCode:
        assert f"| {f.value} | {f.name} |" in SPEC, f.name
    for n in NakCode:
        assert f"{n.value} {n.name}" in SPEC, n.name
    for s in ShoeState:
        assert f"{s.value} {s.name}" in SPEC, s.name


def test_golden_vectors_in_spec_match_the_code() -> None:
    from protocols.examples import golden_table

    assert golden_table() in SPEC, "regenerate SPEC.md §13.6 with: python -m protocols.examples"
