"""``People``: employees, their PINs and tokens, sign-in; every change journaled before it is stored.

Each change builds its ``people`` journal entry (shoe/service/people/payloads.py: never a PIN, a
token or its digest, nor a badge), hands it to ``journal`` (the service appends it on its owner
thread, durable on return), and only then writes the store: when the journal refuses, nothing
changed (journal before state, docs/journal.md). Who may change whom is :mod:`.duties`'s; a refused
change is journaled (``change-refused``, naming who tried). Failed sign-ins all get one answer, back
off per client and per badge, and are journaled in summary (:mod:`.throttle`); a token of a disabled
or removed employee or a revoked one is journaled at most once a minute per credential, so that a
client retrying a dead token cannot flood the journal.
"""

from __future__ import annotations

import contextlib
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any, NoReturn

from shoe.people import credentials as cr
from shoe.people.duties import Acting, Operation, combination_refusal, manages_people, refusal
from shoe.people.errors import PeopleError, SignInRefused
from shoe.people.sessions import Sessions
from shoe.people.store import ROLES, Employee, PeopleStore
from shoe.people.throttle import FailureSummary, SignInThrottle, client_key

__all__ = ["Journal", "People", "Signed"]

Journal = Callable[[dict[str, Any], Mapping[str, str] | None], None]
"""``(data, by)``: append one ``people`` entry (``by``: who did it), or raise and nothing is written."""
REFUSAL_EVERY_S = 60.0
NOT_RECOGNISED = "badge or PIN not recognised"
"""The message of every failed sign-in, whatever the cause."""


@dataclass(frozen=True)
class Signed:
    """A sign-in: the session token (shown once, to the display) and who signed in."""

    token: str
    session_id: str
    employee: Employee


class People:
    def __init__(
        self,
        store: PeopleStore,
        journal: Journal,
        *,
        idle_s: float = 900.0,
        pin_tries: int = 5,
        require_sign_in: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.journal = journal
        self.pin_tries = pin_tries
        self.require_sign_in = require_sign_in  # [people] require_sign_in: dealer and technician actions need a person
        self.sessions = Sessions(idle_s, clock)
        self._clock = clock
        self._lock = threading.Lock()  # one change at a time: checked, journaled, stored
        self._refusals: dict[str, float] = {}
        self.throttle = SignInThrottle(pin_tries)  # pin_tries: failed sign-ins before the back-off starts

    # -- managing employees ------------------------------------------------------------------------

    def add(
        self,
        employee_id: str,
        name: str,
        roles: Iterable[str],
        *,
        badge: str | None,
        pin: str | None,
        actor: Acting,
    ) -> Employee:
        roles = tuple(dict.fromkeys(roles))
        _check_id(employee_id)
        if not cr.NAME.fullmatch(name):
            raise PeopleError("bad-request", "name: 1-64 letters, digits, spaces or .,'_-", 400)
        unknown = [r for r in roles if r not in ROLES]
        if not roles or unknown:
            raise PeopleError("bad-request", f"roles: give one or more of {', '.join(ROLES)}", 400)
        if (badge is None) != (pin is None):
            raise PeopleError(
                "incomplete-credential", "give a badge and a PIN together, or neither (a service account)", 400
            )
        if badge is not None and not cr.BADGE.fullmatch(badge):
            raise PeopleError("bad-request", "badge: 1-32 letters, digits or '-'", 400)
        if pin is not None:
            _check_pin(pin)
        if "table-system" in roles and badge is not None:
            raise PeopleError("bad-request", "a table-system account is a service: it has tokens, no badge or PIN", 400)
        with self._lock:
            self._authorize(actor, Operation.ADD, employee_id, roles)
            incompatible = combination_refusal(roles)
            if incompatible is not None:
                self._change_refused(actor, Operation.ADD, employee_id, roles, "incompatible-roles")
                raise PeopleError("incompatible-roles", incompatible, 403, "add one employee per duty")
            if self.store.get(employee_id) is not None:
                raise PeopleError(
                    "employee-exists", f"employee {employee_id!r} exists (or was removed)", 409, "choose another id"
                )
            if badge is not None and self.store.by_badge(badge) is not None:
                raise PeopleError("badge-taken", f"badge {badge!r} belongs to another employee", 409)
            employee = Employee(
                employee_id, name, roles, badge, cr.hash_pin(pin) if pin else None, True, False, 0, False
            )
            self.journal(
                {
                    "action": "employee-added",
                    "employee_id": employee_id,
                    "name": name,
                    "roles": list(roles),
                    "via": actor.via,
                },
                actor.by,
            )
            self.store.add(employee)
        return employee

    def get(self, employee_id: str) -> Employee:
        employee = self.store.get(employee_id)
        if employee is None or employee.removed:
            raise PeopleError("unknown-employee", f"no employee {employee_id!r}", 404, "shoectl users list")
        return employee

    def set_enabled(self, employee_id: str, enabled: bool, actor: Acting) -> Employee:
        with self._lock:
            employee = self._target(actor, Operation.ENABLE if enabled else Operation.DISABLE, employee_id)
            action = "employee-enabled" if enabled else "employee-disabled"
            self.journal({"action": action, "employee_id": employee.id, "name": employee.name, "via": actor.via},
                         actor.by)  # fmt: skip
            self.store.update(employee.id, enabled=int(enabled))
        if not enabled:
            self._end_sessions(employee, "disabled")
        return replace(employee, enabled=enabled)

    def remove(self, employee_id: str, actor: Acting) -> None:
        with self._lock:
            employee = self._target(actor, Operation.REMOVE, employee_id)
            self.journal(
                {"action": "employee-removed", "employee_id": employee.id, "name": employee.name, "via": actor.via},
                actor.by,
            )
            self.store.update(employee.id, removed=1, enabled=0, badge=None)
        self._end_sessions(employee, "removed")

    def reset_pin(self, employee_id: str, pin: str, actor: Acting) -> Employee:
        """A new PIN; it also lifts a lockout and the badge's back-off (PA 655a.11 puts the floorperson
        over the table's staff; docs/people.md has who may reset whose PIN)."""
        _check_pin(pin)
        with self._lock:
            employee = self._target(actor, Operation.RESET_PIN, employee_id)
            if employee.badge is None:
                raise PeopleError("no-badge", f"{employee_id!r} is a service account: it has tokens, no PIN", 409)
            self.journal(
                {
                    "action": "pin-reset",
                    "employee_id": employee.id,
                    "name": employee.name,
                    "unlocked": employee.locked,
                    "via": actor.via,
                },
                actor.by,
            )
            self.store.update(employee.id, pin_hash=cr.hash_pin(pin), failures=0, locked=0)
            self.throttle.forget_badge(employee.badge)
        return replace(employee, failures=0, locked=False)

    def issue_token(self, employee_id: str, label: str, actor: Acting) -> tuple[str, str]:
        """A new API token for ``employee_id``: ``(token id, token)``; the token is shown this once."""
        if not cr.NAME.fullmatch(label):
            raise PeopleError("bad-request", "label: 1-64 letters, digits, spaces or .,'_-", 400)
        with self._lock:
            employee = self._target(actor, Operation.ISSUE_TOKEN, employee_id)
            token, token_id = cr.new_token(cr.API_PREFIX), "t-" + secrets.token_hex(4)
            self.journal(
                {
                    "action": "token-issued",
                    "employee_id": employee.id,
                    "name": employee.name,
                    "token_id": token_id,
                    "label": label,
                    "via": actor.via,
                },
                actor.by,
            )
            self.store.add_token(token_id, employee.id, cr.digest(token), label)
        return token_id, token

    def revoke_token(self, token_id: str, actor: Acting) -> None:
        with self._lock:
            self._may_manage(actor, Operation.REVOKE_TOKEN, token_id)
            row = self.store.token_by_id(token_id)
            if row is None:
                raise PeopleError("unknown-token", f"no token {token_id!r}", 404, "shoectl users tokens ID lists them")
            owner = self.get_any(row.employee_id)
            self._authorize(actor, Operation.REVOKE_TOKEN, owner.id, owner.roles)
            if row.revoked:
                raise PeopleError("token-revoked", f"token {token_id!r} is already revoked", 409)
            self.journal(
                {"action": "token-revoked", "employee_id": row.employee_id, "token_id": token_id, "via": actor.via},
                actor.by,
            )
            self.store.revoke_token(token_id)

    # -- separation of duties (shoe/people/duties.py) ----------------------------------------------

    def _may_manage(self, actor: Acting, operation: Operation, target_id: str) -> None:
        """``403`` for an actor who manages no one, before anything about the target is looked up (so
        that the answer does not tell them whether it exists)."""
        if not manages_people(actor):
            self._change_refused(actor, operation, target_id, (), "no-authority")
            raise PeopleError("forbidden", "managing employees needs a floorperson, technician or surveillance", 403)

    def _target(self, actor: Acting, operation: Operation, employee_id: str) -> Employee:
        """The employee ``actor`` may do ``operation`` to (under ``self._lock``); ``403`` journaled otherwise."""
        self._may_manage(actor, operation, employee_id)
        employee = self.get(employee_id)
        self._authorize(actor, operation, employee.id, employee.roles)
        return employee

    def _authorize(self, actor: Acting, operation: Operation, target_id: str, roles: Iterable[str]) -> None:
        self._may_manage(actor, operation, target_id)
        why = refusal(actor, operation, target_id, roles)
        if why is not None:
            self._change_refused(actor, operation, target_id, tuple(roles), "separation-of-duties")
            raise PeopleError("separation-of-duties", why, 403, "docs/people.md, Separation of duties")

    def _change_refused(
        self, actor: Acting, operation: Operation, target_id: str, roles: tuple[str, ...], reason: str
    ) -> None:
        """Journal a refused change (once a minute per actor, change and reason: a retrying client cannot
        flood the journal; each refusal names who tried)."""
        key = f"change|{actor.employee_id}|{actor.via}|{operation}|{target_id}|{reason}"
        if not self._first_in_minute(key):
            return
        self.journal(
            {
                "action": "change-refused",
                "operation": operation.value,
                "employee_id": target_id,
                "roles": list(roles),
                "reason": reason,
                "via": actor.via,
            },
            actor.by,
        )

    def _first_in_minute(self, key: str) -> bool:
        now = self._clock()
        if now - self._refusals.get(key, -REFUSAL_EVERY_S - 1) < REFUSAL_EVERY_S:
            return False
        self._refusals[key] = now
        if len(self._refusals) > 1024:
            self._refusals = {k: t for k, t in self._refusals.items() if now - t < REFUSAL_EVERY_S}
        return True

    # -- signing in and out ------------------------------------------------------------------------

    def sign_in(self, badge: str, pin: str, client: str = "") -> Signed:
        """Badge + PIN from the client address ``client`` to a session.

        Every failure, whatever its cause (a badge nobody holds, a wrong PIN, a back-off, a disabled
        employee, a lockout from before back-offs), raises the same ``wrong-credentials`` refusal
        (:data:`NOT_RECOGNISED`): the answer tells nothing of who exists or how close a guess came.
        The cause is counted (:mod:`.throttle`) and journaled in summary (``sign-in-failures``).
        """
        self.sweep()  # sessions that idled out, and failure windows that closed, are journaled first
        now, who = self._clock(), client_key(client)
        if self.throttle.backed_off(badge, who, now):  # no PIN check: a flood of these costs no scrypt
            employee = self.store.by_badge(badge)
            self._sign_in_failed(badge, who, employee, "backed-off", now)
        employee = self.store.by_badge(badge) if cr.BADGE.fullmatch(badge) else None
        if employee is None or employee.pin_hash is None:
            cr.burn_time(pin)
            self._sign_in_failed(badge, who, None, "unknown-badge", now)
        if not cr.verify_pin(pin, employee.pin_hash):
            self._sign_in_failed(badge, who, employee, "wrong-pin", now)
        if employee.locked:  # locked before back-offs replaced the lockout: a PIN reset lifts it
            self._sign_in_failed(badge, who, employee, "locked", now)
        if not employee.enabled:
            self._sign_in_failed(badge, who, employee, "disabled", now)
        with self._lock:
            token, session = self.sessions.open(employee.id)
            try:
                self.journal(
                    {
                        "action": "signed-in",
                        "employee_id": employee.id,
                        "name": employee.name,
                        "session_id": session.id,
                    },
                    employee.actor(),
                )
            except BaseException:
                self.sessions.close(token)
                raise
        self.throttle.succeeded(badge, who)
        return Signed(token, session.id, employee)

    def _sign_in_failed(self, badge: str, client: str, employee: Employee | None, reason: str, now: float) -> NoReturn:
        """Count a failed sign-in, journal it if it opens a window, and raise the one refusal there is."""
        self.throttle.failed(badge, client, now)
        summary = self.throttle.note(
            None if employee is None else employee.id, None if employee is None else employee.name, client, reason, now
        )
        if summary is not None:
            self._journal_failures(summary)
        raise SignInRefused(NOT_RECOGNISED, "check the badge and PIN, and try again", reason)

    def _journal_failures(self, summary: FailureSummary) -> None:
        with contextlib.suppress(PeopleError):  # the journal refused: the sign-in is refused all the same
            self.journal({"action": "sign-in-failures", **asdict(summary)}, None)

    def flush_failures(self, *, every: bool = False) -> None:
        """Journal the failure counts of the windows that closed (``every``: of all, when shoed stops)."""
        for summary in self.throttle.closed(self._clock(), every=every):
            self._journal_failures(summary)

    def sign_out(self, token: str) -> Employee:
        session = self.sessions.close(token)
        if session is None:
            raise PeopleError("unauthorized", "that session has ended already", 401)
        employee = self.get_any(session.employee_id)
        self.journal(
            {
                "action": "signed-out",
                "employee_id": employee.id,
                "name": employee.name,
                "session_id": session.id,
                "reason": "sign-out",
            },
            employee.actor(),
        )
        return employee

    def get_any(self, employee_id: str) -> Employee:
        employee = self.store.get(employee_id)
        if employee is None:  # pragma: no cover - rows are never deleted
            raise PeopleError("unknown-employee", f"no employee {employee_id!r}", 404)
        return employee

    def resolve(self, token: str) -> Employee:
        """The enabled employee a session or API token stands for; ``PeopleError`` (401) otherwise."""
        if token.startswith(cr.SESSION_PREFIX):
            session, expired = self.sessions.find(token)
            if session is None:
                raise PeopleError("unauthorized", "no such session (signed out, or shoed restarted): sign in", 401)
            employee = self.get_any(session.employee_id)
            if expired:
                self._idled_out(employee, session.id)
                raise PeopleError("unauthorized", f"signed out after {self.sessions.idle_s:g} s idle: sign in", 401)
            return self._usable(employee, session.id, token)
        row = self.store.token(cr.digest(token))
        if row is None:
            raise PeopleError("unauthorized", "unknown bearer token", 401)
        employee = self.get_any(row.employee_id)
        if row.revoked:
            self._token_refused(employee, row.id, "revoked", token)
            raise PeopleError("unauthorized", f"token {row.id} was revoked", 401)
        return self._usable(employee, row.id, token)

    def known(self, token: str) -> bool:
        """Whether ``token`` is a live session or an unrevoked token of an enabled employee (journals nothing)."""
        if token.startswith(cr.SESSION_PREFIX):
            return self.sessions.peek(token)
        row = self.store.token(cr.digest(token))
        employee = None if row is None or row.revoked else self.store.get(row.employee_id)
        return employee is not None and employee.enabled and not employee.removed

    def _usable(self, employee: Employee, credential: str, token: str) -> Employee:
        reason = "removed" if employee.removed else None if employee.enabled else "disabled"
        if reason is None:
            return employee
        self._token_refused(employee, credential, reason, token)
        raise PeopleError("unauthorized", f"the account of {employee.name} is {reason}", 401)

    def sweep(self) -> int:
        """Journal the sessions that idled out and the failed sign-ins of closed windows (called now and
        then): how many sessions ended."""
        self.flush_failures()
        ended = self.sessions.expired()
        for session in ended:
            self._idled_out(self.get_any(session.employee_id), session.id)
        return len(ended)

    def _idled_out(self, employee: Employee, session_id: str) -> None:
        record = {"action": "signed-out", "employee_id": employee.id, "name": employee.name, "session_id": session_id}
        self.journal({**record, "reason": "idle"}, None)

    # -- journaled refusals ------------------------------------------------------------------------

    def _token_refused(self, employee: Employee, credential: str, reason: str, token: str) -> None:
        if not self._first_in_minute(cr.digest(token) + reason):
            return
        self.journal(
            {
                "action": "token-refused",
                "employee_id": employee.id,
                "name": employee.name,
                "credential": credential,
                "reason": reason,
            },
            None,
        )

    def _end_sessions(self, employee: Employee, reason: str) -> None:
        for session in self.sessions.close_employee(employee.id):
            self.journal(
                {
                    "action": "signed-out",
                    "employee_id": employee.id,
                    "name": employee.name,
                    "session_id": session.id,
                    "reason": reason,
                },
                None,
            )


def _check_id(employee_id: str) -> None:
    if not cr.EMPLOYEE_ID.fullmatch(employee_id):
        raise PeopleError(
            "bad-request", "id: 1-32 letters, digits, '.', '_' or '-', starting with a letter or digit", 400
        )


def _check_pin(pin: str) -> None:
    if not cr.PIN.fullmatch(pin):
        raise PeopleError("bad-request", "PIN: 4-12 digits", 400)
