"""The people routes (docs/people.md): sign-in, sign-out, who am I, managing employees.

``POST /v1/sessions`` takes a badge and PIN and needs no token (it is how the display gets one);
every other route needs one. Managing employees (``/v1/people...``) follows the separation of duties
(shoe/people/duties.py: who may change whom), checked by the desk; the installer (a configuration
technician token, or the open loopback API) seats the first employees. Every failed sign-in gets the
one ``wrong-credentials`` 401, answered ``FAILED_SIGN_IN_S`` after it arrived. A refusal of the people
desk keeps its own code and status (``separation-of-duties`` 403, ``unknown-employee`` 404,
``employee-exists`` 409, ...); every one that matters to an audit is journaled (kind ``people``).
A PIN or token is never echoed, except the new token once, to whoever issued it.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import msgspec

from shoe.api.auth import Principal
from shoe.api.errors import ApiError, envelope, json_bytes
from shoe.api.exchange import Handler, Reply, Request, Route
from shoe.people.credentials import BADGE, EMPLOYEE_ID, NAME, PIN
from shoe.people.desk import People
from shoe.people.duties import AUTHORITY, Acting
from shoe.people.errors import PeopleError, SignInRefused
from shoe.people.store import ROLES, PeopleStore
from shoe.service import Role, ServiceConfig, ServiceError
from shoe.service.api.requests import Empty

__all__ = ["MANAGERS", "PEOPLE_ROUTES", "open_people", "people_path"]

MANAGERS = tuple(AUTHORITY)
"""The employee roles that manage people at all; whom each may manage is shoe/people/duties.py's."""
FAILED_SIGN_IN_S = 0.5
"""How long after it arrived every failed sign-in is answered: above a PIN check's time on a loaded table
(scrypt, ~0.25 s with both cores busy), so that no cause answers sooner than another."""
ANY = (Role.DEALER, Role.TECHNICIAN, Role.TABLE_SYSTEM, Role.OBSERVER)


Badge = Annotated[str, msgspec.Meta(pattern=BADGE.pattern, max_length=32)]
Pin = Annotated[str, msgspec.Meta(pattern=PIN.pattern, max_length=12)]
EmployeeId = Annotated[str, msgspec.Meta(pattern=EMPLOYEE_ID.pattern, max_length=32)]
Name = Annotated[str, msgspec.Meta(pattern=NAME.pattern, max_length=64)]
TokenId = Annotated[str, msgspec.Meta(pattern=r"^t-[0-9a-f]{8}$", max_length=10)]
EmployeeRole = Literal["dealer", "floorperson", "technician", "surveillance", "observer", "table-system"]
assert set(get_args(EmployeeRole)) == set(ROLES)


class SignIn(msgspec.Struct, forbid_unknown_fields=True):
    badge: Badge
    pin: Pin


class AddEmployee(msgspec.Struct, forbid_unknown_fields=True):
    id: EmployeeId
    name: Name
    roles: Annotated[list[EmployeeRole], msgspec.Meta(min_length=1, max_length=6)]
    badge: Badge | None = None
    pin: Pin | None = None


class EmployeeRef(msgspec.Struct, forbid_unknown_fields=True):
    id: EmployeeId


class ResetPin(msgspec.Struct, forbid_unknown_fields=True):
    id: EmployeeId
    pin: Pin


class IssueToken(msgspec.Struct, forbid_unknown_fields=True):
    id: EmployeeId
    label: Name = "api"


class RevokeToken(msgspec.Struct, forbid_unknown_fields=True):
    token_id: TokenId


def _json(value: object, status: int = 200) -> Reply:
    return Reply(status=status, body=json_bytes(value))


def _guarded(fn: Callable[[Request], Reply]) -> Handler:
    @functools.wraps(fn)
    def handler(req: Request) -> Reply:
        if req.people is None:
            raise ApiError("not-found", "this server has no employees store (docs/people.md)")
        try:
            return fn(req)
        except PeopleError as exc:
            return Reply(status=exc.status, body=json_bytes(envelope(exc.code, exc.message, None, exc.hint)))

    return handler


def acting(who: Principal) -> Acting:
    """The :class:`Acting` of a principal: an employee, the installer (a configuration technician token
    or the open loopback API), or another configuration token (which manages no one)."""
    if who.employee is not None:
        return Acting(who.employee.id, who.employee.name, who.employee.roles, who.via)
    return Acting(None, None, (), who.via, installer=Role.TECHNICIAN in who.roles)


def _manager(req: Request) -> Acting:
    who = req.principal
    assert isinstance(who, Principal)
    return acting(who)


def _lister(req: Request) -> Acting:
    """Reading the employees needs someone who manages people (nothing is journaled: nothing changes)."""
    actor = _manager(req)
    if actor.installer or any(r in MANAGERS for r in actor.roles):
        return actor
    raise ApiError("forbidden", "listing employees needs a floorperson, technician or surveillance")


@_guarded
def _sign_in(req: Request) -> Reply:
    assert isinstance(req.params, SignIn)
    started = time.monotonic()
    try:
        signed = req.people.sign_in(req.params.badge, req.params.pin, req.client)
    except SignInRefused as refused:
        req.counters.sign_in_failed(refused.cause)
        # Every failure is answered FAILED_SIGN_IN_S after it arrived, whatever it cost (a PIN check, a dummy
        # one, none for a backed-off client): the time tells nothing either. A stopping server answers now.
        req.stopping.wait(max(0.0, FAILED_SIGN_IN_S - (time.monotonic() - started)))
        raise
    employee = signed.employee
    return _json(
        {
            "token": signed.token,
            "session_id": signed.session_id,
            "idle_s": req.people.sessions.idle_s,
            "employee": {"id": employee.id, "name": employee.name, "roles": list(employee.roles)},
        },
        201,
    )


@_guarded
def _sign_out(req: Request) -> Reply:
    token = (req.headers.get("authorization") or "").partition(" ")[2].strip()
    if not token.startswith("shoe_s_"):
        raise PeopleError("not-a-session", "sign-out ends a sign-in session: send its session token", 409)
    employee = req.people.sign_out(token)
    return _json({"signed_out": {"id": employee.id, "name": employee.name}})


def _whoami(req: Request) -> Reply:
    who = req.principal
    assert isinstance(who, Principal)
    if req.people is not None:  # the displays ask every few seconds: idle sessions are journaled as they end
        req.people.sweep()
    employee = (
        None
        if who.employee is None
        else {"id": who.employee.id, "name": who.employee.name, "roles": list(who.employee.roles)}
    )
    return _json({"employee": employee, "via": who.via, "roles": sorted(r.value for r in who.roles)})


@_guarded
def _list(req: Request) -> Reply:
    _lister(req)
    people = req.people.store.all()
    return _json({"employees": [e.public() for e in people], "roles": list(ROLES)})


@_guarded
def _add(req: Request) -> Reply:
    who = _manager(req)
    p = req.params
    assert isinstance(p, AddEmployee)
    employee = req.people.add(p.id, p.name, p.roles, badge=p.badge, pin=p.pin, actor=who)
    return _json({"employee": employee.public()}, 201)


def _toggle(enabled: bool) -> Handler:
    @_guarded
    def handler(req: Request) -> Reply:
        who = _manager(req)
        assert isinstance(req.params, EmployeeRef)
        return _json({"employee": req.people.set_enabled(req.params.id, enabled, who).public()})

    return handler


@_guarded
def _remove(req: Request) -> Reply:
    who = _manager(req)
    assert isinstance(req.params, EmployeeRef)
    req.people.remove(req.params.id, who)
    return _json({"removed": req.params.id})


@_guarded
def _reset_pin(req: Request) -> Reply:
    who = _manager(req)
    assert isinstance(req.params, ResetPin)
    return _json({"employee": req.people.reset_pin(req.params.id, req.params.pin, who).public()})


@_guarded
def _issue(req: Request) -> Reply:
    who = _manager(req)
    assert isinstance(req.params, IssueToken)
    token_id, token = req.people.issue_token(req.params.id, req.params.label, who)
    return _json({"token_id": token_id, "token": token, "employee": req.params.id}, 201)


@_guarded
def _tokens(req: Request) -> Reply:
    _lister(req)
    employee = req.people.get(req.query.get("id", ""))
    rows = req.people.store.tokens_of(employee.id)
    return _json(
        {"employee": employee.id, "tokens": [{"token_id": r.id, "label": r.label, "revoked": r.revoked} for r in rows]}
    )


@_guarded
def _revoke(req: Request) -> Reply:
    who = _manager(req)
    assert isinstance(req.params, RevokeToken)
    req.people.revoke_token(req.params.token_id, who)
    return _json({"revoked": req.params.token_id})


def _r(  # noqa: PLR0917 - a route is its method, path, handler, id, summary and body type
    method: str,
    path: str,
    handler: Handler,
    op: str,
    summary: str,
    request: object = None,
    *,
    roles: tuple[Role, ...] = ANY,
    status: int = 200,
) -> Route:
    return Route(method, path, handler, roles, op, summary, "people", request=request, status=status)


PEOPLE_ROUTES: tuple[Route, ...] = (
    _r(
        "POST",
        "/v1/sessions",
        _sign_in,
        "signIn",
        "Sign in with a badge and PIN: a session token",
        SignIn,
        roles=(),
        status=201,
    ),
    _r("GET", "/v1/session", _whoami, "whoAmI", "Who this token stands for"),
    _r("POST", "/v1/session/sign-out", _sign_out, "signOut", "End this sign-in session", Empty),
    _r("GET", "/v1/people", _list, "listEmployees", "The employees (floorperson or technician)"),
    _r("POST", "/v1/people", _add, "addEmployee", "Add an employee", AddEmployee, status=201),
    _r("POST", "/v1/people/disable", _toggle(False), "disableEmployee", "Disable an employee", EmployeeRef),
    _r("POST", "/v1/people/enable", _toggle(True), "enableEmployee", "Enable an employee again", EmployeeRef),
    _r("POST", "/v1/people/remove", _remove, "removeEmployee", "Remove an employee", EmployeeRef),
    _r("POST", "/v1/people/reset-pin", _reset_pin, "resetPin", "Set a new PIN (lifts a lockout)", ResetPin),
    _r("GET", "/v1/people/tokens", _tokens, "listTokens", "An employee's API tokens (?id=)"),
    _r("POST", "/v1/people/tokens", _issue, "issueToken", "Issue an API token (shown once)", IssueToken, status=201),
    _r("POST", "/v1/people/tokens/revoke", _revoke, "revokeToken", "Revoke an API token", RevokeToken),
)


def people_path(config: ServiceConfig) -> Path:
    """Where ``config`` keeps its employees store: ``[people] path``, else ``people.sqlite`` beside the journal."""
    return config.people_path or Path(config.journal).parent / "people.sqlite"


def open_people(service: Any, config: ServiceConfig) -> People:
    """The employees store of ``config`` (:func:`people_path`), journaling through ``service.journal_people`` (a
    ``TableService``)."""
    path = people_path(config)

    def journal(data: dict[str, Any], by: Any) -> None:
        try:
            service.journal_people(data, by)
        except ServiceError as exc:
            raise PeopleError(exc.code, f"{exc.message}: nothing was changed", 503, exc.hint) from None

    return People(PeopleStore(path), journal, idle_s=config.session_idle, pin_tries=config.pin_tries,
                  require_sign_in=config.require_sign_in)  # fmt: skip
