"""The floor check: is this table's journal reaching the floor database (docs/floor.md)? Read from
``shoed``'s ``/v1/status`` (its ``floor`` part), so the doctor needs no database access of its own."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from http.client import HTTPException

from shoe.doctor.model import CheckResult, Context, check, failed, passed, skipped

FLOOR = "floor shipping"
STATUS_PATH = "/v1/status"
LAG_LIMIT_S = 60.0
"""Older than this, the oldest entry not yet on the floor is a failure: the floor wants rounds within seconds."""


@check(FLOOR)
def floor_shipping(ctx: Context) -> CheckResult:
    url = ctx.service_url.rstrip("/") + STATUS_PATH
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=ctx.timeout_s) as reply:
            status = json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        exc.close()
        return skipped(FLOOR, f"shoed's status answered {exc.code}: the floor part cannot be read")
    except (OSError, HTTPException, ValueError):
        return skipped(FLOOR, "shoed is not reachable (see the service check)")
    floor = status.get("floor") if isinstance(status, dict) else None
    if not isinstance(floor, dict):
        return skipped(FLOOR, "no [floor] section in shoed's configuration: nothing is shipped")
    where = f"table {floor.get('table')} to {floor.get('url')}"
    lag = f"{floor.get('lag_entries')} entries, {floor.get('lag_seconds')} s behind"
    if floor.get("alarm"):
        fix = "keep the journal as evidence; run shoectl journal verify --against URL and call surveillance"
        return failed(FLOOR, f"the floor refuses this journal: {floor['alarm']}", fix)
    if floor.get("state") in ("down", "error", "journal-error"):
        fix = "check the network and the floor database; the backlog drains by itself on reconnect"
        return failed(FLOOR, f"cannot ship {where}: {floor.get('last_error')} ({lag}; the table keeps dealing)", fix)
    if float(floor.get("lag_seconds") or 0) > LAG_LIMIT_S:
        return failed(FLOOR, f"shipping {where} is {lag}", "check the floor database's load and the network")
    return passed(FLOOR, f"shipping {where}: {lag}")
