"""How ``shoectl report`` may group rounds, and the shifts (no numpy: the CLI's parser reads it)."""

GROUPINGS = ("all", "table", "shift", "day", "seat", "dealer")  # dealer: the employee who dealt
SHIFTS = "day 06:00-14:00, swing 14:00-22:00, night 22:00-06:00 local time (TZ)"
