"""Admin page of the other aggregations: Dawid-Skene labels per field beside the task's gold."""
from __future__ import annotations

from flask import Blueprint, render_template
from flask.typing import ResponseReturnValue

from annotator.analysis.aggregation import project_dawid_skene
from annotator.tasks import project_task
from annotator.web.auth import admin_required
from annotator.web.common import project_or_404

bp = Blueprint("aggregation", __name__, url_prefix="/admin")

SHOWN_UNITS = 300  # a page of units per field: the ones differing from gold first, then the least certain


@bp.route("/projects/<slug>/dawid-skene")
@admin_required
def dawid_skene(slug: str) -> ResponseReturnValue:
    project = project_or_404(slug)
    fields = project_dawid_skene(project)
    shown = {f.field: sorted(f.units, key=lambda u: (not u.differs, u.confidence))[:SHOWN_UNITS] for f in fields}
    return render_template("admin/dawid_skene.html", project=project, task=project_task(project),
                           fields=fields, shown=shown, limit=SHOWN_UNITS)
