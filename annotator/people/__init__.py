"""People and their ways in: accounts, passwords and API tokens, and crowd entry from Prolific and
Mechanical Turk."""
