"""A throwaway PostgreSQL cluster for the floor's tests, benchmark and a developer's shell.

The tests and bench/floor use :class:`Cluster` directly; CI and a person use the command line::

    python -m tests.floor.pg start --dir /tmp/shoe-pg --port 55433   # prints the DSN to export
    python -m tests.floor.pg stop --dir /tmp/shoe-pg

The binaries are found on ``PATH``, then under ``/usr/lib/postgresql/*/bin`` (Debian's ``postgresql``
package) and ``/usr/local/bin``. PostgreSQL refuses to run as root: as root, the server and its tools run
as the ``postgres`` user (created by the Debian package), and the scratch directory is given to it.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import os
import pwd
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

RUN_AS = "postgres"
START_HINT = (
    "python -m tests.floor.pg start --dir /tmp/shoe-pg --port 55433  (then export the SHOE_FLOOR_DSN it prints)"
)


def find_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for folder in [*sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True), "/usr/local/bin"]:
        candidate = Path(folder) / name
        if candidate.exists():
            return str(candidate)
    return None


def available() -> bool:
    return all(find_bin(n) for n in ("initdb", "pg_ctl", "postgres")) and (os.geteuid() != 0 or _has_user())


def _has_user() -> bool:
    try:
        pwd.getpwnam(RUN_AS)
    except KeyError:
        return False
    return True


def _as_server_user() -> dict[str, object]:
    """``subprocess`` arguments that drop root to the postgres user (nothing when not root)."""
    if os.geteuid() != 0:
        return {}
    user = pwd.getpwnam(RUN_AS)
    return {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}


def _run(args: Sequence[str], *, timeout: float = 120.0) -> str:
    out = subprocess.run(list(args), check=False, capture_output=True, text=True, timeout=timeout, **_as_server_user())  # type: ignore[call-overload]
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed ({out.returncode}): {out.stderr.strip() or out.stdout.strip()}")
    return str(out.stdout)


class Cluster:
    """One cluster in ``root`` (``root/data``, its socket and log beside it) on 127.0.0.1:``port``."""

    def __init__(self, root: Path, port: int) -> None:
        self.root, self.port = Path(root), port
        self.data = self.root / "data"
        self.log = self.root / "server.log"

    @property
    def dsn(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def url(self, database: str = "postgres", user: str = "postgres") -> str:
        return f"postgresql://{user}@127.0.0.1:{self.port}/{database}"

    def _own_root(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            user = pwd.getpwnam(RUN_AS)
            os.chown(self.root, user.pw_uid, user.pw_gid)

    def init(self, *, extra_conf: str = "") -> Cluster:
        self._own_root()
        initdb = find_bin("initdb")
        assert initdb, "initdb not found"
        _run([initdb, "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync",
              "--locale=C"])  # fmt: skip
        self.configure(extra_conf)
        return self

    def configure(self, conf: str) -> None:
        base = (
            f"port = {self.port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{self.root}'\n"
            "fsync = on\nmax_connections = 400\nshared_buffers = 64MB\nwal_level = replica\nmax_wal_senders = 5\n"
        )
        with open(self.data / "postgresql.auto.conf", "a", encoding="utf-8") as f:
            f.write(base + conf + "\n")
        hba = self.data / "pg_hba.conf"
        text = hba.read_text(encoding="utf-8")
        if "replication all 127.0.0.1/32 trust" not in text:
            hba.write_text(text + "host replication all 127.0.0.1/32 trust\n", encoding="utf-8")

    def start(self) -> Cluster:
        pg_ctl = find_bin("pg_ctl")
        assert pg_ctl
        try:
            _run([pg_ctl, "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60", "start"])
        except RuntimeError as exc:
            # The server's own log says why ("could not bind", a stale lock file, ...); the caller may remove
            # the cluster's folder, log included, before anyone reads it: carry its tail in the error.
            raise RuntimeError(f"{exc}\n{self.log_tail()}") from None
        return self

    def log_tail(self, lines: int = 40) -> str:
        try:
            text = self.log.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError as exc:
            return f"(no server log at {self.log}: {exc.strerror})"
        return f"server log {self.log}, last {min(lines, len(text))} lines:\n" + "\n".join(text[-lines:])

    def stop(self, mode: str = "fast") -> None:
        pg_ctl = find_bin("pg_ctl")
        if pg_ctl and (self.data / "postmaster.pid").exists():
            _run([pg_ctl, "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop"])

    def kill(self) -> None:
        """The postmaster killed with SIGKILL, as a machine losing power would (its children follow)."""
        pid = self.pid()
        if pid:
            os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and _alive(pid):
                time.sleep(0.05)
        with contextlib.suppress(FileNotFoundError):  # its children die when they notice the postmaster gone
            time.sleep(0.5)

    def pid(self) -> int | None:
        try:
            return int((self.data / "postmaster.pid").read_text().split()[0])
        except (FileNotFoundError, ValueError, IndexError):
            return None

    def standby_of(self, primary: Cluster, *, name: str = "standby") -> Cluster:
        """A streaming standby of ``primary`` made with ``pg_basebackup -R`` (not started)."""
        self._own_root()
        basebackup = find_bin("pg_basebackup")
        assert basebackup
        _run([basebackup, "-h", "127.0.0.1", "-p", str(primary.port), "-U", "postgres", "-D", str(self.data),
              "-R", "-X", "stream", "-c", "fast", "-d", f"application_name={name}"])  # fmt: skip
        (self.data / "postmaster.pid").unlink(missing_ok=True)
        # Promoted, it is the lone survivor: it must not wait for a synchronous standby of its own, or every
        # commit would hang (a deployment attaches a new standby, or names ANY 1 of two).
        self.configure(f"primary_conninfo = 'host=127.0.0.1 port={primary.port} user=postgres application_name={name}'"
                       "\nsynchronous_standby_names = ''")  # fmt: skip
        return self

    def promote(self) -> None:
        pg_ctl = find_bin("pg_ctl")
        assert pg_ctl
        _run([pg_ctl, "-D", str(self.data), "-w", "-t", "60", "promote"])

    def remove(self) -> None:
        with contextlib.suppress(RuntimeError):
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


def replicated_pair(root: Path, primary_port: int, standby_port: int) -> tuple[Cluster, Cluster]:
    """A primary and a synchronous streaming standby (``synchronous_standby_names``, ``pg_basebackup -R``):
    a commit the primary acknowledges is flushed on the standby too. Both started, replication in sync."""
    primary = Cluster(root / "primary", primary_port).init(
        extra_conf="synchronous_standby_names = 'standby'\nsynchronous_commit = on\nwal_keep_size = 256MB"
    )
    primary.start()
    standby = Cluster(root / "standby", standby_port).standby_of(primary, name="standby")
    standby.start()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        out = _run([find_bin("psql") or "psql", "-h", "127.0.0.1", "-p", str(primary_port), "-U", "postgres", "-Atc",
                    "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby'"])  # fmt: skip
        if out.strip() == "sync":
            return primary, standby
        time.sleep(0.2)
    raise RuntimeError("the standby did not reach synchronous replication in 60 s; see " + str(standby.log))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.floor.pg", description="A scratch PostgreSQL for the floor.")
    p.add_argument("action", choices=("start", "stop"))
    p.add_argument("--dir", type=Path, default=Path("/tmp/shoe-pg"))
    p.add_argument("--port", type=int, default=55433)
    args = p.parse_args(argv)
    cluster = Cluster(args.dir, args.port)
    if args.action == "stop":
        cluster.stop()
        return 0
    if not available():
        print("no PostgreSQL server binaries (initdb, pg_ctl, postgres): apt-get install -y postgresql",
              file=sys.stderr)  # fmt: skip
        return 1
    if not (cluster.data / "PG_VERSION").exists():
        cluster.init()
    cluster.start()
    print(f"export SHOE_FLOOR_DSN={cluster.dsn}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
