"""The action triplet, derived once: ``can_x`` from ``verify_x``, and forwarding to a round's parts.

Every action of both round machines comes as a triplet, pokerkit style: ``verify_x(...)`` raises a
:class:`~shoe.rules.errors.RuleViolation` naming the rule, ``can_x(...)`` says whether it would be
accepted, ``x(...)`` does it and returns a frozen record.  ``can_x`` is never written by hand: it is
``can_x = can(verify_x)``, which calls whatever ``verify_x`` the instance has and answers ``False`` on
a refusal.  :func:`forward` lets a round object expose a method of one of its parts (composition:
the round delegates to small parts with one job each) with the part's signature and docstring.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

from shoe.rules.errors import RuleViolation

__all__ = ["Can", "Forward", "can", "forward"]

P = ParamSpec("P")
R = TypeVar("R")


class Can(Generic[P]):
    """``can_x``: ``verify_x`` of the same instance, answered as a bool (a refusal is ``False``)."""

    def __init__(self, verify: Callable[..., object]) -> None:
        self.verify_name = verify.__name__
        self.__doc__ = f"Whether ``{verify.__name__.removeprefix('verify_')}`` would be accepted now."

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Can[P]: ...

    @overload
    def __get__(self, obj: object, owner: type | None = None) -> Callable[P, bool]: ...

    def __get__(self, obj: object | None, owner: type | None = None) -> Can[P] | Callable[P, bool]:
        if obj is None:
            return self
        verify: Callable[P, object] = getattr(obj, self.verify_name)

        def can_x(*args: P.args, **kwargs: P.kwargs) -> bool:
            try:
                verify(*args, **kwargs)
            except RuleViolation:
                return False
            return True

        can_x.__name__ = "can_" + self.verify_name.removeprefix("verify_")
        can_x.__doc__ = self.__doc__
        return can_x


def can(verify: Callable[Concatenate[Any, P], object]) -> Can[P]:
    """``can_x = can(verify_x)`` in a class body: ``can_x`` takes ``verify_x``'s arguments."""
    return Can(verify)


class Forward(Generic[P, R]):
    """A method of the round that is the method ``fn`` of the part held in attribute ``part``."""

    def __init__(self, part: str, fn: Callable[..., R]) -> None:
        self.part = part
        self.name = fn.__name__
        self.__doc__ = fn.__doc__

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Forward[P, R]: ...

    @overload
    def __get__(self, obj: object, owner: type | None = None) -> Callable[P, R]: ...

    def __get__(self, obj: object | None, owner: type | None = None) -> Forward[P, R] | Callable[P, R]:
        if obj is None:
            return self
        method: Callable[P, R] = getattr(getattr(obj, self.part), self.name)
        return method


def forward(part: str, fn: Callable[Concatenate[Any, P], R]) -> Forward[P, R]:
    """``x = forward("_part", Part.x)`` in a class body: ``x`` is the part's ``x``, same signature."""
    return Forward(part, fn)
