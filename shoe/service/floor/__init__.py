"""The table's side of the casino floor: the shipper thread that sends committed journal entries to the
floor database in order and in batches (``shipper``), and the floor's refusal journaled as an alarm on the
table (``watch``). The floor database is ``shoe.floor``'s.
"""
