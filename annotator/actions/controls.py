"""Control items: one item made a control or an ordinary item again, the items of a file, a seeded draw.

The rules (what a known answer is, all or nothing with the first bad line named) are quality/controls.py and
quality/bulk_controls.py; these actions add the transaction, the audit event (`controls.change`) and the kept
figures: which items are controls changes gold and agreement, and the stamp only counts them (one marked and
another unmarked leaves it as it was), so every action here drops them (bulk_controls.controls_changed).
"""
from __future__ import annotations

from annotator.actions.base import action, figures_stale
from annotator.core.audit import Actor, record
from annotator.core.models import Item, Project
from annotator.quality import bulk_controls
from annotator.quality.bulk_controls import ControlLine
from annotator.quality.controls import make_control as made_control

CHANGE = "controls.change"


@action(CHANGE)
def make_control(project: Project, item: Item, by: Actor) -> None:
    """The item becomes a control: its known answer is its imported reference, else its current gold.
    ControlRefused when its type scores no answer or it has neither."""
    made_control(item, project)  # marks the figures stale itself
    record(CHANGE, project, {"item": item.external_id, "control": True}, actor=by)


@action(CHANGE)
def make_ordinary(project: Project, item: Item, by: Actor) -> None:
    """The control item is an ordinary item again (its known answer stays, for a later control)."""
    item.is_control = False
    figures_stale(project)
    record(CHANGE, project, {"item": item.external_id, "control": False}, actor=by)


@action(CHANGE)
def add_controls(project: Project, lines: list[ControlLine], filename: str, by: Actor) -> int:
    """The items of a controls file become controls (known answer: the file's, else the imported one); how many."""
    count = bulk_controls.mark_controls(project, lines, filename)
    record(CHANGE, project, {"action": "add", "items": count}, actor=by)
    return count


@action(CHANGE)
def draw_controls(project: Project, n: int, seed: int, by: Actor) -> list[str]:
    """n random ordinary items with a known answer become controls; the drawn ids in draw order.

    The event keeps the seed, on the page as on the command line (the page's event used to lack it): with it,
    the draw can be repeated and checked."""
    drawn = bulk_controls.draw_controls(project, n, seed)
    record(CHANGE, project, {"action": "draw", "items": len(drawn), "seed": seed}, actor=by)
    return drawn


@action(CHANGE)
def remove_controls(project: Project, lines: list[ControlLine] | None, filename: str, by: Actor) -> int:
    """The items of a file (None: every control of the project) become ordinary items again; how many.

    The event says `remove-all` for every control, on the command line's `--all` as on the page (the command
    used to say `remove`, as for a file)."""
    count = bulk_controls.unmark_controls(project, lines, filename)
    record(CHANGE, project, {"action": "remove" if lines is not None else "remove-all", "items": count}, actor=by)
    return count
