"""``shoectl doctor``: is this machine set up for a card shoe? Each check says ok, failed (with the fix) or skipped.

Importing the package registers the checks, host checks first (``checks``), then the journal and the
service (``service_checks``), then the floor shipping (``shipping_checks``, from the service's status).
Every root a check reads is injectable through ``Context``, so the whole doctor runs against a fake tree
in tests and on machines with no udev, USB or systemd.
"""

from __future__ import annotations

from shoe.doctor import checks, service_checks, shipping_checks
from shoe.doctor.model import CHECKS, DEFAULT_RULES_DIR, DEFAULT_SERVICE_URL, CheckResult, Context, Status, run_checks

__all__ = [
    "CHECKS",
    "DEFAULT_RULES_DIR",
    "DEFAULT_SERVICE_URL",
    "CheckResult",
    "Context",
    "Status",
    "checks",
    "run_checks",
    "service_checks",
    "shipping_checks",
]
