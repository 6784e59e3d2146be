"""What a project's votes add up to: progress, the label frame, gold and agreement.

Everything here is a pure function of the stored rows, so it can be recomputed at any time and
gives the same answer. The label frame is read with one SELECT.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import pandas as pd
from sqlalchemy import func, select

from .agreement import FieldAgreement, agreement
from .extensions import db
from .models import LEASED, SUBMITTED, Adjudication, Assignment, Item, Label, Project, User, utcnow
from .tasks import Check, settings_with_defaults, task_type
from .tasks.base import GoldSummary

LABEL_COLUMNS = ["item", "position", "unit", "field", "value", "user_id", "assignment_id"]


@dataclass(frozen=True)
class ProjectProgress:
    items: int
    complete: int
    votes: int
    votes_needed: int
    open_leases: int

    @property
    def percent(self) -> float:
        return 100.0 * self.votes / self.votes_needed if self.votes_needed else 100.0


@dataclass(frozen=True)
class AnnotatorProgress:
    done: int
    available: int  # done plus the items this annotator could still be given

    @property
    def percent(self) -> float:
        return 100.0 * self.done / self.available if self.available else 100.0


def project_progress(project: Project, now: datetime | None = None) -> ProjectProgress:
    now = now or utcnow()
    items, complete, votes = db.session.execute(
        select(func.count(Item.id),
               func.coalesce(func.sum((Item.done_count >= project.k).cast(db.Integer)), 0),
               func.coalesce(func.sum(Item.done_count), 0))
        .where(Item.project_id == project.id)).one()
    leases = db.session.scalar(select(func.count()).where(
        Assignment.project_id == project.id, Assignment.status == LEASED, Assignment.expires_at > now))
    return ProjectProgress(int(items), int(complete), int(votes), int(items) * project.k, int(leases or 0))


def annotator_progress(user: User, project: Project) -> AnnotatorProgress:
    done = db.session.scalar(select(func.count()).where(
        Assignment.project_id == project.id, Assignment.user_id == user.id,
        Assignment.status == SUBMITTED)) or 0
    # Scoped to the project: this runs on every HIT page, and an annotator's other projects don't count.
    voted = select(Assignment.item_id).where(Assignment.user_id == user.id, Assignment.project_id == project.id,
                                             Assignment.status == SUBMITTED)
    open_items = db.session.scalar(select(func.count()).where(
        Item.project_id == project.id, Item.done_count < project.k, Item.id.not_in(voted))) or 0
    return AnnotatorProgress(int(done), int(done) + int(open_items))


def labels_frame(project: Project) -> pd.DataFrame:
    """Every label row of the project with its item's external id, in item then vote order."""
    query = (select(Item.external_id.label("item"), Item.position, Label.unit, Label.field, Label.value,
                    Label.user_id, Label.assignment_id)
             .join(Item, Item.id == Label.item_id)
             .where(Label.project_id == project.id)
             .order_by(Item.position, Label.assignment_id, Label.id))
    # Plain tuples: building the frame from Row objects costs 3x the query on 300k labels.
    rows = list(map(tuple, db.session.connection().execute(query)))
    return pd.DataFrame(rows, columns=LABEL_COLUMNS)


def gold_frame(project: Project, labels: pd.DataFrame | None = None) -> pd.DataFrame:
    """Gold by the task's rule from the label rows, with an admin's adjudications winning where there are any."""
    task = task_type(project.task_type)
    settings = settings_with_defaults(task, project.settings)
    labels = labels_frame(project) if labels is None else labels
    gold = task.gold(labels, settings)
    if task.adjudicable:
        decided = adjudication_labels(project)
        if not decided.empty:
            gold = task.adjudicate(gold, decided)
    return gold


def adjudication_labels(project: Project) -> pd.DataFrame:
    """The adjudicated answers as label rows (item, unit, field, value), made by the task's own `labels`."""
    task = task_type(project.task_type)
    settings = settings_with_defaults(task, project.settings)
    rows = [(item.external_id, label.unit, label.field, label.value)
            for item, answer in db.session.execute(select(Item, Adjudication.answer)
                                                   .join(Adjudication, Adjudication.item_id == Item.id)
                                                   .where(Adjudication.project_id == project.id)
                                                   .order_by(Item.position))
            for label in task.labels(item, answer, settings)]
    return pd.DataFrame(rows, columns=["item", "unit", "field", "value"])


def project_checks(project: Project, labels: pd.DataFrame, gold: pd.DataFrame) -> list[Check]:
    """The task type's consistency checks, given the items' reference labels where the import had them."""
    references = dict(db.session.execute(select(Item.external_id, Item.reference)
                                         .where(Item.project_id == project.id, Item.reference.is_not(None))).all())
    return task_type(project.task_type).checks(labels, gold, references)


def gold_summary(project: Project, gold: pd.DataFrame | None = None) -> GoldSummary:
    return task_type(project.task_type).gold_summary(gold_frame(project) if gold is None else gold)


def project_agreement(project: Project, labels: pd.DataFrame | None = None) -> list[FieldAgreement]:
    labels = labels_frame(project) if labels is None else labels
    return agreement(task_type(project.task_type).agreement_units(labels))
