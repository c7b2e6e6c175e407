"""The service's roles and its one error, with the translation of rule and shoe errors into it.

``ServiceError`` is what ``TableService.submit`` raises: ``.code`` (kebab-case, stable for clients),
``.message`` (for people; card codes scrubbed), ``.rule`` (the regulation cited, or ``None``) and
``.kind`` (an :class:`ErrorKind`: what sort of refusal it is). The service knows nothing of HTTP: the
API maps each kind to a status (``shoe.api.errors.KIND_STATUS``).
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING

from drivers.errors import ShoeError, ShoeFault, ShoeProtocolError

if TYPE_CHECKING:  # imported when used: shoed serves its first status before the rules engine is imported
    from shoe.rules.errors import RuleViolation

__all__ = ["BAD_INPUT_CODES", "ErrorKind", "Role", "ServiceError", "from_rule", "from_shoe"]


class Role(Enum):
    DEALER = "dealer"
    TECHNICIAN = "technician"
    OBSERVER = "observer"
    TABLE_SYSTEM = "table-system"


class ErrorKind(Enum):
    """What sort of refusal a ``ServiceError`` is; each edge maps it to its own terms (HTTP: a status)."""

    BAD_INPUT = "bad-input"  # the request's values are wrong
    FORBIDDEN = "forbidden"  # the caller's role may not do this
    NOT_FOUND = "not-found"  # nothing to act on (no round is live)
    CONFLICT = "conflict"  # refused in the current state (out of turn, a round live, an alarm)
    UNAVAILABLE = "unavailable"  # the shoe or the service cannot do it now (a fault, a lost link, busy)
    INTERNAL = "internal"  # a bug or a journal the service cannot read back


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
"""Rule-violation codes that mean "the request's values are wrong" (``BAD_INPUT``); the rest are ``CONFLICT``."""


class ServiceError(Exception):
    """A refused or failed request. ``str()`` is ``"<message> (<rule>)"`` when a rule is cited."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        kind: ErrorKind = ErrorKind.CONFLICT,
        rule: str | None = None,
        hint: str | None = None,
    ) -> None:
        from shoe.service.journal.secrecy import scrub_text  # the rules' card vocabulary: imported on first use

        self.code = code
        self.message = scrub_text(message)
        self.rule = rule or None
        self.kind = kind
        self.hint = hint
        super().__init__(f"{self.message} ({self.rule})" if self.rule else self.message)

    def as_dict(self) -> dict[str, object]:
        return {"code": self.code, "message": self.message, "rule": self.rule, "hint": self.hint}


def from_rule(err: RuleViolation) -> ServiceError:
    kind = ErrorKind.BAD_INPUT if err.code in BAD_INPUT_CODES else ErrorKind.CONFLICT
    return ServiceError(err.code, err.message, kind=kind, rule=err.rule)


def from_shoe(err: ShoeError) -> ServiceError:
    if isinstance(err, ShoeFault):
        return ServiceError("shoe-fault", str(err), kind=ErrorKind.UNAVAILABLE, hint=err.hint)
    if isinstance(err, ShoeProtocolError):
        return ServiceError("shoe-refused", str(err), kind=ErrorKind.UNAVAILABLE, hint=err.hint)
    return ServiceError("shoe-unavailable", str(err), kind=ErrorKind.UNAVAILABLE, hint=err.hint)
