"""One CPU for the requesting thread and the link's reader: their hand-offs stay in one core's caches.

``shoed`` pins its main thread the same way before it starts any other, so that the owner, the HTTP workers
and the link's reader all share one CPU (``[service] one_cpu``, ``shoe.shoed.share_one_cpu``).

A dispense hands work between two threads four times (SPEC §6: two exchanges, each a reply read by the link's
reader and handed to the requester). On two cores each hand-off moves every object both threads touch, and in
CPython 3.11 that includes the reference counts of ``None``, small integers and the types, from one core's cache
to the other's. Measured on the instant emulator's pty (docs/perf/link.md, "One core for both threads"): the
client's CPU per dispense fell from about 200 to 130 µs with both threads on one CPU, the emulator on the other;
the same bytes through a bare transport and reader thread gained 10 µs. The wake-ups are the same either way.

Linux only (``os.sched_setaffinity`` of a thread): elsewhere, or where the CPU set may not be changed (a
container's policy), nothing is pinned and the link works as before.
"""

from __future__ import annotations

import os

import structlog

log = structlog.get_logger("drivers.affinity")


def one_cpu(allowed: set[int]) -> int:
    """The CPU to share: the highest one allowed (the first is usually the one the kernel sends most
    interrupts to and starts other work on)."""
    return max(allowed)


def pin_this_thread() -> int | None:
    """Pin the calling thread to one CPU (:func:`one_cpu` of those it may use); threads it starts later inherit
    it. Returns the CPU, or None: not supported here, or not permitted (then nothing changed)."""
    getter, setter = getattr(os, "sched_getaffinity", None), getattr(os, "sched_setaffinity", None)
    if getter is None or setter is None:
        return None
    try:
        allowed = getter(0)
        if len(allowed) < 2:
            return None  # one CPU already: nothing to gain
        cpu = one_cpu(allowed)
        setter(0, {cpu})  # 0: the calling thread (a Linux task), not the whole process
    except OSError as exc:
        log.info("threads not pinned to one CPU", error=str(exc))
        return None
    return cpu

