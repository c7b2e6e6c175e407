"""``report.md``: the bench report (``report.py``'s summary) as a lab reads and signs it.

It opens with the verdict (a target that was not reached says so first) and the sign-off fields; each
figure then says what it counts and which tests contributed, so no number stands unexplained: read errors
apart from the cards made unreadable on purpose, rounds by how they ended, latencies with n, min, median
and max and a percentile only from enough samples (``report.MIN_SAMPLES``, hil_tests/README.md).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = ["markdown"]

_SIGN_FIELDS = (("operator", "operator", "--operator-name NAME"), ("witness", "witness", "--witness NAME"),
                ("bench_id", "bench id", "--bench-id ID"), ("shoe_serial", "shoe serial", None))  # fmt: skip


def _show(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return str(value)


def _cell(value: object) -> str:
    """A value in a table cell: pipes and line breaks would break the row."""
    return " ".join(str(value).split()).replace("|", "\\|")


def _sources(by_test: Mapping[str, int], unit: str) -> str:
    """``12 samples: 6 from `a`, 6 from `b```: which tests a count came from (those that added nothing left out)."""
    by_test = {test: n for test, n in by_test.items() if n}
    if not by_test:
        return f"no {unit}s recorded"
    total = sum(by_test.values())
    noun = unit if total == 1 else f"{unit}s"
    if len(by_test) == 1:
        return f"{total} {noun} from `{next(iter(by_test)) or 'the session'}`"
    return f"{total} {noun}: " + ", ".join(f"{n} from `{test or 'the session'}`" for test, n in by_test.items())


def _verdict(d: Mapping[str, Any]) -> list[str]:
    v = d["verdict"]
    counts = ", ".join(f"{n} {k}" for k, n in sorted(d["tests"]["counts"].items())) or "no tests"
    if v["passed"]:
        return [f"**PASSED**: {counts}.", ""]
    lines = [f"**FAILED**: {_cell(v['problem'])}.", ""]
    if v["target_problem"] is not None:
        lines += ["No figure below was measured on a shoe: the target was not reached, so every test that needs",
                  f"it failed ({counts}).", ""]  # fmt: skip
    return lines


def _sign_off(s: Mapping[str, Any]) -> list[str]:
    lines = ["## Sign-off", "", "| field | value |", "|---|---|"]
    for key, label, option in _SIGN_FIELDS:
        value = s[key]
        if value:
            shown = _cell(value) + (" (from the shoe's IDENTIFY)" if key == "shoe_serial" else "")
        elif option:
            shown = f"unsigned: pass {option}"
        else:
            shown = "unknown: the shoe did not answer IDENTIFY"
        lines.append(f"| {label} | {shown} |")
    if s["signed"]:
        lines += ["", "Signed off by the operator and the witness named above.", ""]
    else:
        missing = ", ".join(label for key, label, _ in _SIGN_FIELDS if key in s["missing"])
        lines += ["", f"**unsigned**: missing {missing}.", ""]
    return lines


def _results(d: Mapping[str, Any]) -> list[str]:
    t, r, c = d["throughput"], d["reads"], d["counts"]
    endings = ", ".join(f"{n} {how}" for how, n in t["round_endings"].items()) or "none played"
    injected = r["injected_unreadable"]
    on_purpose = f"{injected} card{'' if injected == 1 else 's'} made unreadable on purpose"
    return [
        "## Results",
        "",
        "| figure | value | what it counts |",
        "|---|---|---|",
        f"| cards per minute | {_show(t['cards_per_minute'])} ({t['cards_dealt']} cards in {t['dealing_s']} s) "
        f"| {c['cards dealt']['meaning']}, over the time spent in shoed's deal; "
        f"{_sources(c['cards dealt']['by_test'], 'card')} |",
        f"| rounds per minute | {_show(t['rounds_per_minute'])} ({t['rounds']} rounds in {t['rounds_s']} s) "
        f"| {c['rounds']['meaning']}; how they ended: {endings} |",
        f"| read-error rate | {_show(r['natural_error_rate'])} ({r['natural_unreadable']} unreadable of "
        f"{r['total'] - injected} reads) | natural misreads only: {r['total']} reads less the {on_purpose}; "
        f"{_sources(c['card reads']['by_test'], 'read')} |",
        f"| injected unreadable cards | {injected} | {c['injected unreadable']['meaning']}; "
        f"{_sources(c['injected unreadable']['by_test'], 'card')} |",
        f"| faults injected / survived | {d['faults']['injected']} / {d['faults']['survived']} | each fault a test "
        "made happen on purpose (below); survived: the test's checks after it passed |",
        f"| tests | {', '.join(f'{n} {k}' for k, n in sorted(d['tests']['counts'].items())) or 'none'} | "
        "error: the test could not start, its setup failed (Failed, below); skipped: the reasons below |",
        "",
    ]


def _latency(d: Mapping[str, Any]) -> list[str]:
    need = d["min_samples"]
    thresholds = ", ".join(f"{k} from {n}" for k, n in need.items())
    lines = ["## Latency (ms)", "",
             f"Percentiles are nearest-rank and shown only from enough samples ({thresholds}); with fewer, n, min, "
             "median and max stand alone (hil_tests/README.md, Percentiles).", "",
             "| kind | n | min | median | max | " + " | ".join(need) + " | what is counted |",
             "|---|---|---|---|---|" + "---|" * len(need) + "---|"]  # fmt: skip
    for kind, v in d["latency_ms"].items():
        cells = [_show(v[name]) if v[name] is not None else f"n/a (n < {need[name]})" for name in need]
        what = (v["explained"] or "**not explained**") + "; " + _sources(v["by_test"], "sample")
        lines.append(f"| {kind} | {v['n']} | {v['min']} | {v['median']} | {v['max']} | {' | '.join(cells)} | "
                     f"{_cell(what)} |")  # fmt: skip
    for kind, h in d["histograms_ms"].items():
        p99 = f"≤ {h['p99_at_most']}" if h["p99_at_most"] is not None else f"n/a (n < {need['p99']})"
        cells = [p99 if name == "p99" else "" for name in need]
        what = (h["explained"] or "**not explained**") + f"; mean {h['mean']}; bucket bounds (at most)"
        lines.append(f"| {kind} (histogram) | {h['n']} | | ≤ {h['p50_at_most']} | | {' | '.join(cells)} | "
                     f"{_cell(what)} |")  # fmt: skip
    return [*lines, ""]


def markdown(d: Mapping[str, Any]) -> str:
    b = d["bench"]
    shoe, soft = d["versions"]["shoe"], d["versions"]["software"]
    lines = [f"# Bench report: {b['name']} ({b['kind']}, timing {b['timing']})", ""]
    lines += _verdict(d)
    source = f"`{b['file']}`" if b["file"] else "none (nothing is assumed about the shoe: pass --bench FILE)"
    lines += [f"Started {d['started']}, {d['duration_s']} s; target `{b['target']}`; bench file {source}.",
              f"Features: {', '.join(b['features']) or 'none'}.", ""]  # fmt: skip
    lines += _sign_off(d["sign_off"]) + _results(d) + _latency(d)
    lines += ["## Faults", "", "| fault | by | survived | double dispenses | lost card events | detail | test |",
              "|---|---|---|---|---|---|---|"]  # fmt: skip
    if not d["faults"]["list"]:
        lines.append("| none injected | | | | | | |")
    lines += [
        f"| {f['fault']} | {f['by']} | {'yes' if f['survived'] else '**no**'} | {_show(f['double_dispenses'])} "
        f"| {_show(f['lost_card_events'])} | {_cell(f['detail'])} | `{f['test']}` |"
        for f in d["faults"]["list"]
    ]
    lines += ["", "## Versions", "", "| what | version |", "|---|---|"]
    if not shoe:
        lines.append("| shoe | unknown: it did not answer IDENTIFY |")
    lines += [f"| shoe {k} | {', '.join(v) if isinstance(v, list) else v} |" for k, v in shoe.items()]
    lines += [f"| {k} | {v} |" for k, v in soft.items()]
    results = d["tests"]["results"]
    failed = [(n, x["outcome"], x["reason"]) for n, x in results.items() if x["outcome"] in ("failed", "error")]
    skipped = [(n, x["reason"]) for n, x in results.items() if x["outcome"] == "skipped"]
    if failed:
        unreached = "the target was not reached (above)"
        lines += ["", "## Failed", ""] + [
            f"- `{n}` ({how}): {unreached if d['verdict']['target_problem'] and how == 'error' else _cell(reason)}"
            for n, how, reason in failed
        ]
    if skipped:
        lines += ["", "## Skipped", ""] + [f"- `{n}`: {reason}" for n, reason in skipped]
    if d["notes"]:
        lines += ["", "## Notes", ""] + [f"- {note}" for note in d["notes"]]
    return "\n".join(lines) + "\n"
