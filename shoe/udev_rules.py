"""A small reader of udev rules files: each rule becomes ``(key, op, value)`` triples.

Enough of the udev rules syntax (udev(7)) to check our own file, not a validator of every file: comments,
blank lines, backslash continuation lines, ``KEY{attr}``, the operators ``== != = += -= :=``, and double-quoted
values with backslash escapes. Used by the tests of ``udev/60-card-shoe.rules`` and by ``shoectl doctor``.
Pure: reading the file is the caller's job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

RULES_FILE_NAME = "60-card-shoe.rules"
MATCH_OPS = frozenset({"==", "!="})
ASSIGN_OPS = frozenset({"=", "+=", "-=", ":="})

_PAIR = re.compile(r'\s*([A-Za-z_]+(?:\{[^}]*\})?)\s*(==|!=|\+=|-=|:=|=)\s*"((?:[^"\\]|\\.)*)"\s*')

Triple = tuple[str, str, str]


class RulesSyntaxError(ValueError):
    """A line this reader cannot split into ``KEY op "value"`` pairs."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule (one logical line): where it starts and its triples in file order."""

    line: int
    triples: tuple[Triple, ...]

    def values(self, key: str, ops: frozenset[str] | None = None) -> list[str]:
        """Values of ``key`` (e.g. ``ATTRS{idVendor}``), optionally only for the given operators."""
        return [v for k, op, v in self.triples if k == key and (ops is None or op in ops)]

    def has(self, key: str, op: str, value: str) -> bool:
        return (key, op, value) in self.triples

    @property
    def keys(self) -> list[str]:
        return [k for k, _, _ in self.triples]

    @property
    def assigns(self) -> bool:
        return any(op in ASSIGN_OPS and k not in ("GOTO", "LABEL") for k, op, _ in self.triples)


def logical_lines(text: str) -> list[tuple[int, str]]:
    """Non-blank, non-comment lines with continuation lines joined, each with its first line's number."""
    out: list[tuple[int, str]] = []
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if not pending:
            start = number
        if line.endswith("\\"):
            pending.append(line[:-1])
            continue
        pending.append(line)
        out.append((start, " ".join(pending).strip()))
        pending = []
    if pending:
        raise RulesSyntaxError(start, "the file ends inside a continued line")
    return out


def parse_line(text: str, line: int = 0) -> Rule:
    """Split one logical line into triples; pairs are separated by commas."""
    triples: list[Triple] = []
    pos = 0
    while pos < len(text):
        match = _PAIR.match(text, pos)
        if match is None:
            raise RulesSyntaxError(line, f'expected KEY=="value" at column {pos + 1}: {text[pos : pos + 30]!r}')
        key, op, value = match.groups()
        triples.append((key, op, value))
        pos = match.end()
        if pos < len(text):
            if text[pos] != ",":
                raise RulesSyntaxError(line, f"expected ',' at column {pos + 1}")
            pos += 1
            if pos == len(text):
                raise RulesSyntaxError(line, "the line ends with a comma")
    if not triples:
        raise RulesSyntaxError(line, "empty rule")
    return Rule(line, tuple(triples))


def parse_rules(text: str) -> list[Rule]:
    """Every rule in a rules file's text, in order. Raises ``RulesSyntaxError``."""
    return [parse_line(body, number) for number, body in logical_lines(text)]


def usb_id_hex(value: int) -> str:
    """The form udev's ``idVendor``/``idProduct`` attributes take: four lowercase hex digits."""
    return f"{value:04x}"


def shipped_rules_path() -> Path:
    """The rules file this installation ships: package data of ``shoe.system`` (``udev/60-card-shoe.rules``
    in a checkout is a link to it), so a wheel carries it as a checkout does."""
    return Path(__file__).resolve().parent / "system" / RULES_FILE_NAME


__all__ = [
    "ASSIGN_OPS",
    "MATCH_OPS",
    "RULES_FILE_NAME",
    "Rule",
    "RulesSyntaxError",
    "logical_lines",
    "parse_line",
    "parse_rules",
    "shipped_rules_path",
    "usb_id_hex",
]
