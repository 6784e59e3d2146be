"""Crowd entry pages: a platform's link logs its worker in, the HITs run on the usual pages, and the study
ends on a page handing the completion (or screen-out) code back to the platform.

Mechanical Turk shows these pages in an iframe of its own site: those routes (and the HIT pages of an MTurk
session) may be framed by https://*.mturk.com, and the session cookie of an MTurk session is sent as
SameSite=None; Secure; Partitioned, which browsers accept over HTTPS only (see docs/crowd-entry.md).
"""
from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

from flask import (
    Blueprint,
    Flask,
    Request,
    Response,
    abort,
    make_response,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface
from flask.typing import ResponseReturnValue
from flask_login import current_user, login_required, login_user
from sqlalchemy import select

from annotator.analysis.results import AnnotatorProgress, annotator_progress
from annotator.core.extensions import db
from annotator.core.models import CrowdSession, Item, Project, utcnow
from annotator.people import crowd, crowd_entry
from annotator.people.crowd_limits import TooManyAccounts
from annotator.quality import screen_out_reason
from annotator.tasks import project_task
from annotator.web.common import open_project, project_or_404
from annotator.web.forms import ActionForm

bp = Blueprint("crowd", __name__, url_prefix="/crowd")

SESSION = "crowd"  # the Flask session's key: {"id": CrowdSession id, "project": slug, "platform": ...}
MTURK_FRAMING = "default-src 'self'; img-src 'self' data: https: http:; frame-ancestors https://*.mturk.com"


@bp.route("/<slug>/<platform>/<token>", methods=["GET", "POST"])
def enter(slug: str, platform: str, token: str) -> ResponseReturnValue:
    """A platform's link: the worker's study session (crowd_entry.py decides which, or refuses), logged in.

    A POST is the answer of the page that asks an admin or annotator signed in in this browser whether to
    sign out for the study (CSRF-checked like every form); nothing else posts here. Entering leases no HIT:
    the worker starts the first one on the HIT page."""
    project = project_or_404(slug)
    link = crowd.find_link(project, platform, token)
    if link is None:
        abort(404, "This study link is not valid (any more). Please contact the researcher.")
    if platform == "mturk" and request.args.get("assignmentId", crowd.MTURK_PREVIEW) == crowd.MTURK_PREVIEW:
        return _preview(project, link.hits)
    try:
        visit = crowd.prolific_visit(request.args) if platform == "prolific" else crowd.mturk_visit(request.args)
    except crowd.CrowdError as error:
        return _problem(project, str(error), 400)
    if request.method == "GET" and current_user.is_authenticated and not current_user.is_crowd:
        return render_template("crowd/signed_in.html", project=project, name=current_user.username,
                               form=ActionForm(), action=request.full_path)
    try:
        user, study = crowd_entry.admit(link, visit, request.remote_addr or "")
    except TooManyAccounts as error:
        response = _problem(project, str(error), error.status)
        if error.retry_after is not None:
            response.headers["Retry-After"] = str(error.retry_after)
        return response
    except crowd_entry.EntryRefused as error:
        return _problem(project, str(error), error.status)
    session.clear()  # a crowd worker's session, or none: one who was signed in otherwise said yes above
    login_user(user)
    session[SESSION] = {"id": study.id, "project": project.slug, "platform": platform}
    return redirect(url_for(".step", slug=slug))


def _problem(project: Project, message: str, status: int) -> Response:
    return make_response(render_template("crowd/problem.html", project=project, message=message), status)


def _preview(project: Project, hits: int) -> ResponseReturnValue:
    """MTurk's preview before a worker accepts: an example item on the HIT page, no lease, no account; the
    progress shows the study's length (0 of `hits`)."""
    item = db.session.scalar(select(Item).where(Item.project_id == project.id).order_by(Item.position).limit(1))
    if item is None:
        return render_template("crowd/problem.html", project=project, message="This study has no items yet."), 404
    task = project_task(project)
    settings = task.settings_of(project)
    presentation = task.presentation(item, random.Random(0))
    return render_template(task.template, project=project, task=task, preview=True, settings=settings,
                           assignment=SimpleNamespace(id=0, item=item, presentation=presentation),
                           item=task.public_item(item, settings, presentation), form=task.form_for(item, settings),
                           progress=AnnotatorProgress(0, hits))


def current_study(project: Project) -> CrowdSession | None:
    """The logged-in worker's study session of this project, from this browser's session."""
    info = session.get(SESSION)
    if not info or info.get("project") != project.slug or not current_user.is_authenticated:
        return None
    study = db.session.get(CrowdSession, info["id"])
    return study if study is not None and study.user_id == current_user.id else None


def session_progress(project: Project) -> AnnotatorProgress:
    """What the HIT page counts: a crowd worker's own study session (HITs done of the link's number, controls
    included, as the platform pays them), anyone else's items of the project."""
    study = current_study(project) if getattr(current_user, "is_crowd", False) else None
    if study is None:
        return annotator_progress(current_user, project)
    return AnnotatorProgress(min(crowd.hits_done(study), study.link.hits), study.link.hits)


def elsewhere(project: Project) -> str | None:
    """Where a crowd worker goes instead of the next HIT: the end of the study, when it is over; else None."""
    if not getattr(current_user, "is_crowd", False):
        return None
    study = current_study(project)
    if study is None:
        abort(403, "Please open this study from your crowd platform's page.")
    if screen_out_reason(current_user, project) is not None:
        return url_for("crowd.screened_out", slug=project.slug)
    if crowd.is_complete(study):
        return url_for("crowd.done", slug=project.slug)
    return None


@bp.route("/<slug>/")
@login_required
def step(slug: str) -> ResponseReturnValue:
    project = open_project(slug, current_user)
    return redirect(elsewhere(project) or url_for("annotate.hit", slug=slug))


@bp.route("/<slug>/done")
@login_required
def done(slug: str) -> ResponseReturnValue:
    """The completion code, handed to the platform; also when the project has nothing left for a worker who
    did at least one HIT (the study cannot be finished through no fault of theirs)."""
    project = project_or_404(slug)
    study = current_study(project)
    if study is None:
        abort(403, "Please open this study from your crowd platform's page.")
    if study.completed_at is None and not crowd.is_complete(study):
        progress = annotator_progress(current_user, project)
        if progress.done < progress.available:
            return redirect(url_for("annotate.hit", slug=slug))
        if crowd.hits_done(study) == 0:
            return render_template("crowd/problem.html", project=project,
                                   message="There are no HITs left in this study for you. Please return it "
                                           "on your platform; you have not been charged any time."), 409
    if study.completed_at is None:
        study.completed_at = utcnow()
        db.session.commit()
    return _hand_back(project, study, study.link.completion_code, "crowd/done.html")


@bp.route("/<slug>/screened-out")
@login_required
def screened_out(slug: str) -> ResponseReturnValue:
    project = project_or_404(slug)
    study = current_study(project)
    if study is None:
        abort(403, "Please open this study from your crowd platform's page.")
    reason = screen_out_reason(current_user, project)
    if reason is None and study.screened_out is None:
        return redirect(url_for(".step", slug=slug))
    if study.screened_out is None:
        study.screened_out = reason[:500] if reason else ""
        db.session.commit()
    return _hand_back(project, study, study.link.screen_out_code, "crowd/screened_out.html",
                      reason=study.screened_out)


def _hand_back(project: Project, study: CrowdSession, code: str, template: str,
               **extra: Any) -> str:
    """The page that gives `code` back: Prolific's completion URL, or the form MTurk expects posted."""
    target: dict[str, Any] = {}
    if study.link.platform == "prolific" and code:
        target = {"redirect": crowd.PROLIFIC_COMPLETE.format(code=code)}
    elif study.link.platform == "mturk":
        target = {"post": study.details["turk_submit_to"] + "/mturk/externalSubmit",
                  "fields": {"assignmentId": study.details["assignment_id"], "code": code}}
    return render_template(template, project=project, code=code, platform=study.link.platform, **target, **extra)


def _framed_by_mturk() -> bool:
    """Routes MTurk shows in its iframe: its entry and end pages, and the HIT pages of an MTurk session."""
    if request.blueprint == "crowd" and (request.view_args or {}).get("platform") == "mturk":
        return True
    info = session.get(SESSION) if request.blueprint in ("crowd", "annotate") else None
    return bool(info and info.get("platform") == "mturk")


def _mturk_framing(response: Response) -> Response:
    if _framed_by_mturk():
        response.headers["Content-Security-Policy"] = MTURK_FRAMING
    return response


class CrowdCookieSession(SecureCookieSessionInterface):
    """The session cookie of an MTurk session must reach us from inside MTurk's iframe (a third-party
    context): SameSite=None, which browsers accept only with Secure (HTTPS), and Partitioned for browsers
    that block third-party cookies. Every other session keeps the configured (Lax) cookie."""

    def open_session(self, app: Flask, incoming: Request) -> SecureCookieSession | None:
        """No session on the JSON API: it authenticates by bearer token, so reading, verifying and
        re-signing a cookie was only work on every next and submit (None: Flask's null session)."""
        if incoming.path.startswith("/api/"):
            return None
        return super().open_session(app, incoming)

    def get_cookie_samesite(self, app: Flask) -> str | None:
        return "None" if _framed_by_mturk() else super().get_cookie_samesite(app)

    def get_cookie_secure(self, app: Flask) -> bool:
        return True if _framed_by_mturk() else super().get_cookie_secure(app)

    def get_cookie_partitioned(self, app: Flask) -> bool:
        return True if _framed_by_mturk() else super().get_cookie_partitioned(app)


def init_app(app: Flask) -> None:
    """Sets the CSP itself (not setdefault), so it holds whatever order the after_request hooks run in."""
    app.after_request(_mturk_framing)
    app.session_interface = CrowdCookieSession()
