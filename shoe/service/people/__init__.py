"""People at the table: the journal entries of employees managed, signed in and out or refused
(``payloads``), and the second person's approval as a step of the round: what a request covers
(``approval_inputs``), the decision as a pure function (``approval_judge``), its entries
(``approval_payloads``), the approvals as a pure step (``approval_step``: state and one input -> new state
and intents) and the adapter on the owner thread that holds the step until it is approved
(``approvals``). Employees and credentials themselves are ``shoe.people``'s.
"""
