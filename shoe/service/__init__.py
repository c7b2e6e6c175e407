"""``shoed``: the table service that drives the shoe through each round under the rules engine.

One owner thread holds the shoe link, the journal and the round (:mod:`.core`, :mod:`.owner`, which
composes the parts of one job each); the HTTP layer (``shoe.api``) calls :class:`TableService`. Start
with docs/service.md and docs/architecture.md.

| package or module | job |
|---|---|
| ``core`` | ``TableService``: the facade, the owner thread's life |
| ``owner`` | the owner thread's work: composes the parts, routes shoe items, closes rounds |
| ``memory`` | memory rebuilt from the journal after a failed item (``recover``) |
| ``snapshots`` | ``Snapshots``: what other threads read (view, summary, link, identity, status) |
| ``errors`` | ``Role``, ``ErrorKind``, ``ServiceError`` and the translation of rule and shoe errors |
| ``metrics``, ``notify`` | the metrics registry (prometheus_client); systemd readiness and watchdog |
| ``api`` | the typed request of every action, the registry of actions, the role check and dispatch |
| ``config`` | ``ServiceConfig``, ``load_config``: the TOML file, overrides, validation, redaction |
| ``journal`` | entry kinds and payloads, the sink, who may see which field, the event stream |
| ``link`` | ``LinkSupervisor``: connect, reconnect, the link's notices, status, position, alarms |
| ``rounds`` | one round of each game through the shoe, its desk, rebuilt and reconciled after a restart |
| ``deck`` | ``DeckCycle``: the deck the shoe holds, loaded, checked, dealt, released; the open-round gate |
| ``people`` | employees' journal entries and the second person's approval of a step |
| ``floor`` | the shipper to the floor database and the floor's refusals |
| ``verify`` | program and firmware verification |
| (``shoe.shoed``) | the ``shoed`` entry point, above this package and ``shoe.api`` |
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from shoe.service.config.settings import ConfigError, ServiceConfig, load_config
    from shoe.service.core import TableService
    from shoe.service.errors import Role, ServiceError

__all__ = ["ConfigError", "Role", "ServiceConfig", "ServiceError", "TableService", "load_config"]

# Imported when first asked for (PEP 562): ``shoed`` reads its configuration and serves its first status
# before the owner, the rounds and the rules engine are imported (``from shoe.service import Role`` alone
# imported all of them).
_WHERE = {
    "ConfigError": "shoe.service.config.settings",
    "ServiceConfig": "shoe.service.config.settings",
    "load_config": "shoe.service.config.settings",
    "TableService": "shoe.service.core",
    "Role": "shoe.service.errors",
    "ServiceError": "shoe.service.errors",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'shoe.service' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
