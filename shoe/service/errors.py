"""The service's roles and its one error, with the translation of rule and shoe errors into it.

``ServiceError`` is what ``TableService.submit`` raises: ``.code`` (kebab-case, stable for clients),
``.message`` (for people; card codes scrubbed), ``.rule`` (the regulation cited, or ``None``) and
``.http_status`` (400 bad input, 403 wrong role, 404 nothing to act on, 409 refused in this state,
503 the shoe or the service cannot do it now).
"""

from __future__ import annotations

from enum import Enum

from drivers.errors import ShoeError, ShoeFault, ShoeProtocolError
from shoe.rules.errors import RuleViolation
from shoe.service.secrecy import scrub_text

__all__ = ["BAD_INPUT_CODES", "Role", "ServiceError", "from_rule", "from_shoe"]


class Role(Enum):
    DEALER = "dealer"
    TECHNICIAN = "technician"
    OBSERVER = "observer"
    TABLE_SYSTEM = "table-system"


BAD_INPUT_CODES = frozenset(
    {
        "bad-input",
        "illegal-wager",
        "unknown-seat",
        "invalid-configuration",
        "configuration-required",
        "paytable-fixed",
        "unknown-profile",
        "unknown-action",
        "wrong-amount",
        "bad-config",
        "bad-seats",
        "too-many-players",
        "short-stub",
    }
)
"""Rule-violation codes that mean "the request's values are wrong" (HTTP 400); the rest are 409."""


class ServiceError(Exception):
    """A refused or failed request. ``str()`` is ``"<message> (<rule>)"`` when a rule is cited."""

    def __init__(
        self, code: str, message: str, *, http_status: int = 409, rule: str | None = None, hint: str | None = None
    ) -> None:
        self.code = code
        self.message = scrub_text(message)
        self.rule = rule or None
        self.http_status = http_status
        self.hint = hint
        super().__init__(f"{self.message} ({self.rule})" if self.rule else self.message)

    def as_dict(self) -> dict[str, object]:
        return {"code": self.code, "message": self.message, "rule": self.rule, "hint": self.hint}


def from_rule(err: RuleViolation) -> ServiceError:
    status = 400 if err.code in BAD_INPUT_CODES else 409
    return ServiceError(err.code, err.message, http_status=status, rule=err.rule)


def from_shoe(err: ShoeError) -> ServiceError:
    if isinstance(err, ShoeFault):
        return ServiceError("shoe-fault", str(err), http_status=503, hint=err.hint)
    if isinstance(err, ShoeProtocolError):
        return ServiceError("shoe-refused", str(err), http_status=503, hint=err.hint)
    return ServiceError("shoe-unavailable", str(err), http_status=503, hint=err.hint)
