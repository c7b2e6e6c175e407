"""shoed limits glibc's malloc arenas before any thread starts (docs/perf/start.md, "Fewer malloc arenas")."""

from __future__ import annotations

import ctypes
import platform

import pytest

from shoe import shoed


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt(M_ARENA_MAX) is glibc's")
def test_glibc_takes_the_limit() -> None:
    assert shoed.limit_malloc_arenas(shoed.MALLOC_ARENAS) is True


def test_a_libc_without_mallopt_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    class NoMallopt:
        pass

    monkeypatch.setattr(ctypes, "CDLL", lambda _name: NoMallopt())
    assert shoed.limit_malloc_arenas() is False


def test_main_limits_the_arenas_before_anything_else(monkeypatch: pytest.MonkeyPatch) -> None:
    called: list[int] = []

    def limit(arenas: int = shoed.MALLOC_ARENAS) -> bool:
        called.append(arenas)
        return True

    monkeypatch.setattr(shoed, "limit_malloc_arenas", limit)

    def parser_after() -> None:
        assert called == [shoed.MALLOC_ARENAS]  # before the arguments are even parsed: no thread yet
        raise SystemExit(0)

    monkeypatch.setattr(shoed, "build_parser", parser_after)
    with pytest.raises(SystemExit):
        shoed.main([])
    assert called == [shoed.MALLOC_ARENAS]
