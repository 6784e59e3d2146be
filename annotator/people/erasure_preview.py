"""The label rows that would count once a person's votes are deleted: what the erasure preview's gold and
agreement are computed from, by the same functions as the admin pages.

Deleting votes also takes items back under their target (k), and an item that is no longer complete leaves
gold and agreement (unless pending items are counted): so the rows kept are those of the items still complete
without the person's counted votes, less the person's rows, then less low-kappa annotators as labels_frame does.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import func, select

from annotator.analysis.results import labels_frame, without_low_kappa
from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Item, Project
from annotator.core.quality_settings import target_of

if TYPE_CHECKING:
    import pandas as pd


def labels_without(project: Project, user_id: int, include_incomplete: bool = False) -> pd.DataFrame:
    """labels_frame(project, include_incomplete) as it will read after the person's votes are deleted."""
    frame = labels_frame(project, include_incomplete=True, by_kappa=False)
    frame = frame[frame["user_id"] != user_id]
    if not include_incomplete:
        frame = frame[frame["item"].isin(complete_after(project, user_id))]
    return without_low_kappa(project, frame.reset_index(drop=True))


def complete_after(project: Project, user_id: int) -> set[str]:
    """The ordinary items still complete once the person's counted votes no longer count."""
    theirs = dict(db.session.execute(select(Assignment.item_id, func.count()).where(
        Assignment.project_id == project.id, Assignment.user_id == user_id, Assignment.status == SUBMITTED,
        Assignment.excluded.is_(False)).group_by(Assignment.item_id)).all())
    items = db.session.execute(select(Item.id, Item.external_id, Item.done_count, Item.target)
                               .where(Item.project_id == project.id, Item.is_control.is_(False))).all()
    return {item.external_id for item in items if item.done_count - theirs.get(item.id, 0) >= target_of(item, project)}
