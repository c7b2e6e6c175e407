"""Bearer tokens to roles, and the bind rule.

Each token in the service configuration names exactly one role (dealer, technician, observer,
table-system).  A request with no token, or one the configuration does not hold, is answered
``401`` with ``WWW-Authenticate: Bearer``; a known token whose role may not call the route is
answered ``403``.

**No tokens configured** is allowed only on a loopback bind, and then every request holds every
role: the development and bench set-up, where whoever can reach 127.0.0.1 already owns the machine.
A non-loopback bind without tokens refuses to start (``InsecureBind``).
"""

from __future__ import annotations

import hmac
import ipaddress
import socket
from collections.abc import Iterable, Mapping

from shoe.api.errors import ApiError
from shoe.service import Role

__all__ = ["ALL_ROLES", "Authenticator", "InsecureBind", "check_bind", "is_loopback"]

ALL_ROLES: frozenset[Role] = frozenset(Role)
_REALM = 'Bearer realm="shoed"'


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


class Authenticator:
    """Resolves the ``Authorization`` header of a request to the role it acts as."""

    def __init__(self, tokens: Mapping[str, Role]) -> None:
        self._tokens = [(token.encode("utf-8"), Role(role)) for token, role in tokens.items()]
        self.open = not self._tokens

    def roles_of(self, authorization: str | None) -> frozenset[Role]:
        """The roles the caller holds: all of them when no tokens are configured, else the token's one."""
        if self.open:
            return ALL_ROLES
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
        return frozenset({found})

    def knows(self, authorization: str | None) -> bool:
        """Whether ``authorization`` carries a token of the configuration (any role), without raising."""
        try:
            self.roles_of(authorization)
        except ApiError:
            return False
        return True

    def acting_role(self, authorization: str | None, allowed: Iterable[Role]) -> Role | None:
        """The role a request acts as on a route that admits ``allowed`` (in order of preference).

        ``None`` for a route open to anyone; ``403`` when the caller holds none of the allowed roles.
        """
        allowed = tuple(allowed)
        if not allowed:
            return None
        held = self.roles_of(authorization)
        for role in allowed:
            if role in held:
                return role
        names = ", ".join(sorted(str(r.value) for r in held))
        wanted = ", ".join(str(r.value) for r in allowed)
        raise ApiError("forbidden", f"the {names} role may not do this; it needs: {wanted}")
