"""Declared campaigns' files: the `custom` format (exchange.py) and the admin pages that make a declared project
from a definition and an items file (pages.py)."""
from annotator.plugins.shared_task import SharedTask

SHARED_TASK = SharedTask(
    name="custom", title="Declared campaigns (your own YAML definition)",
    formats=("exchange:FORMAT",),
    blueprints=("pages:bp",),
)
