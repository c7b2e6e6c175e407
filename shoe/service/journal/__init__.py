"""The service's side of the journal: what it writes and who may see it.

Every entry kind and its typed payload (``entries``, ``payloads``, ``payload_base``), the rules records as
journal data (``codec``), the one way in (``sink``: each append durable before the state it describes
changes), and what of an entry or a round each role may see (``visibility``, an allow-list per field;
``secrecy``, the views and responses built from it; ``feed``, the event stream through both). The store
itself, its hash chain and its file identity are ``shoe.journal``'s.
"""
