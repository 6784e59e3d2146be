"""Admin: adjudication of the items a task's rule leaves undecided (types that declare `adjudicable`).

The admin answers through the HIT's own form, next to the annotators' votes; the answer is checked by
the task type like any vote and stored once per item (Adjudication, by annotator/actions/adjudication.py), and
wins over the rule in gold and in every export.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from sqlalchemy import select

from annotator.actions.adjudication import adjudicate
from annotator.analysis.results import gold_from_own_votes, labels_frame
from annotator.core.audit import who
from annotator.core.extensions import db
from annotator.core.models import Adjudication, Item, Project
from annotator.figures.kept_figures import kept_figure
from annotator.figures.kept_gold import gold_frame
from annotator.people.access import admin_required
from annotator.tasks import AnswerError, TaskType, project_task
from annotator.web.common import Page, project_or_404
from annotator.web.items import item_rows, model_figure

if TYPE_CHECKING:
    import pandas as pd

bp = Blueprint("review", __name__, url_prefix="/admin/projects/<slug>/review")
PER_PAGE = 100  # item links per page of each list


def _adjudicable(slug: str) -> tuple[Project, TaskType]:
    project = project_or_404(slug)
    task = project_task(project)
    if not task.adjudicable:
        abort(404, f"{task.title} projects have nothing to adjudicate.")
    return project, task


def _undecided(project: Project, task: TaskType) -> list[str]:
    return task.undecided(gold_frame(project))


@bp.route("/")
@admin_required
def index(slug: str) -> ResponseReturnValue:
    """The items left to decide and those decided, a page of each at a time: a big campaign leaves thousands
    undecided, and a link for each made the page slow to draw (bench/results/2026-11-27-admin-pages.md)."""
    project, task = _adjudicable(slug)
    undecided = kept_figure(project, "undecided")  # kept for a big project, else computed now
    decided = list(db.session.scalars(select(Item.external_id).join(Adjudication, Adjudication.item_id == Item.id)
                                      .where(Adjudication.project_id == project.id).order_by(Item.position)))
    now_decided = set(decided)
    undecided_ids, undecided_page = _page_of([i for i in undecided.value if i not in now_decided], "page")
    decided_ids, decided_page = _page_of(decided, "decided_page")
    return render_template("admin/review_list.html", project=project, task=task, undecided_ids=undecided_ids,
                           undecided=undecided_page, decided_ids=decided_ids, decided=decided_page,
                           words=_item_words(project, task, undecided_ids + decided_ids),
                           freshness=undecided.freshness)


def _item_words(project: Project, task: TaskType, external_ids: list[str]) -> dict[str, str]:
    """The listed items in words (their links say the item's text, not its id): the page's items only."""
    if not external_ids:
        return {}
    rows = db.session.execute(select(Item.external_id, Item.payload).where(
        Item.project_id == project.id, Item.external_id.in_(external_ids)))
    return {external_id: task.item_words(payload) for external_id, payload in rows}


def _page_of(ids: list[str], arg: str) -> tuple[list[str], Page]:
    """The ids on the page the request's `arg` asks for (the first when it asks for none), and that page."""
    page = Page(request.args.get(arg, 1, type=int), len(ids), PER_PAGE)
    if page.number < 1:
        abort(404, "There is no such page.")
    if page.number > page.pages:
        abort(404, f"This list has {page.pages} page{'s' if page.pages > 1 else ''}.")
    return ids[page.start:page.stop], page


@bp.route("/<path:external_id>", methods=["GET", "POST"])
@admin_required
def item(slug: str, external_id: str) -> ResponseReturnValue:
    import pandas as pd
    project, task = _adjudicable(slug)
    item = db.session.scalar(select(Item).where(Item.project_id == project.id, Item.external_id == external_id))
    if item is None:
        abort(404, f"The project has no item {external_id!r}.")
    settings = task.settings_of(project)
    form = task.form_for(item, settings)
    if form.validate_on_submit():
        try:
            adjudicate(project, item, task.answer_from_form(item, form), who())
        except AnswerError as error:
            flash(str(error), "error")
        else:
            flash(f"{external_id} decided.", "info")
            left = [i for i in _undecided(project, task) if i != external_id]
            return redirect(url_for(".item", slug=slug, external_id=left[0]) if left else url_for(".index", slug=slug))
    labels = _labels_for_gold_of(project, task, external_id)
    model = model_figure(project)  # the annotator model's label and posterior of the item's units
    row = item_rows(project, task, labels, pd.DataFrame({"item": [external_id], "units": [None],
                                                         "observed": [None], "kappa": [None]}),
                    model=model.value if model is not None else None)[0]
    current = db.session.scalar(select(Adjudication).where(Adjudication.item_id == item.id))
    return render_template("admin/review.html", project=project, task=task, settings=settings, form=form,
                           item=task.public_item(item, settings), row=row, current=current,
                           left=len(_undecided(project, task))), 400 if form.errors else 200


def _labels_for_gold_of(project: Project, task: TaskType, external_id: str) -> pd.DataFrame:
    """The labels an item's gold is computed from: its own where they alone give it (results.gold_from_own_votes),
    else every counted label of the project."""
    if gold_from_own_votes(project):
        return labels_frame(project, items=[external_id])
    return labels_frame(project)

