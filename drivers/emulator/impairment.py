"""Line faults a pseudo-terminal or a socket never shows by itself: corruption, loss and delay.

- ``corrupt_rate``: each byte, in either direction, is replaced with probability ``corrupt_rate`` by a
  different byte (XOR with a random non-zero value), so a corrupted byte is always wrong.
- ``drop_rate``: each byte, in either direction, is lost with probability ``drop_rate``.
- ``latency_ms``: every byte the shoe sends (replies and events) becomes readable that much later.

Draws come from a ``random.Random`` seeded from the emulator seed, so a seeded run corrupts the same
byte positions every time for the same traffic. Counters say how many bytes were seen, corrupted and
dropped. Not thread-safe: the shoe calls it with its lock held.
"""

from __future__ import annotations

import random
from collections import deque


def random_for(seed: int | None, purpose: str) -> random.Random:
    """A generator of its own for each purpose, reproducible from the emulator seed (None: random)."""
    return random.Random(None if seed is None else f"{purpose}:{seed}")


def _rate(name: str, value: float) -> float:
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} {value!r} is not a rate in 0..1")
    return float(value)


class Impairment:
    def __init__(
        self, rng: random.Random, corrupt_rate: float = 0.0, drop_rate: float = 0.0, latency_ms: float = 0.0
    ) -> None:
        self._rng = rng
        self.corrupt_rate = 0.0
        self.drop_rate = 0.0
        self.latency_ms = 0.0
        self.seen = 0
        self.corrupted = 0
        self.dropped = 0
        self.set(corrupt_rate, drop_rate, latency_ms)

    def set(
        self, corrupt_rate: float | None = None, drop_rate: float | None = None, latency_ms: float | None = None
    ) -> None:
        """Change the rates; ``None`` keeps a setting as it is."""
        if corrupt_rate is not None:
            self.corrupt_rate = _rate("corrupt_rate", corrupt_rate)
        if drop_rate is not None:
            self.drop_rate = _rate("drop_rate", drop_rate)
        if latency_ms is not None:
            if latency_ms < 0:
                raise ValueError(f"latency_ms {latency_ms!r} is negative")
            self.latency_ms = float(latency_ms)

    @property
    def latency_s(self) -> float:
        return self.latency_ms / 1000.0

    def apply(self, data: bytes) -> bytes:
        """The bytes as they arrive at the other end of the line."""
        self.seen += len(data)
        if not data or (self.corrupt_rate == 0.0 and self.drop_rate == 0.0):
            return data
        rnd = self._rng.random
        out = bytearray()
        for byte in data:
            if self.drop_rate and rnd() < self.drop_rate:
                self.dropped += 1
                continue
            flip = 0
            if self.corrupt_rate and rnd() < self.corrupt_rate:
                self.corrupted += 1
                flip = self._rng.randrange(1, 256)
            out.append(byte ^ flip)
        return bytes(out)


class DelayLine:
    """Bytes on their way to the host, each chunk readable from its due time on (added latency).

    Like a UART buffer nobody drains, it holds at most ``limit`` bytes: past that the oldest chunks
    are lost (``overflowed`` counts the bytes), so a shoe nobody reads cannot grow without bound.
    """

    def __init__(self, limit: int = 256 * 1024) -> None:
        self._chunks: deque[tuple[float, bytes]] = deque()
        self._size = 0
        self._limit = limit
        self.overflowed = 0

    def push(self, due: float, data: bytes) -> None:
        if not data:
            return
        self._chunks.append((due, data))
        self._size += len(data)
        while self._size > self._limit:
            lost = self._chunks.popleft()[1]
            self._size -= len(lost)
            self.overflowed += len(lost)

    def next_due(self) -> float | None:
        return self._chunks[0][0] if self._chunks else None

    def pop_ready(self, now: float) -> bytes:
        chunks = self._chunks
        if not chunks or chunks[0][0] > now:
            return b""
        if len(chunks) == 1:  # one answer, as a request makes: no copy
            data = chunks.popleft()[1]
            self._size -= len(data)
            return data
        out = bytearray()
        while self._chunks and self._chunks[0][0] <= now:
            out += self._chunks.popleft()[1]
        self._size -= len(out)
        return bytes(out)

    def clear(self) -> None:
        """In-flight bytes are lost (link pulled, shoe rebooted)."""
        self._chunks.clear()
        self._size = 0
