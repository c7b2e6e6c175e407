"""``shoed``: the table service that drives the shoe through each round under the rules engine.

One owner thread holds the shoe link, the journal and the round (:mod:`.core`, :mod:`.owner`, which
composes the parts of one job each); the HTTP layer (``shoe.api``) calls :class:`TableService`. Start
with docs/service.md and docs/architecture.md.

| module | job |
|---|---|
| ``config`` | ``ServiceConfig``, ``load_config``: the TOML file, overrides, validation |
| ``errors`` | ``Role``, ``ErrorKind``, ``ServiceError`` and the translation of rule and shoe errors |
| ``core`` | ``TableService``: the facade, the owner thread's life |
| ``owner`` | the owner thread's work: composes the parts below, routes shoe items, closes rounds |
| ``sink`` | ``JournalSink``: every append, ``known_dispense_id``, the feed and card metrics, checkpoints |
| ``supervisor`` | ``LinkSupervisor``: connect, reconnect, the link callback, status, position, alarms, the shoe |
| ``snapshots`` | ``Snapshots``: what other threads read (view, summary, link, identity, status) |
| ``desk`` | ``RoundDesk``: the round in hand and what it uses (``rounds.Desk``) |
| ``memory`` | memory rebuilt from the journal after a failed item (``recover``) |
| ``registry`` | the one registry of actions: role, request type, games, route |
| ``requests`` | the typed request of every action (msgspec), checked once at the edge |
| ``actions`` | the role check and dispatch from the registry, running one command |
| ``params`` | typed requests to the rules engine's inputs: table configuration, seats |
| ``rounds``, ``mississippi``, ``stud`` | orchestrating one round of each game |
| ``recovery`` | rebuilding a round from the journal, reconciling with the shoe |
| ``secrecy`` | what responses, events and views may show |
| ``codec`` | rules records to and from journal data |
| ``feed``, ``metrics`` | the event stream; the metrics registry (prometheus_client) |
| ``notify`` | systemd readiness and watchdog |
| (``shoe.shoed``) | the ``shoed`` entry point, above this package and ``shoe.api`` |
"""

from shoe.service.config import ConfigError, ServiceConfig, load_config
from shoe.service.core import TableService
from shoe.service.errors import Role, ServiceError

__all__ = ["ConfigError", "Role", "ServiceConfig", "ServiceError", "TableService", "load_config"]
