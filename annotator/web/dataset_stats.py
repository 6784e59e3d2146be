"""The admin's dataset statistics page: the shared task's dataset table of a project (with other projects of
its format, e.g. the train, dev and test projects together), and drawing a seeded train/dev/test split."""
from __future__ import annotations

from flask import Blueprint, Response, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from sqlalchemy import select
from wtforms import IntegerField, StringField
from wtforms.validators import DataRequired, InputRequired, Length

from annotator.actions import splits as split_actions
from annotator.campaigns.splits import (
    SplitError,
    assigned_split,
    item_split_csv,
    parse_names,
    parse_sizes,
)
from annotator.core.audit import who
from annotator.core.extensions import db
from annotator.core.forms import Form
from annotator.core.models import Project
from annotator.people.access import admin_required
from annotator.shared_tasks.dataset_stats import StatsError, dataset_report, stats_for
from annotator.shared_tasks.stats_base import LABEL_SOURCES
from annotator.web.common import project_or_404

bp = Blueprint("dataset_stats", __name__, url_prefix="/admin")


class SplitForm(Form):
    sizes = StringField("Split sizes, one per split (they add up to the item count)",
                        validators=[DataRequired(), Length(max=200)], render_kw={"placeholder": "2741,392,743"})
    seed = IntegerField("Seed (the same seed draws the same split)", validators=[InputRequired()])
    names = StringField("Split names", default="train,dev,test", validators=[DataRequired(), Length(max=200)])


@bp.route("/projects/<slug>/stats")
@admin_required
def show(slug: str) -> ResponseReturnValue:
    project = project_or_404(slug)
    labels = request.args.get("labels", "auto")
    if labels not in LABEL_SOURCES:
        labels = "auto"
    others = _same_format(project)
    chosen = [p for p in others if p.slug in request.args.getlist("with")]
    report, problem = None, None
    try:
        stats_for(project)
        report = dataset_report([project, *chosen], labels)
    except StatsError as error:
        problem = str(error)
    return render_template("admin/dataset_stats.html", project=project, report=report, problem=problem,
                           others=others, chosen={p.slug for p in chosen}, labels=labels, sources=LABEL_SOURCES,
                           split=assigned_split(project), form=SplitForm(formdata=None))


@bp.route("/projects/<slug>/split", methods=["POST"])
@admin_required
def draw_split(slug: str) -> ResponseReturnValue:
    """Draw (or draw again) the project's split; a refused one is said in words and changes nothing."""
    project = project_or_404(slug)
    form = SplitForm()
    if not form.validate_on_submit():
        flash("No split drawn: " + "; ".join(e for errors in form.errors.values() for e in errors), "error")
        return redirect(url_for(".show", slug=slug))
    try:
        split = split_actions.draw_split(project, parse_sizes(form.sizes.data), form.seed.data, who(),
                                         parse_names(form.names.data))
    except SplitError as error:
        flash(f"No split drawn: {error}.", "error")
    else:
        flash(f"Split drawn with seed {split.seed}: " + ", ".join(f"{n} {s}" for n, s in zip(split.names, split.sizes))
              + ".", "info")
    return redirect(url_for(".show", slug=slug))


@bp.route("/projects/<slug>/split.csv")
@admin_required
def split_csv(slug: str) -> ResponseReturnValue:
    """Each item's split (item,split), in item order."""
    project = project_or_404(slug)
    return Response(item_split_csv(project), mimetype="text/csv",
                    headers={"Content-Disposition": f"attachment; filename={project.slug}-split.csv"})


def _same_format(project: Project) -> list[Project]:
    """The other projects imported from the project's format, by slug."""
    name = (project.source or {}).get("format")
    if not name:
        return []
    return [p for p in db.session.scalars(select(Project).where(Project.id != project.id).order_by(Project.slug))
            if (p.source or {}).get("format") == name]
