"""Per annotator of a project: agreement with the others, control accuracy, volume and time: the annotators page
and its CSV. The agreement (each annotator's mean Cohen's kappa with its co-annotators) is computed by
analysis/annotator_kappas.py, from the label frame."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import case, func, select

from annotator.analysis.annotator_kappas import mean_kappas
from annotator.analysis.results import labels_frame
from annotator.core.csv_cells import csv_text, dict_rows
from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, AnnotatorState, Assignment, Project, User
from annotator.quality.controls import accuracies
from annotator.quality.settings import quality_settings
from annotator.tasks import project_task

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class AnnotatorRow:
    user_id: int
    username: str
    votes: int
    median_seconds: float | None
    control_answers: int
    control_accuracy: float | None
    kappa: float | None            # mean Cohen's kappa with co-annotators
    kappa_pairs: int               # co-annotators it is the mean over
    quiz: str | None               # pending / passed / failed; None when never quizzed
    blocked: str | None            # the reason, when blocked
    excluded_votes: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


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


def annotator_table(project: Project, figures: AnnotatorFigures | None = None) -> list[AnnotatorRow]:
    """Every annotator with a vote in the project, by name: quiz, blocking and control answers as they are now;
    votes, kappas and median times from `figures` (computed here when not given; a big project's are kept, with
    their age on the page, and an exclusion of votes drops them)."""
    figures = annotator_figures(project) if figures is None else figures
    q = quality_settings(project)
    controls = accuracies(project.id)
    states = {s.user_id: s for s in db.session.scalars(select(AnnotatorState)
                                                       .where(AnnotatorState.project_id == project.id))}
    out = []
    for user_id, (username, count, excluded) in figures.votes.items():
        answers, mean = controls.get(int(user_id), (0, None))
        kappa, pairs = figures.kappas.get(int(user_id), (None, 0))
        state = states.get(int(user_id))
        out.append(AnnotatorRow(int(user_id), str(username), int(count), figures.median_seconds.get(int(user_id)),
                                answers, mean, kappa, pairs,
                                state.quiz_status if state is not None and q.quiz else None,
                                state.blocked_reason if state is not None and state.blocked_at else None,
                                int(excluded)))
    return sorted(out, key=lambda r: r.username)


def table_csv(rows: list[AnnotatorRow]) -> str:
    columns = list(AnnotatorRow.__dataclass_fields__)
    return csv_text(columns, dict_rows(columns, (r.to_dict() for r in rows)))
