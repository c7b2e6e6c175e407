"""Bearer tokens to roles (and to people), and the bind rule.

Each token in the service configuration names exactly one role (dealer, technician, observer,
table-system).  A request with no token, or one the configuration does not hold, is answered
``401`` with ``WWW-Authenticate: Bearer``; a known token whose role may not call the route is
answered ``403``.

**No tokens configured** is allowed only on a loopback bind, and then every request holds every
role: the development and bench set-up, where whoever can reach 127.0.0.1 already owns the machine.
A non-loopback bind without tokens refuses to start (``InsecureBind``).

**People** (docs/people.md): a token the people desk issued (``shoe_s_`` a sign-in session,
``shoe_t_`` an employee's API token) stands for that employee, with the service roles their roles
map to (:data:`SERVICE_ROLES`), and every journal entry their actions cause names them. Such a token
is always checked, even with no configuration tokens: a session that ended, a revoked token or one
of a disabled or removed employee is ``401`` (and journaled), never the open API's every role.
Configuration-file tokens work as before and name no employee.
"""

from __future__ import annotations

import hmac
import ipaddress
import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from shoe.api.errors import ApiError
from shoe.people.credentials import is_people_token
from shoe.people.errors import PeopleError
from shoe.service import Role

if TYPE_CHECKING:
    from shoe.people.desk import People
    from shoe.people.store import Employee

__all__ = ["ALL_ROLES", "SERVICE_ROLES", "Authenticator", "InsecureBind", "Principal", "check_bind", "is_loopback"]

ALL_ROLES: frozenset[Role] = frozenset(Role)
_REALM = 'Bearer realm="shoed"'
SERVICE_ROLES: Mapping[str, Role] = {
    "dealer": Role.DEALER,
    "technician": Role.TECHNICIAN,
    "table-system": Role.TABLE_SYSTEM,
    "floorperson": Role.OBSERVER,  # reads the table; approves and manages people (docs/people.md)
    "surveillance": Role.OBSERVER,
    "observer": Role.OBSERVER,
}
"""The service role each employee role acts as on the action routes."""
PERSONAL: frozenset[Role] = frozenset({Role.DEALER, Role.TECHNICIAN})
"""The roles whose actions ``[people] require_sign_in`` attributes to a person (table-system is a service)."""


@dataclass(frozen=True)
class Principal:
    """Who a request comes from: the service roles held and, for a people token, the employee."""

    roles: frozenset[Role]
    employee: Employee | None = None
    via: str = "config"  # "config" (a configuration token), "open" (no tokens), "session", "token"

    @property
    def by(self) -> dict[str, str] | None:
        """The ``by`` of the journal entries this request causes (``None``: no employee)."""
        return None if self.employee is None else self.employee.actor()

    def holds(self, *staff: str) -> bool:
        """Whether the employee holds one of the employee roles ``staff`` (``False`` with no employee)."""
        return self.employee is not None and any(r in self.employee.roles for r in staff)


class InsecureBind(ValueError):
    """A bind address other than loopback with no tokens configured: anyone on the network could deal."""


def is_loopback(host: str) -> bool:
    """True when every address ``host`` names is a loopback address (``""`` and ``0.0.0.0`` are not)."""
    if host in ("", "0.0.0.0", "::"):
        return False
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except OSError:
        return False
    addresses = {info[4][0] for info in infos}
    return bool(addresses) and all(ipaddress.ip_address(str(a).split("%")[0]).is_loopback for a in addresses)


def check_bind(host: str, tokens: Mapping[str, Role]) -> None:
    """Raise ``InsecureBind`` for a non-loopback ``host`` when ``tokens`` is empty."""
    if not tokens and not is_loopback(host):
        raise InsecureBind(
            f"refusing to serve the table API on {host or 'every interface'!r} without bearer tokens: "
            "set tokens in the service configuration, or bind to 127.0.0.1"
        )


RETRY_SOON = {"Retry-After": "1"}


class Authenticator:
    """Resolves the ``Authorization`` header of a request to the role it acts as."""

    def __init__(self, tokens: Mapping[str, Role], people: People | None = None) -> None:
        self._tokens = [(token.encode("utf-8"), Role(role)) for token, role in tokens.items()]
        self.open = not self._tokens
        self.people = people
        self.awaiting_people = False
        """The employees store is still opening (``shoed`` serves its first status first): an employee's token is
        then answered ``503 starting``, never taken for an unknown token."""

    def roles_of(self, authorization: str | None) -> frozenset[Role]:
        """The roles the caller holds: all of them when no tokens are configured, else the token's one."""
        return self.principal(authorization).roles

    def principal(self, authorization: str | None) -> Principal:
        """Who the caller is (:class:`Principal`); ``401`` for a missing, unknown or dead token."""
        people_token = _bearer_text(authorization)
        employee_token = people_token is not None and is_people_token(people_token)
        if employee_token and self.people is None and self.awaiting_people:
            raise ApiError("starting", "the employees store is opening: retry in a moment", headers=RETRY_SOON)
        if employee_token and people_token is not None and self.people is not None:
            try:
                employee = self.people.resolve(people_token)
            except PeopleError as exc:
                raise ApiError(
                    "unauthorized", exc.message, headers={"WWW-Authenticate": f'{_REALM}, error="invalid_token"'}
                ) from None
            roles = frozenset(SERVICE_ROLES[r] for r in employee.roles if r in SERVICE_ROLES)
            via = "session" if people_token.startswith("shoe_s_") else "token"
            return Principal(roles, employee, via)
        if self.open:
            return Principal(ALL_ROLES, via="open")
        if not authorization:
            raise ApiError("unauthorized", "a bearer token is required", headers={"WWW-Authenticate": _REALM})
        scheme, _, credential = authorization.strip().partition(" ")
        if scheme.lower() != "bearer" or not credential.strip():
            raise ApiError(
                "unauthorized",
                "the Authorization header must be 'Bearer <token>'",
                headers={"WWW-Authenticate": f'{_REALM}, error="invalid_request"'},
            )
        presented = credential.strip().encode("utf-8")
        found: Role | None = None
        for token, role in self._tokens:  # compare against every token: the time taken does not tell which
            if hmac.compare_digest(token, presented):
                found = role
        if found is None:
            raise ApiError(
                "unauthorized", "unknown bearer token", headers={"WWW-Authenticate": f'{_REALM}, error="invalid_token"'}
            )
        return Principal(frozenset({found}))

    def knows(self, authorization: str | None) -> bool:
        """Whether ``authorization`` carries a token of the configuration (any role) or a live people token,
        without raising and without journaling (the waiting room asks it for every request)."""
        presented = _bearer_text(authorization)
        if presented is not None and is_people_token(presented):
            return self.people is not None and self.people.known(presented)
        try:
            self.roles_of(authorization)
        except ApiError:
            return False
        return True

    def acting_role(self, authorization: str | None, allowed: Iterable[Role]) -> Role | None:
        """The role a request acts as on a route that admits ``allowed`` (in order of preference).

        ``None`` for a route open to anyone; ``403`` when the caller holds none of the allowed roles.
        """
        return self.authorize(authorization, allowed)[0]

    def authorize(
        self, authorization: str | None, allowed: Iterable[Role], *, acting: bool = False
    ) -> tuple[Role | None, Principal | None]:
        """The role a request acts as and who it is (``(None, None)`` on a route open to anyone).

        ``acting``: the request changes something (a POST). With ``[people] require_sign_in``, a dealer's or
        a technician's action needs an employee behind it (a sign-in session or an employee's API token):
        a configuration token or the open loopback API is ``401`` there, so that no step of the round goes
        unattributed or past an approval (docs/people.md, "Requiring a person")."""
        allowed = tuple(allowed)
        if not allowed:
            return None, None
        who = self.principal(authorization)
        held = who.roles
        for role in allowed:
            if role in held:
                if acting and role in PERSONAL and who.employee is None and self.people is not None \
                        and self.people.require_sign_in:  # fmt: skip
                    raise ApiError(
                        "unauthorized",
                        f"this table requires a signed-in employee for {role.value} actions ([people] "
                        "require_sign_in): sign in at the display with badge and PIN, or use an employee's API token",
                        headers={"WWW-Authenticate": f'{_REALM}, error="invalid_token"'},
                    )
                return role, who
        names = ", ".join(sorted(str(r.value) for r in held))
        wanted = ", ".join(str(r.value) for r in allowed)
        raise ApiError("forbidden", f"the {names} role may not do this; it needs: {wanted}")


def _bearer_text(authorization: str | None) -> str | None:
    scheme, _, credential = (authorization or "").strip().partition(" ")
    return credential.strip() if scheme.lower() == "bearer" and credential.strip() else None
