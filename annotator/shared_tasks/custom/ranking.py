"""What a declared project ranks: a best-worst question's items by their scores, for the ranking page and `flask rank`.

Why here and not only in the export: a best-worst campaign exists to rank its items, and an organiser watching one
wants the order while the votes come in, on the admin's pages, not after downloading a zip. The table is the export's
`scores.csv` (the same rows, best_worst.score_rows over the counted votes), so the page, the command and the files
never disagree; a big project's is kept like its other figures (figures/kept_figures.py, "ranking").
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from annotator.analysis.reports import Report, Table
from annotator.analysis.results import labels_frame
from annotator.core.extensions import db
from annotator.core.models import Item, Project
from annotator.declared import best_worst
from annotator.declared.definition import Definition
from annotator.declared.definition_reader import definition_from_data

if TYPE_CHECKING:
    import pandas as pd

COLUMNS = [c for c in best_worst.SCORE_COLUMNS if c != "question"]


def project_definition(project: Project) -> Definition:
    return definition_from_data(project.definition)


def ranks(project: Project) -> bool:
    """Whether the project has something to rank: a best-worst question."""
    return bool(project.definition) and best_worst.question_of(project_definition(project)) is not None


def best_worst_scores(project: Project, definition: Definition, labels: pd.DataFrame) -> list[dict[str, Any]] | None:
    """Every scored item's row of a best-worst definition (best_worst.score_rows), None for another definition."""
    if best_worst.question_of(definition) is None:
        return None
    payloads = db.session.scalars(select(Item.payload).where(Item.project_id == project.id, Item.is_control.is_(False))
                                  .order_by(Item.position)).all()
    return best_worst.score_rows(definition, labels, [p or {} for p in payloads])


def rank(project: Project) -> Report:
    """The best-worst question's items, highest score first, with their counts and places."""
    definition = project_definition(project)
    question = best_worst.question_of(definition)
    report = Report(f"{project.name}: best-worst scores")
    if question is None:
        report.notes.append("This project asks no best-worst question: it has nothing to rank.")
        return report
    rows = best_worst_scores(project, definition, labels_frame(project)) or []
    unscored = sum(1 for row in rows if row["score"] is None)
    if unscored:
        report.notes.append(f"{unscored} of {len(rows)} items are in no answered tuple yet: no score, listed last.")
    report.tables.append(Table(
        "scores", f"{question.prompt}: each item's score", COLUMNS, [[row[c] for c in COLUMNS] for row in rows],
        "(best - worst) / appearances over the counted votes, equal scores sharing a place; the export's scores.csv"))
    return report
