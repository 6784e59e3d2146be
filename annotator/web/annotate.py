"""The annotator's pages: the project list and the HIT loop (show the leased item, take the vote)."""
from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, render_template, url_for
from flask_login import current_user, login_required
from sqlalchemy import select

from .. import assignment as engine
from ..extensions import db
from ..models import Assignment, Project
from ..projects import open_to
from ..results import annotator_progress
from ..tasks import AnswerError, settings_with_defaults, task_type
from .common import open_project, project_or_404

bp = Blueprint("annotate", __name__)


@bp.route("/")
@login_required
def index():  # type: ignore[no-untyped-def]
    projects = db.session.scalars(open_to(current_user)).all()
    rows = [(p, task_type(p.task_type), annotator_progress(current_user, p)) for p in projects]
    return render_template("annotate/index.html", rows=rows)


def _render_hit(project: Project, assignment: Assignment, form, status: int = 200):  # type: ignore[no-untyped-def]
    task = task_type(project.task_type)
    settings = settings_with_defaults(task, project.settings)
    return render_template(task.template, project=project, task=task, assignment=assignment, settings=settings,
                           item=task.public_item(assignment.item, settings, assignment.presentation), form=form,
                           progress=annotator_progress(current_user, project)), status


@bp.route("/p/<slug>/")
@login_required
def hit(slug: str):  # type: ignore[no-untyped-def]
    project = open_project(slug, current_user)
    assignment = engine.next_for(current_user, project)
    if assignment is None:
        return render_template("annotate/done.html", project=project,
                               progress=annotator_progress(current_user, project))
    task = task_type(project.task_type)
    return _render_hit(project, assignment, task.form_for(assignment.item, settings_with_defaults(task, project.settings)))


@bp.route("/p/<slug>/a/<int:assignment_id>", methods=["POST"])
@login_required
def submit(slug: str, assignment_id: int):  # type: ignore[no-untyped-def]
    project = project_or_404(slug)
    assignment = db.session.get(Assignment, assignment_id)
    if assignment is None or assignment.project_id != project.id:
        abort(404, "This HIT does not exist.")
    if assignment.user_id != current_user.id:
        abort(403, "This HIT belongs to another annotator.")
    task = task_type(project.task_type)
    form = task.form_for(assignment.item, settings_with_defaults(task, project.settings))
    if not form.validate_on_submit():
        return _render_hit(project, assignment, form, status=400)
    try:
        result = engine.submit(assignment_id, current_user, task.answer_from_form(assignment.item, form))
    except AnswerError as error:
        flash(str(error), "error")
        return _render_hit(project, assignment, form, status=400)
    except engine.AssignmentError as error:
        flash(str(error), "error")
        return redirect(url_for(".hit", slug=slug))
    if not result.created:
        flash("This HIT was already submitted; your first answer is kept.", "info")
    return redirect(url_for(".hit", slug=slug))
