"""Linux ``/proc`` readers for the benchmarks: CPU time, wake-ups and memory of a process (``"self"`` works)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import time
from pathlib import Path

CLK_TCK = os.sysconf("SC_CLK_TCK")


def _user_system(stat: Path) -> tuple[float, float]:
    """User and system CPU seconds of a ``/proc/.../stat`` file (fields 14 and 15: utime, stime)."""
    raw = stat.read_text()
    fields = raw[raw.rindex(")") + 2 :].split()  # after "pid (comm) ": field 3 (state) is fields[0]
    return int(fields[11]) / CLK_TCK, int(fields[12]) / CLK_TCK


def cpu_clock(pid: int) -> int:
    """The CPU-time clock of process ``pid`` (``clock_getcpuclockid(3)``), for ``time.clock_gettime``: every
    thread's CPU, the ended ones too, in nanoseconds, where ``/proc``'s utime and stime count 10 ms ticks."""
    libc = ctypes.CDLL(None, use_errno=True)
    clock = ctypes.c_int()
    failed = libc.clock_getcpuclockid(ctypes.c_int(pid), ctypes.byref(clock))
    if failed:
        raise OSError(failed, f"clock_getcpuclockid({pid}): {os.strerror(failed)}")
    return clock.value


def cpu_seconds(pid: int | str) -> float:
    """User + system CPU time of every thread of ``pid`` so far (``/proc/PID/stat`` utime + stime)."""
    return sum(_user_system(Path(f"/proc/{pid}/stat")))


def task_cpu(pid: int | str) -> dict[int, tuple[float, float]]:
    """User and system CPU seconds so far of each live thread of ``pid``, by thread id."""
    out: dict[int, tuple[float, float]] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):  # a thread that ended meanwhile
            out[int(task.name)] = _user_system(task / "stat")
    return out


def wakeups(pid: int | str) -> int:
    """Voluntary context switches of every live thread of ``pid`` so far: how often it went to sleep and woke."""
    return sum(task_wakeups(pid).values())


def task_wakeups(pid: int | str) -> dict[int, int]:
    """Voluntary context switches so far of each live thread of ``pid``, by thread id."""
    out: dict[int, int] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):  # a thread that ended meanwhile
            for line in (task / "status").read_text().splitlines():
                if line.startswith("voluntary_ctxt_switches:"):
                    out[int(task.name)] = int(line.split()[1])
    return out


def wakeups_between(before: dict[int, int], after: dict[int, int]) -> int:
    """Wake-ups between two ``task_wakeups`` readings: a thread that ended in between takes its count with it
    (a plain difference of sums can go negative), so each thread alive at the end counts from its start."""
    return sum(n - before.get(tid, 0) for tid, n in after.items())


def vm_kib(pid: int | str, key: str) -> int:
    """A memory figure of ``/proc/PID/status`` in KiB: ``VmRSS`` (resident now), ``VmHWM`` (resident peak)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {key} for pid {pid}")


def rss_kib(pid: int | str) -> int:
    """Resident set size (``VmRSS``), KiB."""
    return vm_kib(pid, "VmRSS")


def idle_cpu(pid: int | str, seconds: float) -> str:
    """CPU % of one core, and wake-ups per second (all threads), over ``seconds`` of wall-clock time."""
    c0, w0, t0 = cpu_seconds(pid), wakeups(pid), time.monotonic()
    time.sleep(seconds)
    c1, w1, t1 = cpu_seconds(pid), wakeups(pid), time.monotonic()
    return f"CPU {100.0 * (c1 - c0) / (t1 - t0):.2f}% of one core ({(w1 - w0) / (t1 - t0):.0f} wake-ups/s)"
