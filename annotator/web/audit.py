"""Admin: the audit trail, newest first, filtered by project and action; the same as a CSV download."""
from __future__ import annotations

from flask import Blueprint, Response, render_template, request
from flask.typing import ResponseReturnValue

from annotator.core.audit import ACTIONS
from annotator.core.audit_trail import known_projects, trail_csv, trail_page
from annotator.people.access import admin_required

bp = Blueprint("audit", __name__, url_prefix="/admin/audit")


@bp.get("")
@admin_required
def index() -> ResponseReturnValue:
    project, action = request.args.get("project") or None, request.args.get("action") or None
    if request.args.get("format") == "csv":
        return Response(trail_csv(project, action), mimetype="text/csv",
                        headers={"Content-Disposition": "attachment; filename=audit.csv"})
    page = request.args.get("page", "1")
    trail = trail_page(project, action, int(page) if page.isdigit() and len(page) < 9 else 1)
    return render_template("admin/audit.html", trail=trail, project=project, action=action,
                           projects=known_projects(), actions=ACTIONS)
