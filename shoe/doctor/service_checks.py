"""The service checks: the journal's file permissions, whether ``shoed`` answers on its HTTP API, and the installed
program against its signed release manifest."""

from __future__ import annotations

import os
import stat
import urllib.error
import urllib.request
from http.client import HTTPException

from shoe.doctor.model import CheckResult, Context, check, failed, passed, skipped
from shoe.journal.paths import PRIVATE_MODE
from shoe.release import MANIFEST_NAME

JOURNAL, SERVICE, PROGRAM = "journal permissions", "service", "installed program"
STATUS_PATH = "/v1/status"
SIDE_FILES = ("", "-wal", "-shm")  # SQLite's write-ahead log and shared memory hold card data too


@check(JOURNAL)
def journal_permissions(ctx: Context) -> CheckResult:
    path = ctx.journal
    if not path.exists():
        return skipped(JOURNAL, f"no journal at {path} yet (shoed creates it, mode 0600, on first start)")
    problems, fixes = [], []
    for suffix in SIDE_FILES:
        file = path.with_name(path.name + suffix)
        try:
            st = os.lstat(file)
        except FileNotFoundError:
            continue
        mode = stat.S_IMODE(st.st_mode)
        if not stat.S_ISREG(st.st_mode):
            problems.append(f"{file} is not a regular file")
            fixes.append(f"point --journal / SHOED_JOURNAL at the journal file itself, not {file}")
            continue
        if mode & 0o077:  # the rule shoed itself enforces (shoe.journal.paths.check_private)
            problems.append(f"{file} is mode {mode:04o}, open to other users (it holds card identities)")
            fixes.append(f"chmod 600 {file}")
        if ctx.uid not in (st.st_uid, 0):  # root may check the service user's journal
            problems.append(f"{file} belongs to uid {st.st_uid}, not to {ctx.user} (uid {ctx.uid})")
            fixes.append(f"run doctor as the service's user, or `sudo chown {ctx.user}: {file}` if {ctx.user} runs it")
    if problems:
        return failed(JOURNAL, "; ".join(problems), " && ".join(dict.fromkeys(fixes)))
    return passed(JOURNAL, f"{path} is private to its owner (mode {PRIVATE_MODE:04o} or stricter)")


def _opener() -> urllib.request.OpenerDirector:
    """No proxies: the service is local, and an ``http_proxy`` in the environment must not answer for it."""
    return urllib.request.build_opener(urllib.request.ProxyHandler({}))


@check(SERVICE)
def service_reachable(ctx: Context) -> CheckResult:
    url = ctx.service_url.rstrip("/") + STATUS_PATH
    start_fix = f"sudo systemctl start shoed   (or pass --service with the address shoed listens on; tried {url})"
    try:
        with _opener().open(url, timeout=ctx.timeout_s) as reply:
            code = reply.status
    except urllib.error.HTTPError as exc:
        exc.close()
        if exc.code in (401, 403):
            return passed(SERVICE, f"shoed answers at {ctx.service_url} ({exc.code}: status needs a token)")
        return failed(SERVICE, f"{url} answered {exc.code} {exc.reason}", "see the service's log: journalctl -u shoed")
    except (OSError, HTTPException) as exc:
        reason = getattr(exc, "reason", exc)
        return failed(SERVICE, f"shoed is not running or not reachable at {ctx.service_url}: {reason}", start_fix)
    return passed(SERVICE, f"shoed answers at {ctx.service_url} ({code})")


@check(PROGRAM)
def installed_program(ctx: Context) -> CheckResult:
    """The installation this doctor runs from against its release manifest: the software identity."""
    from shoe.release.program import check_program

    result = check_program(ctx.release_root / MANIFEST_NAME, ctx.release_pubkey, ctx.release_root)
    identity = f"release {result['release']}, manifest {str(result['manifest_sha256'])[:16]}"
    if result["result"] == "ok":
        return passed(PROGRAM, f"{identity}: {result['detail']} (key {result['key_id']})")
    if result["result"] == "unverified":
        return skipped(PROGRAM, result["detail"] + " (a development install has none; docs/deploy.md)")
    return failed(
        PROGRAM,
        f"{identity}: {result['detail']}",
        "shoectl verify names every difference; reinstall the release (docs/deploy.md, rollback)",
    )
