"""Admin: a project's items one by one, the least agreed first, each with its gold and its votes.

Why: a project-wide kappa says how reliable the data is; this page says *where* it is not, so an admin
can read the texts annotators split over (unclear guidelines, a bad item, a careless annotator) and
see each unit's gold next to the votes behind it. Ranking uses the task type's first agreement field
and agreement.item_agreement. How an item is
drawn comes from templates/admin/items/<task type>.html, or the generic table when there is none.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from flask import Blueprint, abort, render_template, request
from flask.typing import ResponseReturnValue
from sqlalchemy import select

from annotator.analysis.results import labels_frame
from annotator.core.extensions import db
from annotator.core.models import Item, Project, User
from annotator.figures.kept import Freshness, Kept, StillComputing
from annotator.figures.kept_figures import ItemFigures, kept_figure
from annotator.figures.kept_gold import gold_frame
from annotator.people.access import admin_required
from annotator.tasks import TaskType, project_task
from annotator.web.common import Page, project_or_404
from annotator.web.forms import ActionForm

if TYPE_CHECKING:
    import pandas as pd

    from annotator.analysis.model_fields import FieldPosteriors

bp = Blueprint("items", __name__, url_prefix="/admin/projects/<slug>/items")
PER_PAGE = 25
ORDERS = {"lowest": "lowest agreement first", "highest": "highest agreement first", "position": "file order"}


@dataclass(frozen=True)
class ItemRow:
    item: Item
    public: dict[str, Any]
    agreement: dict[str, Any]                 # units, observed, kappa (None when not computable)
    gold: dict[str, dict[str, Any]]           # unit -> its gold row
    votes: list[tuple[str, dict[str, str]]]   # (annotator, unit -> value) in vote order
    vote_fields: dict[str, str] = field(default_factory=dict)  # a vote's column -> the label field it holds
    model: list[ModelCell] = field(default_factory=list)       # the annotator model's label of each unit


@dataclass(frozen=True)
class ModelCell:
    """One unit of an item as the annotator model sees it: for admins only, beside the item's gold."""

    field: str
    unit: str              # the unit within the item ("" when the field has one unit per item)
    label: str
    posterior: float


@bp.route("/")
@admin_required
def index(slug: str) -> ResponseReturnValue:
    project = project_or_404(slug)
    task = project_task(project)
    order = request.args.get("order", "lowest")
    page = request.args.get("page", 1, type=int)
    if order not in ORDERS or page < 1:
        abort(404, "There is no such page of items.")
    figures = kept_figure(project, "items")  # kept for a big project, else computed now (pending items too)
    ranking = ordered(figures.value.ranking, order)
    shown_page = Page(page, len(ranking), PER_PAGE)
    if page > shown_page.pages:
        abort(404, f"There are {shown_page.pages} pages of items.")
    shown = ranking.iloc[shown_page.start:shown_page.stop]
    summary = kept_figure(project, "summary")
    model = model_figure(project)
    return render_template("admin/items.html", project=project, task=task, field=figures.value.field, order=order,
                           orders=ORDERS, page=page, pages=shown_page.pages, total=len(ranking),
                           agreement=summary.value.agreement, action=ActionForm(),
                           settings=task.settings_of(project), model_computing=model is None,
                           rows=item_rows(project, task, shown_labels(project, figures.value, shown), shown,
                                          figures.value.gold, model.value if model is not None else None),
                           freshness=older(figures, summary, *([model] if model is not None else [])))


def model_figure(project: Project) -> Kept | None:
    """The annotator model's posteriors (figures/kept_figures.py, "model"): kept for a big project, else computed
    now. None while a big project's are first computed: the page shows its items without them meanwhile, rather
    than waiting for the longest computation of all."""
    try:
        return kept_figure(project, "model")
    except StillComputing:
        return None


def ordered(ranking: pd.DataFrame, order: str) -> pd.DataFrame:
    """Every item in the asked order: file order, or by agreement (items without any come last either way)."""
    if order == "position":
        return ranking
    return ranking.sort_values(["observed", "position"], ascending=[order == "lowest", True], na_position="last")


def shown_labels(project: Project, figures: ItemFigures, shown: pd.DataFrame) -> pd.DataFrame:
    """The label rows of the shown items only (pending ones too), less the annotators left out of gold."""
    labels = labels_frame(project, include_incomplete=True, by_kappa=False,
                          items=[str(i) for i in shown["item"]])
    return labels[~labels["user_id"].isin(figures.left_out)] if figures.left_out else labels


def older(*figures: Kept) -> Freshness | None:
    """The freshness of the oldest of the figures a page shows (None when all are current)."""
    known = [f.freshness for f in figures if f.freshness is not None]
    return min(known, key=lambda f: f.as_of) if known else None


def item_rows(project: Project, task: TaskType, labels: pd.DataFrame, shown: pd.DataFrame,
              gold: pd.DataFrame | None = None, model: list[FieldPosteriors] | None = None) -> list[ItemRow]:
    """What the page draws of the shown items: the item, its gold per unit and its votes. `gold`: the
    project's (results.gold_frame over all its labels) when the caller has it, and `labels` must then hold the
    votes of the shown items at least; else it is computed from `labels` (all of them, or for a type whose
    gold is per item, those of the shown items). `model`: the annotator model's fields, whose categorical
    ones (TaskType.model_fields) give each item's labels and posteriors."""
    wanted = list(shown["item"])
    cells = model_cells(task, model or [], wanted)
    items = {i.external_id: i for i in db.session.scalars(
        select(Item).where(Item.project_id == project.id, Item.external_id.in_(wanted)))}
    mine = labels[labels["item"].isin(wanted)]
    if gold is None:
        gold = gold_frame(project, labels)
    gold = gold[gold["item"].isin(wanted)] if not gold.empty else gold
    names = dict(db.session.execute(select(User.id, User.username)
                                    .where(User.id.in_([int(u) for u in mine["user_id"].unique()]))).all())
    settings = task.settings_of(project)
    several = mine["field"].nunique() > 1  # then a vote's columns are "unit field"
    # Grouped in plain Python: a page holds a few hundred label rows, and a pandas selection per item and per
    # vote cost more than the rest of the page together.
    labels_of: dict[str, list[dict[str, Any]]] = {}
    for row in mine[["item", "unit", "field", "value", "user_id", "assignment_id"]].to_dict("records"):
        labels_of.setdefault(row["item"], []).append(row)
    gold_of: dict[str, list[dict[str, Any]]] = {}
    for row in (gold.to_dict("records") if not gold.empty else []):
        gold_of.setdefault(row["item"], []).append(row)
    rows = []
    for record in shown.itertuples():
        item_labels = labels_of.get(record.item, [])
        by_vote: dict[tuple[int, int], list[dict[str, Any]]] = {}
        for row in item_labels:
            by_vote.setdefault((int(row["assignment_id"]), int(row["user_id"])), []).append(row)
        votes = [(names.get(user, str(user)), {_label_name(row, several): row["value"] for row in by_vote[key]})
                 for key in sorted(by_vote) for user in (key[1],)]
        rows.append(ItemRow(items[record.item], task.public_item(items[record.item], settings),
                            {"units": _number(record.units), "observed": _number(record.observed),
                             "kappa": _number(record.kappa)},
                            {row["unit"]: row for row in gold_of.get(record.item, [])}, votes,
                            {_label_name(row, several): row["field"] for row in item_labels},
                            cells.get(record.item, [])))
    return rows


def model_cells(task: TaskType, model: list[FieldPosteriors], items: list[str]) -> dict[str, list[ModelCell]]:
    """item -> the model's label and posterior of each of its units, in the fields' order."""
    shown = set(task.model_fields(f.field for f in model))
    cells: dict[str, list[ModelCell]] = {}
    for fit in model:
        if fit.field not in shown:
            continue
        for item, units in fit.of_items(items).items():
            cells.setdefault(item, []).extend(
                ModelCell(fit.field, _within(item, u.unit, fit.field), u.label, u.confidence) for u in units)
    return cells


def _within(item: str, unit: str, field: str) -> str:
    """The unit's name within its item: a declared campaign's units are "<item> / <unit>", and a unit named
    as its question is the question's only one (then "")."""
    name = unit[len(item) + 3:] if unit.startswith(f"{item} / ") else unit
    return "" if name == field else name


def _label_name(row: dict[str, Any], several: bool) -> str:
    return f"{row['unit']} {row['field']}" if several else str(row["unit"])


def _number(value: Any) -> Any:
    import pandas as pd
    return None if value is None or pd.isna(value) else value
