"""JSON API for crowd clients and scripts: bearer tokens only (no cookies, so no CSRF surface)."""
from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, NamedTuple

from flask import Blueprint, Response, current_app, g, jsonify, request
from flask.typing import ResponseReturnValue
from sqlalchemy import ColumnElement, Select, bindparam, select
from werkzeug.exceptions import HTTPException

from annotator.analysis.results import annotator_progress, project_progress
from annotator.campaigns.projects import closed_to
from annotator.core.extensions import csrf, db
from annotator.core.jsonsafe import JSONBodyError, JSONValueError, loads
from annotator.core.models import ApiToken, Assignment, Project, User, token_digest
from annotator.engine import assignment as engine
from annotator.engine.assignment import Lease
from annotator.tasks import AnswerError, project_task
from annotator.web.common import no_such_project, open_project, project_or_404
from annotator.web.openapi import openapi
from annotator.web.token_holders import attach, token_holders

bp = Blueprint("api", __name__, url_prefix="/api/v1")
csrf.exempt(bp)


def _error(status: int, message: str) -> tuple[Response, int]:
    return jsonify({"error": message, "status": status}), status


def _http_error(error: HTTPException) -> tuple[Response, int]:
    return _error(error.code or 500, error.description or error.name)


# By code as well as by class: Flask prefers the app's code-specific HTML error pages otherwise.
bp.register_error_handler(HTTPException, _http_error)
for _code in (400, 401, 403, 404, 405, 409, 413, 415, 422, 500):
    bp.register_error_handler(_code, _http_error)


def read_json_body() -> Any:
    """The request's JSON, read within API_MAX_BODY_BYTES (413 past it) and through jsonsafe.loads."""
    request.max_content_length = current_app.config["API_MAX_BODY_BYTES"]
    return loads(request.get_data(cache=False), current_app.config["API_MAX_JSON_DEPTH"])


_HOLDER = select(User).join(ApiToken).where(ApiToken.digest == bindparam("digest"))


def _holder_and_project(which: ColumnElement[bool]) -> Select[User, Project]:
    """The token's holder and the project `which` picks (outer-joined: None when there is no such project).

    Every column is loaded (none deferred): the holders kept are copies of these rows, and a column a
    copy lacked would count as expired, so `Session.get` of the project in submit would read it again."""
    return select(User, Project).join(ApiToken).outerjoin(Project, which).where(ApiToken.digest == bindparam("digest"))


_ASSIGNMENTS_PROJECT = select(Assignment.project_id).where(Assignment.id == bindparam("assignment_id"))
_HOLDER_AND_PROJECT = _holder_and_project(Project.slug == bindparam("slug"))
_HOLDER_AND_ASSIGNMENTS_PROJECT = _holder_and_project(Project.id == _ASSIGNMENTS_PROJECT.scalar_subquery())


class Holder(NamedTuple):
    """Who sent an API request, and the projects it may touch, in the request's session."""

    user: User | None
    project: Project | None  # the project of the URL's slug
    kept_projects: list[Project]  # the token's projects put in the session for submit (held: the identity
    # map keeps only instances something references)


def token_holder(digest: str, slug: str | None = None, assignment_id: int | None = None) -> Holder:
    """The user holding the token with this digest (active or not), and the project of the request's URL
    (project `slug`; None when there is none, or for an assignment's URL). Kept by this process for a
    moment (web/token_holders.py: another process's change counts within API_HOLDER_SECONDS), else read
    in one statement with the project.

    For an assignment's URL the projects this token worked in are put in the request's session (its
    assignment's project, read by the same statement when nothing is kept): engine.submit's
    `Session.get_one` finds it there, with no statement of its own."""
    holders = token_holders()
    kept = holders.get(digest)
    if kept is not None:
        if assignment_id is not None:
            return Holder(attach(kept.user), None, [attach(project) for project in kept.projects.values()])
        if slug is None:
            return Holder(attach(kept.user), None, [])
        project = kept.project(slug)
        if project is not None:
            return Holder(attach(kept.user), attach(project), [])
    user, project = _read_holder(digest, slug, assignment_id)
    if user is not None:
        holders.keep(digest, user, [project])
    if assignment_id is not None:
        return Holder(user, None, [project] if project is not None else [])
    return Holder(user, project, [])


def _read_holder(digest: str, slug: str | None, assignment_id: int | None) -> tuple[User | None, Project | None]:
    params: dict[str, Any]
    if slug is not None:
        statement, params = _HOLDER_AND_PROJECT, {"digest": digest, "slug": slug}
    elif assignment_id is not None:
        statement, params = _HOLDER_AND_ASSIGNMENTS_PROJECT, {"digest": digest, "assignment_id": assignment_id}
    else:
        return db.session.scalar(_HOLDER, {"digest": digest}), None
    row = db.session.execute(statement, params).first()
    return (None, None) if row is None else (row[0], row[1])


def token_required(view: Callable[..., Any]) -> Callable[..., Any]:
    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        header = request.headers.get("Authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return _error(401, "send your API token as 'Authorization: Bearer <token>'")
        # The token's user and, for a view with a project in its URL, that project (None: no such project);
        # for one with an assignment, the token's projects in the session, for submit. g keeps them.
        holder = token_holder(token_digest(token.strip()), kwargs.get("slug"), kwargs.get("assignment_id"))
        if holder.user is None or not holder.user.active:
            return _error(401, "unknown or revoked API token")
        g.api_user, g.api_project, g.api_kept_projects = holder
        return view(*args, **kwargs)
    return wrapper


def _assignment_json(lease: Lease, project: Project) -> dict[str, Any]:
    task = project_task(project)
    item = task.public_item(lease.item, task.settings_of(project), lease.presentation)
    body = {"id": lease.id, "item": item, "expires_at": lease.expires_at.isoformat() + "Z"}
    questions = task.public_questions(lease.item)
    if questions is not None:
        body["questions"] = questions
    return body


@bp.get("/openapi.json")
def openapi_description() -> ResponseReturnValue:
    """The API's OpenAPI description (public: it says how to call the API, nothing about the data)."""
    return jsonify(openapi())


@bp.post("/projects/<slug>/next")
@token_required
def next_hit(slug: str) -> ResponseReturnValue:
    project = open_project(slug, g.api_user, g.api_project)
    try:
        assignment = engine.next_for(g.api_user, project)
    except engine.ScreenedOut as stop:
        body = {"error": str(stop), "status": 403, "blocked": stop.blocked}
        if not stop.blocked:
            body["quiz_failed"] = True
        return jsonify(body), 403
    if assignment is None:
        return "", 204
    return jsonify({"assignment": _assignment_json(assignment, project)})


@bp.post("/assignments/<int:assignment_id>/submit")
@token_required
def submit(assignment_id: int) -> ResponseReturnValue:
    try:
        body = read_json_body()
    except JSONBodyError as error:
        return _error(400, f'{error}; send a JSON object {{"answer": {{...}}}}')
    except JSONValueError as error:
        return _error(422, str(error))
    if not isinstance(body, dict) or not isinstance(body.get("answer"), dict):
        return _error(400, 'send a JSON object {"answer": {...}}')
    try:
        result = engine.submit(assignment_id, g.api_user, body["answer"])
    except AnswerError as error:
        return _error(422, str(error))
    except engine.AssignmentError as error:
        return _error(error.status, str(error))
    stored = result.assignment
    assert stored.submitted_at is not None  # the vote a submit reports is submitted, so it has its time
    return jsonify({"assignment": {"id": stored.id, "answer": stored.answer,
                                   "submitted_at": stored.submitted_at.isoformat() + "Z"},
                    "created": result.created}), 201 if result.created else 200


@bp.get("/projects/<slug>/progress")
@token_required
def progress(slug: str) -> ResponseReturnValue:
    """The caller's progress (and an admin's, the project's). A project closed to a caller who is not an admin
    answers as a missing one does, with no counts: its votes and size are not theirs to see."""
    project = g.api_project or project_or_404(slug)
    if not g.api_user.is_admin and closed_to(project, g.api_user):
        no_such_project(slug)
    mine = annotator_progress(g.api_user, project)
    body: dict[str, Any] = {"project": project.slug, "done": mine.done, "available": mine.available}
    if g.api_user.is_admin:  # the whole project's counts are for admins only
        overall = project_progress(project)
        body["project_progress"] = {"items": overall.items, "complete": overall.complete,
                                    "votes": overall.votes, "votes_needed": overall.votes_needed,
                                    "open_leases": overall.open_leases}
    return jsonify(body)
