"""Theoretical against actual hold, and decision quality, from the journal.

:mod:`.read` reads a journal's rounds through the journal's own readers; :mod:`.summary` is pure and
values every decision with :mod:`shoe.math.actual`; ``shoectl report`` prints it (:mod:`shoe.cli.report`).
"""
