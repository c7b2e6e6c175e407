"""The shoe link as the service sees it: connecting and reconnecting, the link's notices, the shoe's
status and position against the journal's, and the alarms they raise (``supervisor``). The wire protocol
and its authentication are ``protocols``' and ``drivers``'; this package decides what a notice means for
the table.
"""
