"""One round at a time: what every game shares (``run``: the round in hand, the ``Desk`` it uses, a round
rebuilt from its entries), each game driven through the shoe (``mississippi``, ``stud``), the typed inputs to
the rules engine (``params``), the desk the owner provides (``desk``), and a round rebuilt and reconciled
with the shoe after a restart or a lost link (``recovery``). The rules themselves are ``shoe.rules``'.
"""
