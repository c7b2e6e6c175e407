"""The software shoe: a model of the mechanism that speaks protocol v1 byte for byte.

In process (``EmulatedShoe.host_write``/``host_read``, used by ``emu://``), on a pseudo-terminal
(``serve_pty``) or on TCP (``serve_tcp``), with fault injection (``EmulatorConfig``, the ``inject_*``
and door hooks) and line impairments (corruption, loss, latency). Modules:

- ``config``: ``EmulatorConfig`` and its URL-query form;
- ``model``: the mechanism (deck, feeder, reader, tray, stub, door, faults, counters), no protocol;
- ``device``: ``EmulatedShoe``, the link, replay by seq, numbered events re-sent until acknowledged;
- ``handlers``: the requests and the dispense result store (exactly-once, SPEC §6);
- ``impairment``: line faults; ``timing``: instant or realistic mechanical time, clocks, timers;
- ``serve``: the PTY and TCP servers.

Card identities are secret: nothing here logs them (counts and ids only).
"""

from drivers.emulator.config import EmulatorConfig
from drivers.emulator.device import EmulatedShoe, EmulatorStats, EmulatorUnplugged
from drivers.emulator.serve import PtyServer, TcpServer, serve_pty, serve_tcp
from drivers.emulator.timing import ManualClock

__all__ = [
    "EmulatedShoe",
    "EmulatorConfig",
    "EmulatorStats",
    "EmulatorUnplugged",
    "ManualClock",
    "PtyServer",
    "TcpServer",
    "serve_pty",
    "serve_tcp",
]
