"""One round at a time, as pure steps: what a step asks and the one driver that answers it through a
``Desk`` (``intents``), what every game shares (``run``: the round in hand, the ``Desk`` protocol, a round
rebuilt from its entries), each game's steps (``mississippi``, ``stud``), the typed inputs to
the rules engine (``params``), the desk the owner provides (``desk``), and a round rebuilt and reconciled
with the shoe after a restart or a lost link (``recovery``). The rules themselves are ``shoe.rules``'.
"""
