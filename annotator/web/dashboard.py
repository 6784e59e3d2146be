"""The project dashboard: SVG charts drawn on the server (annotator/analysis/dashboard.py has the figures)."""
from __future__ import annotations

from flask import Blueprint, render_template
from flask.typing import ResponseReturnValue

from annotator.analysis.dashboard import dashboard_charts, unit_names
from annotator.figures.kept_figures import kept_figure
from annotator.people.access import admin_required
from annotator.tasks import project_task
from annotator.web.common import project_or_404

bp = Blueprint("dashboard", __name__, url_prefix="/admin")


@bp.route("/projects/<slug>/dashboard")
@admin_required
def show(slug: str) -> ResponseReturnValue:
    project = project_or_404(slug)
    figures = kept_figure(project, "dashboard")  # kept for a big project, else computed now
    task = project_task(project)
    # Figures kept before the units' words were kept with them have none: found now, as they were before.
    names = figures.value.get("unit_names")
    charts = dashboard_charts(figures.value, task, unit_names(project, task, figures.value) if names is None else names)
    return render_template("admin/dashboard.html", project=project, charts=charts, freshness=figures.freshness)
