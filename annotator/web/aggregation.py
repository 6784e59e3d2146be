"""Admin page of the annotator model: Dawid-Skene labels per field beside the task's gold.

The figures are the kept ones (figures/kept_figures.py, "model_page": Dawid-Skene seeded with the control items' known
answers, as `flask aggregate --seed-controls` gives them, each field's fit with the units this page lists), so that a
big project's page reads what was computed rather than running EM over every vote on each request (8-9 s at a
million labels before), and only the units it lists rather than every field's (analysis/model_fields.py, FieldPage).
"""
from __future__ import annotations

from flask import Blueprint, render_template
from flask.typing import ResponseReturnValue

from annotator.analysis.model_fields import SHOWN_UNITS
from annotator.figures.kept_figures import kept_figure
from annotator.people.access import admin_required
from annotator.tasks import project_task
from annotator.web.common import project_or_404

bp = Blueprint("aggregation", __name__, url_prefix="/admin")


@bp.route("/projects/<slug>/dawid-skene")
@admin_required
def dawid_skene(slug: str) -> ResponseReturnValue:
    project = project_or_404(slug)
    model = kept_figure(project, "model_page")  # kept for a big project, else computed now
    shown = {f.field: f.shown for f in model.value}
    return render_template("admin/dawid_skene.html", project=project, task=project_task(project),
                           fields=model.value, shown=shown, limit=SHOWN_UNITS, freshness=model.freshness)
