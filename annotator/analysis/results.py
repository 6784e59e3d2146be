"""What a project's votes add up to: progress, the label frame, gold and agreement.

Everything here is a pure function of the stored rows, so it can be recomputed at any time and
gives the same answer. The label frame is read with one SELECT, and it is the one place that says
which votes count (see annotator/quality): those of complete items that are not control items
(pending items only when asked: `include_incomplete`, which an export asked for passes down), and not of
annotators the project leaves out of gold. What counts is always a parameter, never a setting of the
calling context, so a function here gives the same answer wherever it is called from.
"""
from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import and_, func, select

from annotator.analysis.agreement import FieldAgreement, field_agreement
from annotator.analysis.annotator_kappas import low_kappa_annotators
from annotator.analysis.label_reader import INT, TEXT, read_columns
from annotator.core.extensions import db
from annotator.core.models import LEASED, SUBMITTED, Adjudication, Assignment, Item, Label, Project, User, utcnow
from annotator.core.quality_settings import quality_settings, target_sql
from annotator.tasks import Check, project_task
from annotator.tasks.base import GoldFromReferences, GoldSummary

if TYPE_CHECKING:
    import pandas as pd

LABEL_COLUMNS = ["item", "position", "unit", "field", "value", "user_id", "assignment_id"]
FEW_ITEMS = 1000  # items read by name in one statement (below every engine's limit of bound parameters)


def item_target(project: Project) -> Any:
    """The votes an item needs now, as SQL: its own target (dynamic overlap) or the project's k."""
    return target_sql(project)


def counted_items(project: Project, include_incomplete: bool = False) -> Any:
    """SQL condition on Item: the items whose votes count (no control item; complete unless `include_incomplete`)."""
    condition = Item.is_control.is_(False)
    return condition if include_incomplete else and_(condition, Item.done_count >= item_target(project))


def counted_votes(project: Project, include_incomplete: bool = False) -> Any:
    """SQL condition on Assignment joined with Item: the votes that count, for code that reads answers whole."""
    return and_(Assignment.project_id == project.id, Assignment.status == SUBMITTED,
                Assignment.excluded.is_(False), counted_items(project, include_incomplete))


@dataclass(frozen=True)
class ProjectProgress:
    """Counts over the ordinary items (control items are apart: they never complete)."""

    items: int
    complete: int
    votes: int
    votes_needed: int
    open_leases: int

    @property
    def pending(self) -> int:
        """Items without their k votes yet: left out of gold, agreement and exports unless asked for."""
        return self.items - self.complete

    @property
    def percent(self) -> float:
        return min(100.0, 100.0 * self.votes / self.votes_needed) if self.votes_needed else 100.0


@dataclass(frozen=True)
class AnnotatorProgress:
    done: int
    available: int  # done plus the items this annotator could still be given

    @property
    def percent(self) -> float:
        return min(100.0, 100.0 * self.done / self.available) if self.available else 100.0


def project_progress(project: Project, now: datetime | None = None) -> ProjectProgress:
    now = now or utcnow()
    target = item_target(project)
    items, complete, votes, needed = db.session.execute(
        select(func.count(Item.id),
               func.coalesce(func.sum((Item.done_count >= target).cast(db.Integer)), 0),
               func.coalesce(func.sum(Item.done_count), 0), func.coalesce(func.sum(target), 0))
        .where(Item.project_id == project.id, Item.is_control.is_(False))).one()
    leases = db.session.scalar(select(func.count()).where(
        Assignment.project_id == project.id, Assignment.status == LEASED, Assignment.expires_at > now))
    return ProjectProgress(int(items), int(complete), int(votes), int(needed), int(leases or 0))


def annotator_progress(user: User, project: Project) -> AnnotatorProgress:
    """Ordinary items only: a control item answered would add one to both numbers (it is never among the
    open items), so the total would jump while the annotator worked; controls are not counted at all."""
    done = db.session.scalar(select(func.count()).select_from(Assignment).join(Item, Item.id == Assignment.item_id)
                             .where(Assignment.project_id == project.id, Assignment.user_id == user.id,
                                    Assignment.status == SUBMITTED, Item.is_control.is_(False))) or 0
    # Scoped to the project: this runs on every HIT page, and an annotator's other projects don't count.
    voted = select(Assignment.item_id).where(Assignment.user_id == user.id, Assignment.project_id == project.id,
                                             Assignment.status == SUBMITTED)
    open_items = db.session.scalar(select(func.count()).where(
        Item.project_id == project.id, Item.done_count < item_target(project), Item.is_control.is_(False),
        Item.id.not_in(voted))) or 0
    return AnnotatorProgress(int(done), int(done) + int(open_items))


def labels_frame(project: Project, include_incomplete: bool = False, by_kappa: bool = True,
                 items: Collection[str] | None = None) -> pd.DataFrame:
    """The label rows that count, with their item's external id, in item then vote order.

    Counted: complete items (all, with `include_incomplete`), never control items; excluded votes have no label
    rows. None of this adds a query. With the project's `gold_min_kappa` set (and `by_kappa`), annotators whose
    mean kappa is below it are left out. `items`: only the label rows of these items (external ids), e.g. the
    page of items an admin looks at.

    Read for speed (a million rows, bench/aggregate.py): the rows come through the engine's fastest reader
    (annotator/analysis/label_reader.py) in no order, with the item's id rather than its external id (one string
    less per row); the order (item position, vote, label id) is then a sort of integer columns, and the
    external ids are looked up in the project's items, one string object per item.
    """
    import numpy as np
    import pandas as pd

    connection = db.session.connection()
    query = (select(Label.item_id, Label.unit, Label.field, Label.value, Label.user_id, Label.assignment_id, Label.id)
             .join(Item, Item.id == Label.item_id).where(counted_items(project, include_incomplete)))
    shown = select(Item.id, Item.external_id, Item.position).where(Item.project_id == project.id)
    if items is None:
        query = query.where(Label.project_id == project.id)
    else:  # a big project's page of items: by a list of the project's item ids alone, which the labels are
        # indexed by (with `project_id = ?` beside it, or a subquery, SQLite's planner read the project's million
        # labels through ix_labels_project)
        ids = db.session.scalars(select(Item.id).where(Item.project_id == project.id,
                                                       Item.external_id.in_(list(items)))).all()
        query = query.where(Label.item_id.in_(ids))
        shown = shown.where(Item.id.in_(ids))
    columns = read_columns(connection, query, {"item_id": INT, "unit": TEXT, "field": TEXT, "value": TEXT,
                                               "user_id": INT, "assignment_id": INT, "id": INT},
                           few=items is not None and len(items) <= 1000)
    if not len(columns["id"]):
        return pd.DataFrame([], columns=LABEL_COLUMNS)
    # Read after the labels, so every item they name is there (items are only deleted with their project).
    ids, names, positions = zip(*connection.execute(shown))
    by_id = np.argsort(np.array(ids, dtype=np.int64))
    row_of = by_id[np.searchsorted(np.array(ids, dtype=np.int64)[by_id], columns["item_id"])]
    columns["position"] = np.array(positions, dtype=np.int64)[row_of]
    order = np.lexsort((columns.pop("id"), columns["assignment_id"], columns["position"]))
    del columns["item_id"]
    # Each item's external id made a string once; text columns stay in pandas' own string storage. Put in order
    # one column at a time, each read column let go once its ordered copy is made: a million rows' columns in
    # both orders at once were some 80 MB more of the kept figures' peak.
    columns["item"] = pd.array(list(names), dtype="str")[row_of[order]]
    del row_of
    frame = pd.DataFrame({name: columns.pop(name) if name == "item" else columns.pop(name)[order]
                          for name in LABEL_COLUMNS})
    return without_low_kappa(project, frame) if by_kappa else frame


def without_low_kappa(project: Project, frame: pd.DataFrame) -> pd.DataFrame:
    """The label rows less those of annotators whose mean kappa is below the project's `gold_min_kappa`."""
    if quality_settings(project).gold_min_kappa is None:
        return frame
    low = low_kappa_annotators(project, frame)
    return frame[~frame["user_id"].isin(low)].reset_index(drop=True) if low else frame


def gold_from_own_votes(project: Project) -> bool:
    """Whether each item's gold is computed from that item's own votes alone: its type's rule is per item
    (`TaskType.gold_per_item`) and no annotator is left out of gold by kappa (which reads everyone's votes). Then
    one item's gold needs only its label rows (the review page), and the gold of the items whose votes did not
    change stays as it was (figures/kept_gold.py)."""
    return project_task(project).gold_per_item and quality_settings(project).gold_min_kappa is None


def computed_gold(project: Project, labels: pd.DataFrame | None = None,
                  include_incomplete: bool = False) -> pd.DataFrame:
    """Gold by the task's rule from the label rows (without `labels`: the counted ones, read now, pending items
    too with `include_incomplete`), with an admin's adjudications winning where there are any. Always computed:
    `figures.kept_gold.gold_frame` is the project's gold as exports read it, from a big project's kept figures
    where they are current."""
    task = project_task(project)
    settings = task.settings_of(project)
    given = labels is not None
    labels = labels_frame(project, include_incomplete) if labels is None else labels
    if task.gold_uses_references:
        # A rule per item reads its own items' references only: a page's 25 items need not read 111,000 of them
        # (28 of an items page's 37 ms of gold on PostgreSQL, bench/results/2026-11-29-items-pages.md).
        items = labels["item"].unique().tolist() if given and task.gold_per_item else None
        items = items if items is not None and len(items) <= FEW_ITEMS else None
        gold = cast(GoldFromReferences, task).gold(labels, settings, references=item_references(project, items))
    else:
        gold = task.gold(labels, settings)
    if task.adjudicable:
        decided = adjudication_labels(project)
        if not decided.empty:
            gold = task.adjudicate(gold, decided)
    return gold


def adjudication_labels(project: Project) -> pd.DataFrame:
    """The adjudicated answers as label rows (item, unit, field, value), made by the task's own `labels`."""
    task = project_task(project)
    settings = task.settings_of(project)
    rows = [(item.external_id, label.unit, label.field, label.value)
            for item, answer in db.session.execute(select(Item, Adjudication.answer)
                                                   .join(Adjudication, Adjudication.item_id == Item.id)
                                                   .where(Adjudication.project_id == project.id)
                                                   .order_by(Item.position))
            for label in task.labels(item, answer, settings)]
    import pandas as pd

    return pd.DataFrame(rows, columns=["item", "unit", "field", "value"])


def item_references(project: Project, items: Collection[str] | None = None) -> dict[str, Any]:
    """Item external id -> its reference answer, for the items whose import brought one (of `items` only, when
    given)."""
    query = select(Item.external_id, Item.reference).where(Item.project_id == project.id,
                                                           Item.reference.is_not(None))
    if items is not None:
        query = query.where(Item.external_id.in_(list(items)))
    return dict(db.session.execute(query).all())


def project_checks(project: Project, labels: pd.DataFrame, gold: pd.DataFrame) -> list[Check]:
    """The task type's consistency checks, given the items' reference labels where the import had them."""
    return project_task(project).checks(labels, gold, item_references(project))


def gold_summary(project: Project, gold: pd.DataFrame | None = None) -> GoldSummary:
    return project_task(project).gold_summary(computed_gold(project) if gold is None else gold)


def project_agreement(project: Project, labels: pd.DataFrame | None = None,
                      intervals: bool = False, include_incomplete: bool = False) -> list[FieldAgreement]:
    """Agreement per field of `labels` (by default the counted ones, pending items too with `include_incomplete`);
    `intervals`: with each coefficient's 95% bootstrap interval (analysis/intervals.py)."""
    labels = labels_frame(project, include_incomplete) if labels is None else labels
    # One field made at a time, each let go once its figures are made: at a million labels a RuArg-2022 project's ten
    # fields hold some 190 MB, which were made all at once (bench/results/2026-11-29-kept-figures-memory.md).
    found = []
    for name, units in project_task(project).agreement_fields(labels):
        found.append(field_agreement(name, units, intervals))
        del units
    return found
