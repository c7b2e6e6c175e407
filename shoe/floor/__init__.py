"""The casino floor (docs/floor.md): every table's journal in PostgreSQL, exactly once, chained and verified.

``migrate`` creates and upgrades the schema (``schema/NNN_*.sql``, a version table), ``client`` is the
shipper's side of the wire (``floor.ship``, ``floor.head``), ``audit`` the readers behind ``shoectl
floor`` and ``shoectl journal verify --against``. psycopg is imported only when a connection is made, so
``shoed`` without a ``[floor]`` section and ``shoectl``'s parser never load it.
"""

from shoe.floor.errors import FloorError

__all__ = ["FloorError"]
