"""Domain actions: every change of state an admin makes, one function each, called by the pages and the commands.

An action takes the parsed arguments and who acts (`core/audit.Actor`: the logged-in admin, or `who()`'s
command line), checks them (raising its area's error, with nothing changed), writes, records its audit event
and makes a big project's kept figures stale where the change alters them, all in one transaction that it
commits. Views and `flask` commands only parse, call and show, so the page and the command cannot drift apart
(they had: the page recorded no seed for drawn control items, the command did). `base.action` enforces the
transaction and refuses an action that would commit without its audit event. docs/architecture.md lists them.
"""
