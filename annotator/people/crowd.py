"""Crowd entry: study links for Prolific and Amazon Mechanical Turk, and what happens on them.

A link (models.CrowdLink) admits a platform's workers to one project. Its URL carries a secret derived from
the link's nonce and the app's SECRET_KEY (HMAC-SHA256), compared in constant time, so links cannot be
guessed from a project's slug nor read from a copy of the database. A worker id gets one account
("<platform>:<id>", a name no ordinary account can have, no password); which visit may log into it is
crowd_entry.py's rule (the study session's id, not the worker id, is what proves who comes). A study
session (SESSION_ID, assignmentId) counts the HITs submitted since it started, and after the link's number
of HITs it is complete and the worker gets the completion code.

Whether the worker is screened out (blocked, failed the qualification quiz) is quality control's verdict,
`annotator.quality.screen_out_reason`, which the crowd pages (annotator/web/crowd.py) ask on every step.
"""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, current_app
from sqlalchemy import Select, func, select
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from annotator.core.extensions import db
from annotator.core.models import (
    CROWD_PLATFORMS,
    CROWD_SEPARATOR,
    SUBMITTED,
    Assignment,
    CrowdLink,
    CrowdSession,
    CrowdWorker,
    Project,
    User,
    utcnow,
)

WORKER_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # Prolific ids are 24 hex digits, MTurk's 12-14 capitals
SESSION_KEY = re.compile(r"^[A-Za-z0-9_-]{1,200}$")
CODE = re.compile(r"^[A-Za-z0-9_-]{1,80}$")
MTURK_PREVIEW = "ASSIGNMENT_ID_NOT_AVAILABLE"
# Where MTurk may tell us to post the finished assignment: the live site and the sandbox only.
MTURK_SUBMIT_HOSTS = ("www.mturk.com", "workersandbox.mturk.com")
PROLIFIC_COMPLETE = "https://app.prolific.com/submissions/complete?cc={code}"


class CrowdError(ValueError):
    """A link or a visit that cannot be used; the message says why (shown to the worker or the admin)."""


@dataclass(frozen=True)
class Visit:
    """What a platform put in the entry URL, checked."""

    worker_id: str
    session_key: str                # SESSION_ID (Prolific), assignmentId (MTurk)
    details: dict[str, Any]


def link_token(link: CrowdLink) -> str:
    key = current_app.config["SECRET_KEY"]
    key = key.encode() if isinstance(key, str) else key
    message = f"crowd-link:{link.project_id}:{link.platform}:{link.nonce}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()[:40]


def token_matches(link: CrowdLink, token: str) -> bool:
    return hmac.compare_digest(link_token(link).encode(), token.encode())


def save_link(project: Project, platform: str, hits: int, completion_code: str, screen_out_code: str = "",
              new_secret: bool = False) -> CrowdLink:
    """Create or change the project's link for `platform` (the caller records and commits: the action
    annotator/actions/crowd_links.py); a new link has a new secret."""
    if platform not in CROWD_PLATFORMS:
        raise CrowdError(f"platform {platform!r} is not one of {', '.join(CROWD_PLATFORMS)}")
    if hits < 1:
        raise CrowdError("a study needs at least 1 HIT")
    for name, code in (("completion code", completion_code), ("screen-out code", screen_out_code)):
        if code and not CODE.match(code):
            raise CrowdError(f"the {name} {code[:80]!r} may have letters, digits, '_' and '-' only (1 to 80)")
    if not completion_code:
        raise CrowdError("a completion code is needed")
    link = db.session.scalar(select(CrowdLink).where(CrowdLink.project_id == project.id,
                                                     CrowdLink.platform == platform))
    if link is None:
        link = CrowdLink(project_id=project.id, platform=platform, nonce=secrets.token_hex(16), active=True)
        db.session.add(link)
    elif new_secret:
        link.nonce = secrets.token_hex(16)
    link.hits, link.completion_code, link.screen_out_code = hits, completion_code, screen_out_code
    db.session.flush()
    return link


def find_link(project: Project, platform: str, token: str) -> CrowdLink | None:
    """The project's active link for `platform` if `token` is its secret; None for anything else."""
    if platform not in CROWD_PLATFORMS:
        return None
    link = db.session.scalar(select(CrowdLink).where(CrowdLink.project_id == project.id,
                                                     CrowdLink.platform == platform, CrowdLink.active))
    return link if link is not None and token_matches(link, token) else None


def prolific_visit(args: Any) -> Visit:
    pid, study, session = (args.get(name, "").strip() for name in ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID"))
    if not WORKER_ID.match(pid):
        raise CrowdError("This link needs your Prolific ID (PROLIFIC_PID): please open the study from Prolific.")
    if not SESSION_KEY.match(session) or not SESSION_KEY.match(study):
        raise CrowdError("This link needs the study and session ids (STUDY_ID, SESSION_ID): please open the "
                         "study from Prolific.")
    return Visit(pid, session, {"study_id": study, "session_id": session})


def mturk_visit(args: Any) -> Visit:
    """A worker's accepted assignment (not a preview: the caller checks `assignmentId` first)."""
    worker, assignment, hit = (args.get(name, "").strip() for name in ("workerId", "assignmentId", "hitId"))
    submit_to = args.get("turkSubmitTo", "").strip()
    if not WORKER_ID.match(worker) or not SESSION_KEY.match(assignment) or not SESSION_KEY.match(hit):
        raise CrowdError("This page needs workerId, assignmentId and hitId: please open it from Mechanical Turk.")
    return Visit(worker, assignment, {"assignment_id": assignment, "hit_id": hit,
                                      "turk_submit_to": mturk_submit_base(submit_to)})


def mturk_submit_base(value: str) -> str:
    """turkSubmitTo, checked to be MTurk's (live or sandbox), so the finished form is posted nowhere else."""
    refusal = CrowdError("turkSubmitTo must be https://www.mturk.com or https://workersandbox.mturk.com.")
    try:
        parts = urlsplit(value)
    except ValueError as error:  # text urlsplit will not take apart, such as an unclosed IPv6 host: "https://[::1"
        raise refusal from error
    if parts.scheme != "https" or parts.hostname not in MTURK_SUBMIT_HOSTS or parts.path not in ("", "/"):
        raise refusal
    return f"https://{parts.hostname}"


def find_worker_account(platform: str, worker_id: str) -> User | None:
    """The account of this platform's worker id, if it has one (an erased worker has none: the id is gone)."""
    return db.session.scalar(select(User).join(CrowdWorker, CrowdWorker.user_id == User.id)
                             .where(CrowdWorker.platform == platform, CrowdWorker.worker_id == worker_id))


def create_worker_account(platform: str, worker_id: str) -> User:
    """A new account for this platform's worker id (the caller commits; crowd_entry.py decides when).

    Two first visits at once (through two links) may both try: the unique (platform, worker_id) lets one
    win, and the other finds its row after the rollback of a savepoint.
    """
    try:
        with db.session.begin_nested():
            user = User(username=f"{platform}{CROWD_SEPARATOR}{worker_id}", role="annotator", password_hash=None)
            db.session.add(user)
            db.session.flush()
            db.session.add(CrowdWorker(platform=platform, worker_id=worker_id, user_id=user.id))
            db.session.flush()
        return user
    except IntegrityError:  # a parallel first visit created it
        found = find_worker_account(platform, worker_id)
        if found is None:
            raise
        return found


def find_session(link: CrowdLink, session_key: str) -> CrowdSession | None:
    """The link's study session of this key (SESSION_ID, assignmentId), if it was opened before."""
    return db.session.scalar(select(CrowdSession).where(CrowdSession.link_id == link.id,
                                                        CrowdSession.session_key == session_key))


def start_session(link: CrowdLink, user: User, visit: Visit) -> CrowdSession:
    """A new study session of the worker (the caller commits, after crowd_entry.py allowed it)."""
    session = CrowdSession(link_id=link.id, user_id=user.id, session_key=visit.session_key, details=visit.details,
                           started_at=utcnow())
    db.session.add(session)
    db.session.flush()
    return session


def hits_done(session: CrowdSession) -> int:
    """HITs of the link's project this worker submitted since the session started."""
    return db.session.scalar(select(func.count()).select_from(Assignment).where(
        Assignment.user_id == session.user_id, Assignment.project_id == session.link.project_id,
        Assignment.status == SUBMITTED, Assignment.submitted_at >= session.started_at)) or 0


def is_complete(session: CrowdSession) -> bool:
    return session.completed_at is not None or hits_done(session) >= session.link.hits


def admitted_projects(user: User) -> Select[int]:
    """The ids of the projects whose links let this crowd account in (a subquery)."""
    return (select(CrowdLink.project_id).join(CrowdSession, CrowdSession.link_id == CrowdLink.id)
            .where(CrowdSession.user_id == user.id))


def admitted(project: Project, user: User) -> bool:
    """Whether a crowd account came in through one of the project's links (its only way into a project)."""
    return bool(db.session.scalar(select(func.count()).select_from(CrowdSession)
                                  .join(CrowdLink, CrowdLink.id == CrowdSession.link_id)
                                  .where(CrowdLink.project_id == project.id, CrowdSession.user_id == user.id)))


def entry_url(link: CrowdLink, base_url: str) -> str:
    """The link to give the platform; Prolific appends nothing by itself, so its ids are asked for."""
    path = f"{base_url.rstrip('/')}/crowd/{link.project.slug}/{link.platform}/{link_token(link)}"
    if link.platform == "prolific":
        return path + "?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
    return path


def base_url_warning(address: str | None = None) -> str:
    """Why the study links will not reach the workers, naming the address they would be made from: the one this
    request came to (`address`, e.g. request.host_url), or, at start-up, no example (a fixed one named port
    5000 on a server listening elsewhere)."""
    seen = f" (here {address.rstrip('/')})" if address else ""
    return (f"ANNOTATOR_BASE_URL is not set: crowd study links and MTurk's ExternalURL are made from the address a "
            f"request came to{seen}, which workers cannot reach. Set ANNOTATOR_BASE_URL to the server's public "
            "https:// address.")


def warn_without_base_url(app: Flask) -> None:
    """At start-up: log base_url_warning() when some project has a study link (crowd entry is on) and no
    ANNOTATOR_BASE_URL is set. A database without its tables yet (before `flask db upgrade`) says nothing.

    The connection it used is closed, not pooled: `gunicorn --preload` forks the app into every worker, and
    workers sharing one inherited connection would read each other's answers."""
    if app.config.get("PUBLIC_BASE_URL"):
        return
    with app.app_context():
        try:
            enabled = db.session.scalar(select(CrowdLink.id).limit(1)) is not None
        except SQLAlchemyError:
            enabled = False
        finally:
            db.session.remove()
            db.engine.dispose()
    if enabled:
        app.logger.warning("Crowd entry is enabled (a project has a study link), but " + base_url_warning())
