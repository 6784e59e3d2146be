"""Per annotator of a project: agreement with the others, control accuracy, volume and time: the annotators page
and its CSV, with the quiz and blocking state as they are now. The figures that take every vote to compute
(mean kappas, median times, control accuracy) are analysis/annotator_figures.py's, from the label frame."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import select

from annotator.analysis.annotator_figures import AnnotatorFigures, accuracies, annotator_figures
from annotator.core.csv_cells import csv_text, dict_rows
from annotator.core.extensions import db
from annotator.core.models import AnnotatorState, Project
from annotator.core.quality_settings import quality_settings


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
