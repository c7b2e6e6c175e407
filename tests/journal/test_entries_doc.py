"""docs/journal.md, "Entry kinds and payloads": the table of kinds and payloads is ``shoe.service.journal.entries``'s.

The table is generated from the payload types: ``python -m tests.journal.test_entries_doc`` prints it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import msgspec

from shoe.service.journal.entries import EntryKind, payload_types

DOC = Path(__file__).resolve().parents[2] / "docs" / "journal.md"


def _fields(cls: type[Any]) -> tuple[msgspec.inspect.Field, ...]:
    info = msgspec.inspect.type_info(cls)
    assert isinstance(info, msgspec.inspect.StructType)
    return info.fields


def render_table() -> str:
    """The doc's table, from the payload types: kind, sub-action, fields (``?`` optional)."""
    rows = ["| kind | sub-action | payload fields (`?`: may be absent) |", "|---|---|---|"]
    for (kind, sub), cls in sorted(payload_types().items(), key=lambda kv: (list(EntryKind).index(kv[0][0]),
                                                                                   kv[0][1] or "")):  # fmt: skip
        fields = ", ".join(f"`{f.name}`" + ("" if f.required else "?") for f in _fields(cls))
        tag = cls.__struct_config__.tag_field
        sub_text = "-" if sub is None else (f"`{tag}` = `{sub}`" if tag else f"{sub} (by its fields)")
        records = f"; records: {', '.join(sorted(cls.RECORDS))}" if cls.RECORDS else ""
        rows.append(f"| `{kind.value}` | {sub_text} | {fields}{records} |")
    return "\n".join(rows) + "\n"


def _doc_section() -> str:
    text = DOC.read_text(encoding="utf-8")
    match = re.search(r"^## Entry kinds and payloads\n(.*?)(?=^## )", text, re.M | re.S)
    assert match, "docs/journal.md has no section 'Entry kinds and payloads'"
    return match.group(1)


def test_the_doc_lists_every_kind_of_the_enum() -> None:
    section = _doc_section()
    listed = set(re.findall(r"^\| `([a-z-]+)` \|", section, re.M))
    assert listed == {k.value for k in EntryKind}


def test_the_doc_table_is_the_payload_types() -> None:
    assert render_table() in _doc_section(), (
        "docs/journal.md's table differs from shoe/service/journal/payloads.py: regenerate it with "
        "`python -m tests.journal.test_entries_doc` and paste it under 'Entry kinds and payloads'"
    )


if __name__ == "__main__":
    print(render_table(), end="")
