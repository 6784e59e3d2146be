"""Declared campaigns' files: the `custom` format (exchange.py), whose import makes a declared project from a
definition and an items file. The admin pages that do it from the browser are web/'s (web/declared_projects.py):
they are the declared engine's own front end, not a shared task's page."""
from annotator.plugins.shared_task import SharedTask

SHARED_TASK = SharedTask(
    name="custom", title="Declared campaigns (your own YAML definition)",
    formats=("exchange:FORMAT",),
)
