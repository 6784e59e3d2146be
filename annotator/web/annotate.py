"""The annotator's pages: the project list and the HIT loop (show the leased item, take the vote)."""
from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_login import current_user, login_required
from flask_wtf import FlaskForm
from sqlalchemy import select

from annotator.analysis.results import annotator_progress
from annotator.campaigns.projects import closed_to, open_to
from annotator.core.extensions import db
from annotator.core.models import LEASED, Assignment, Project, utcnow
from annotator.engine import assignment as engine
from annotator.quality import quality_settings
from annotator.quality.state import stop_of
from annotator.tasks import AnswerError, project_task
from annotator.web.common import home_url, open_project, project_or_404
from annotator.web.crowd import elsewhere as crowd_step
from annotator.web.crowd import session_progress as hit_progress
from annotator.web.forms import ActionForm

bp = Blueprint("annotate", __name__)


@bp.route("/")
@login_required
def index() -> ResponseReturnValue:
    """The annotator's projects; an admin starts on the admin's projects instead (web/common.home_url)."""
    if current_user.is_admin:
        return redirect(home_url(current_user))
    projects = db.session.scalars(open_to(current_user)).all()
    rows = [(p, project_task(p), annotator_progress(current_user, p)) for p in projects]
    return render_template("annotate/index.html", rows=rows)


def _render_hit(project: Project, assignment: Assignment, form: FlaskForm, status: int = 200) -> ResponseReturnValue:
    task = project_task(project)
    settings = task.settings_of(project)
    return render_template(task.template, project=project, task=task, assignment=assignment, settings=settings,
                           item=task.public_item(assignment.item, settings, assignment.presentation), form=form,
                           progress=hit_progress(project)), status


def _open_lease(project: Project) -> Assignment | None:
    """The annotator's running lease in the project, read only (the engine hands leases out on POST)."""
    return db.session.scalars(select(Assignment).where(
        Assignment.user_id == current_user.id, Assignment.project_id == project.id,
        Assignment.status == LEASED, Assignment.expires_at > utcnow())).first()


@bp.route("/p/<slug>/")
@login_required
def hit(slug: str) -> ResponseReturnValue:
    """The running HIT; otherwise a Start button (a GET changes nothing: leasing is a POST, `start`)."""
    project = open_project(slug, current_user)
    study_over = crowd_step(project)  # a crowd worker whose study is over gets its code instead
    if study_over:
        return redirect(study_over)
    assignment = _open_lease(project)
    stop = stop_of(current_user, project) if assignment is None else None
    if stop is not None:
        return _stopped(project, stop.reason, stop.blocked)
    if assignment is None:
        progress = annotator_progress(current_user, project)
        if progress.done < progress.available:  # a crowd worker is shown their study session's count
            shown = hit_progress(project) if current_user.is_crowd else progress
            return render_template("annotate/start.html", project=project, progress=shown, form=ActionForm())
        return _nothing_left(project)
    task = project_task(project)
    return _render_hit(project, assignment,
                       task.form_for(assignment.item, task.settings_of(project)))


@bp.post("/p/<slug>/next")
@login_required
def start(slug: str) -> ResponseReturnValue:
    """Lease the next HIT (or resume the running one), then show it."""
    project = open_project(slug, current_user)
    if not ActionForm().validate_on_submit():
        abort(400, "The form expired: please reload the page and press Start again.")
    try:
        leased = engine.next_for(current_user, project)
    except engine.ScreenedOut as stop:
        return _stopped(project, str(stop), stop.blocked)
    if leased is None:
        return _nothing_left(project)
    return redirect(url_for(".hit", slug=slug))


def _nothing_left(project: Project) -> ResponseReturnValue:
    """No HIT could be leased. Items left for this annotator are all held by others' running HITs: a page
    that says so, with a button to try again (sending them to the study's end or the Start page would send
    them back here, round and round). Otherwise nothing is left: the done page, or a crowd study's end."""
    left = annotator_progress(current_user, project)
    if left.done < left.available:
        return render_template("annotate/busy.html", project=project, progress=hit_progress(project),
                               form=ActionForm())
    if current_user.is_crowd:
        return redirect(url_for("crowd.done", slug=project.slug))
    return render_template("annotate/done.html", project=project, progress=left)


def _stopped(project: Project, reason: str, blocked: bool) -> ResponseReturnValue:
    """Quality control stopped this annotator (blocked, or failed the quiz): the page says why, with 403."""
    return render_template("annotate/stopped.html", project=project, reason=reason, blocked=blocked), 403


def _submit_opened(slug: str) -> ResponseReturnValue:
    """The submit address opened (a reload after a refused answer, a bookmark): back to the HIT, saying so."""
    open_project(slug, current_user)
    flash("Nothing was sent from that address: answers are sent only by the Submit button. "
          "Your HIT is below (or the next one): answer it and press Submit.", "info")
    return redirect(url_for(".hit", slug=slug))


@bp.route("/p/<slug>/a/<int:assignment_id>", methods=["GET", "POST"])  # one rule: a huge id stays a 404
@login_required
def submit(slug: str, assignment_id: int) -> ResponseReturnValue:
    if request.method == "GET":
        return _submit_opened(slug)
    project = project_or_404(slug)
    assignment = db.session.get(Assignment, assignment_id)
    if assignment is None or assignment.project_id != project.id:
        abort(404, "This HIT does not exist.")
    if assignment.user_id != current_user.id:
        abort(403, "This HIT belongs to another annotator.")
    task = project_task(project)
    form = task.form_for(assignment.item, task.settings_of(project))
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
    elif result.control is not None and quality_settings(project).control_feedback:
        flash(("Correct. " if result.control.correct else "Not quite. ") + "The known answer: " + result.control.known,
              "info" if result.control.correct else "error")
    if closed_to(project, current_user) is None and crowd_step(project) is None:  # not at a study's end
        try:
            engine.next_for(current_user, project)  # this POST leases the next HIT, which the redirect shows
        except engine.ScreenedOut:
            pass  # the redirect shows why there is no next HIT
    return redirect(url_for(".hit", slug=slug))
