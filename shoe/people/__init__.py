"""People, not roles: employees, their credentials, sign-in sessions.

- :mod:`.credentials`: PINs (salted scrypt) and API tokens (random, stored as SHA-256 digests);
- :mod:`.store`: shoed's own SQLite file of employees and tokens (``people.sqlite`` beside the journal);
- :mod:`.sessions`: sign-in sessions in memory, with their idle expiry;
- :mod:`.desk`: :class:`People`, every change journaled first (kind ``people``), then stored.

This package imports nothing of ``shoe.service`` at import time: the service journals through a
callback the API wires in. docs/people.md has the design.
"""
