"""A throwaway PostgreSQL that does not start leaves its reason in the test report, not in a deleted folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.floor import pg


def test_a_failed_start_carries_the_server_log_tail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cluster = pg.Cluster(tmp_path / "one", 1)
    cluster.root.mkdir()
    cluster.log.write_text("LOG:  starting PostgreSQL\nFATAL:  could not bind IPv4 address: Address in use\n")

    def refuse(args: list[str], **_: object) -> str:
        raise RuntimeError("pg_ctl: could not start server. Examine the log output.")

    monkeypatch.setattr(pg, "find_bin", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(pg, "_run", refuse)
    with pytest.raises(RuntimeError) as failed:
        cluster.start()
    cluster.remove()  # what the fixtures do next: the folder and its log are gone
    assert "Examine the log output" in str(failed.value)
    assert "FATAL:  could not bind IPv4 address: Address in use" in str(failed.value)
    assert not cluster.log.exists()


@pytest.mark.parametrize(("worker", "port"), [(None, 55433), ("gw0", 55433), ("gw1", 55441), ("gw5", 55445)])
def test_each_xdist_worker_starts_its_cluster_on_its_own_port(
    monkeypatch: pytest.MonkeyPatch, worker: str | None, port: int
) -> None:
    from tests.floor.conftest import _session_port

    monkeypatch.delenv("SHOE_FLOOR_PORT", raising=False)
    if worker is None:
        monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    else:
        monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
    assert _session_port() == port
    assert _session_port() not in (55434, 55435, 55436)  # the fault tests' fixed clusters
