"""Per annotator of a project, the figures that take every vote to compute: mean Cohen's kappa with the
co-annotators, median seconds per HIT, votes, and accuracy on control items. Pure reads of the stored votes
and control answers: quality control's annotators page shows them, the dashboard charts them, and
figures/kept_figures.py keeps them for a big project."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import case, func, select

from annotator.analysis.annotator_kappas import mean_kappas
from annotator.analysis.results import labels_frame
from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, ControlAnswer, Project, User
from annotator.core.quality_settings import quality_settings
from annotator.tasks import project_task

if TYPE_CHECKING:
    import pandas as pd


def accuracies(project_id: int, user_ids: list[int] | None = None) -> dict[int, tuple[int, float]]:
    """Per annotator: (control answers, mean score), in one query."""
    query = (select(ControlAnswer.user_id, func.count(), func.avg(ControlAnswer.score))
             .where(ControlAnswer.project_id == project_id).group_by(ControlAnswer.user_id))
    if user_ids is not None:
        query = query.where(ControlAnswer.user_id.in_(user_ids))
    return {int(u): (int(n), float(m)) for u, n, m in db.session.execute(query)}


@dataclass(frozen=True)
class AnnotatorFigures:
    """What the annotators page shows that takes every label or vote to compute (kept for a big project by
    annotator/figures/kept.py): each annotator's mean kappa (and over how many co-annotators) and median seconds
    per HIT, by user id."""

    kappas: Mapping[int, tuple[float, int]]
    median_seconds: Mapping[int, float]
    votes: Mapping[int, tuple[str, int, int]]  # user id -> (name, submitted votes, of them excluded)


def annotator_figures(project: Project, labels: pd.DataFrame | None = None) -> AnnotatorFigures:
    """The kappas over every counted label (`labels`: results.labels_frame with nobody left out, when the caller
    has it), and the median time of the submitted votes."""
    import pandas as pd


    if labels is None:
        labels = labels_frame(project, by_kappa=False)
    kappas = mean_kappas(labels, project_task(project), quality_settings(project).kappa_min_units)
    # Plain tuples: pandas reads SQLAlchemy's Row objects as sequences one by one, 1.8 s for 200,000 votes.
    times = pd.DataFrame([tuple(row) for row in db.session.execute(select(Assignment.user_id, Assignment.seconds_spent)
                          .where(Assignment.project_id == project.id, Assignment.status == SUBMITTED,
                                 Assignment.seconds_spent.is_not(None)))], columns=["user_id", "seconds"])
    medians = {int(user): float(median) for user, median in times.groupby("user_id")["seconds"].median().items()}
    votes = {int(user): (str(name), int(count), int(excluded)) for user, name, count, excluded in db.session.execute(
        select(Assignment.user_id, User.username, func.count(),
               func.coalesce(func.sum(case((Assignment.excluded.is_(True), 1), else_=0)), 0))
        .join(User, User.id == Assignment.user_id)
        .where(Assignment.project_id == project.id, Assignment.status == SUBMITTED)
        .group_by(Assignment.user_id, User.username))}
    return AnnotatorFigures(kappas, medians, votes)
