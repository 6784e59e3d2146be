"""A project's dataset split (train, dev, test...) drawn with a seed, on its dataset page or by `flask stats`.

The rule is campaigns/splits.py (a SplitError before anything is written when the sizes do not fit the items),
which records the seed, names and sizes. A split labels items for the dataset table; no kept figure reads it.
"""
from __future__ import annotations

from annotator.actions.base import action
from annotator.campaigns.splits import DEFAULT_NAMES, Split, assign_split
from annotator.core.audit import Actor
from annotator.core.models import Project


@action("split.draw")
def draw_split(project: Project, sizes: tuple[int, ...], seed: int, by: Actor,
               names: tuple[str, ...] = DEFAULT_NAMES) -> Split:
    """Draw the project's split and keep it, replacing any earlier one (the same seed draws the same split)."""
    return assign_split(project, sizes, seed, names)
