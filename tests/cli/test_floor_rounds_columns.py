"""``shoectl floor rounds``: every column starts at the same place on every line, whatever a cell's width
(round ids of 40 characters and timestamps with microseconds pushed fixed-width columns out of line)."""

from __future__ import annotations

from shoe.cli.floor import _rounds_text


def test_every_column_of_floor_rounds_starts_where_its_header_does() -> None:
    rounds = [
        {"table_name": "MS-04", "round_id": "MS-04-20261202T012556Z-7ccdfb", "game": "mississippi-stud",
         "jurisdiction": "PA", "opened": "2026-12-02T01:25:56.123456+00:00", "entries": 57, "closed": "complete"},
        {"table_name": "T-B", "round_id": "r1", "game": None, "jurisdiction": None, "opened": None, "entries": 3,
         "closed": None},
        {"table_name": "a-much-longer-table-name", "round_id": "x" * 40, "game": "seven-card-stud",
         "jurisdiction": "NJ", "opened": "2026-12-02T01:25:56Z", "entries": 12345, "closed": "misdeal"},
    ]  # fmt: skip
    header, *lines = _rounds_text({"rounds": rounds}).splitlines()
    starts = [header.index(name) for name in header.split()]
    for line, r in zip(lines, rounds, strict=True):
        cells = [r["table_name"], r["round_id"], r["game"] or "?", r["jurisdiction"] or "?", r["opened"] or "?"]
        for start, cell in zip(starts, cells, strict=False):
            assert line[start : start + len(cell)] == cell, (line, cell)
        assert line.endswith(r["closed"] or "live"), line
    # the count is right-aligned under its header's end
    entries_end = header.index("entries") + len("entries")
    assert all(line[:entries_end].endswith(str(r["entries"])) for line, r in zip(lines, rounds, strict=True))
    assert _rounds_text({"rounds": []}) == "no rounds"
