"""``shoed``'s configuration: the TOML file, command-line overrides and validation (``settings``), each
section's checked values (``values``, ``sections``, ``verify``), and the secrets in configured URLs kept out
of every message (``redact``). A bad value is a ``ConfigError`` naming its key, before anything starts.
"""
