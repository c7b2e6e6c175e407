"""The service's edge towards its callers: the typed request of every action (``requests``, bytes made
data once by ``strict_json``), the one registry of actions (``registry``: role, request type, games), and
the role check and dispatch of one command (``actions``). HTTP itself, statuses and routes, is ``shoe.api``'s,
above this package.
"""
