"""Who a visit through a study link logs in as, and when it may not.

The platforms prove little in the entry URL: Prolific and MTurk put the worker's id there, and anyone who
holds the study link can type another worker's id. What only the worker (and the platform) holds is the
id of their study session: Prolific's SESSION_ID, random and unique per participant per study, the same
again only when that participant comes back to the same submission; MTurk's assignmentId, given to the one
worker who accepted the assignment. So the session id is what a visit proves, and the rules are:

- The same session id (with its worker id) resumes its session, in its account: a worker who reloads,
  or comes back to their submission, goes on where they were.
- A session id opened by another worker id is refused.
- A new session id of a known worker id is refused while another session of that worker through the same
  link is open (not ended, and active within the project's lease time: a running HIT, or a HIT leased or
  submitted, or the session started, since): whoever borrowed the id never gets that session's HIT, answers
  or progress. Once the worker's sessions are over, a new session (a new study batch, a new MTurk HIT)
  goes on in the same account, so the worker is not given the items they voted on already.
- An unknown worker id gets a new account, within crowd_limits.py's rate per address and cap per link.
  An erased worker's id is unknown (erasure left no trace of it): a new account, and the erased one stays
  a pseudonym that nobody logs into.

Entering leases nothing: a HIT is leased when the worker presses Start (the HIT pages' POST), so made-up
ids hold no slot of the project.
"""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import NamedTuple

from sqlalchemy import func, or_, select

from annotator.core.database import write_transaction
from annotator.core.extensions import db
from annotator.core.models import LEASED, Assignment, CrowdLink, CrowdSession, User, utcnow
from annotator.people import crowd
from annotator.people.crowd_limits import count_new_account


class Admission(NamedTuple):
    """The account a visit logs into, and its study session."""

    user: User
    study: CrowdSession


class EntryRefused(crowd.CrowdError):
    """A visit that may not log in; `status` is the HTTP status its page answers with."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def admit(link: CrowdLink, visit: crowd.Visit, address: str) -> Admission:
    """The study session this visit logs into, resumed or new (see the module's docstring); committed.

    Refused (EntryRefused, or crowd_limits.TooManyAccounts) changing nothing. Everything happens under the
    link's row lock, so two visits through one link (the same worker's twice, or two new accounts against the
    cap) are decided one after the other."""
    with write_transaction():
        db.session.execute(select(CrowdLink.id).where(CrowdLink.id == link.id).with_for_update())
        user = crowd.find_worker_account(link.platform, visit.worker_id)
        known = crowd.find_session(link, visit.session_key)
        if known is not None:
            if user is None or known.user_id != user.id:
                raise EntryRefused("This study session belongs to another worker.", 400)
            _check_active(user)
            return Admission(user, known)
        now = utcnow()
        if user is None:
            count_new_account(link, address, now)
            user = crowd.create_worker_account(link.platform, visit.worker_id)
        else:
            _check_active(user)
            if open_session(link, user, now) is not None:
                raise EntryRefused(f"This {_worker_id_name(link)} has a study session under way already (opened "
                                   "from another page or browser). Please go on there; a session left alone "
                                   f"ends {link.project.lease_minutes} minutes after its last HIT. If you did "
                                   "not open it, please write to the researcher.", 409)
        return Admission(user, crowd.start_session(link, user, visit))


def _check_active(user: User) -> None:
    if not user.active:
        raise EntryRefused("This worker account may not take part any more.", 403)


def _worker_id_name(link: CrowdLink) -> str:
    return "Prolific ID" if link.platform == "prolific" else "MTurk worker id"


def open_session(link: CrowdLink, user: User, now: datetime) -> CrowdSession | None:
    """The worker's latest session through `link` that is still under way, if any: not ended (completed,
    screened out, or all its HITs done) and active within the project's lease time."""
    under_way = [session for session in db.session.scalars(
        select(CrowdSession).where(CrowdSession.link_id == link.id, CrowdSession.user_id == user.id,
                                   CrowdSession.screened_out.is_(None))
        .order_by(CrowdSession.started_at.desc()))
        if not crowd.is_complete(session)]
    if not under_way:
        return None
    since = now - timedelta(minutes=link.project.lease_minutes)
    if under_way[0].started_at > since:
        return under_way[0]
    active = db.session.scalar(select(func.count()).select_from(Assignment).where(
        Assignment.user_id == user.id, Assignment.project_id == link.project_id,
        or_((Assignment.status == LEASED) & (Assignment.expires_at > now),
            Assignment.leased_at > since, Assignment.submitted_at > since)))
    return under_way[0] if active else None
