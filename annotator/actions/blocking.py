"""An admin's decisions about one annotator of a project: unblock them, let them take the quiz again.

The automatic rules (blocking and excluding during a submit) are quality/blocking.py, recorded there with the
rule as the actor. Unblocking takes no vote back (those excluded stay out), so no kept figure goes stale.
"""
from __future__ import annotations

from annotator.actions.base import action
from annotator.core.audit import Actor, record
from annotator.core.models import Project, User
from annotator.quality import blocking, qualification


@action("annotator.unblock")
def unblock(project: Project, user: User, by: Actor) -> None:
    """The annotator may work again, and the automatic rules leave them alone from now on."""
    blocking.unblock(user, project)
    record("annotator.unblock", project, {"user_id": user.id}, actor=by)


@action("annotator.retry_quiz")
def allow_retry(project: Project, user: User, by: Actor) -> None:
    """An annotator who failed the qualification quiz may take it again (the failure stays on record)."""
    qualification.allow_retry(user, project)
    record("annotator.retry_quiz", project, {"user_id": user.id}, actor=by)
